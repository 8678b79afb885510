"""`tf.keras.Model`: subclassed (a Layer whose `call` the user writes and whose sublayers'
weights it collects) or functional (``Model(inputs, outputs)``, which makes a `Functional`).
Training lives in `Trainer`, the formats of `save` in keras/saving."""

from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.models.trainer import Trainer

__all__ = ["Model"]


def _functional_init_arguments(args, kwargs):
    return (
        len(args) == 2
        or (len(args) == 1 and "outputs" in kwargs)
        or ("inputs" in kwargs and "outputs" in kwargs)
    )


def _inject_functional_model_class(cls):
    """Puts `Functional` in the bases of a Model subclass whose __init__ calls
    ``super().__init__(inputs, outputs)``, as Keras does."""
    from ferroflow.keras.models.functional import Functional

    if cls is Model:
        return Functional
    if cls is object or issubclass(cls, Functional):
        return cls
    cls.__bases__ = tuple(_inject_functional_model_class(base) for base in cls.__bases__)
    return cls


class Model(Trainer, Layer):
    """Groups layers into an object with training and inference features.

    Either subclass it (create layers in ``__init__``, write ``call``) or call it as
    ``tf.keras.Model(inputs, outputs)`` on `tf.keras.Input` tensors and the outputs of layer
    calls on them, which makes a functional model.
    """

    def __new__(cls, *args, **kwargs):
        if cls is Model and _functional_init_arguments(args, kwargs):
            from ferroflow.keras.models.functional import Functional

            return super().__new__(Functional, *args, **kwargs)
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args, **kwargs):
        if _functional_init_arguments(args, kwargs):
            from ferroflow.keras.models.functional import Functional

            _inject_functional_model_class(type(self))
            Functional.__init__(self, *args, **kwargs)
            return
        super().__init__(*args, **kwargs)

    def _checkpoint_alias(self, name):
        """What a Keras 2 checkpoint's edge ``name`` (``layer_with_weights-0``) names here."""
        from ferroflow.keras.models import _tf_keras_names

        return _tf_keras_names.model_child(self, name)

    def call(self, inputs, *args, **kwargs):
        raise NotImplementedError(
            f"Model {self.name} has no `call` method: subclasses of tf.keras.Model write "
            "`call(self, inputs)`"
        )

    # --- inspection -----------------------------------------------------------------------

    def get_layer(self, name=None, index=None):
        """A layer by its name (unique in the model) or by its index in `layers`."""
        if index is not None and name is not None:
            raise ValueError(
                f"Provide only a layer name or a layer index. Received: index={index}, name={name}."
            )
        layers = self.layers
        if index is not None:
            if len(layers) <= index:
                raise ValueError(
                    f"Was asked to retrieve layer at index {index} but model only has "
                    f"{len(layers)} layers."
                )
            return layers[index]
        if name is not None:
            for layer in layers:
                if layer.name == name:
                    return layer
            raise ValueError(
                f"No such layer: {name}. Existing layers are: "
                f"{list(layer.name for layer in layers)}."
            )
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def summary(
        self,
        line_length=None,
        positions=None,
        print_fn=None,
        expand_nested=False,
        show_trainable=False,
        layer_range=None,
    ):
        """Prints Keras 3's table of the model's layers, output shapes and parameter counts
        (to stdout, or as one string to ``print_fn``)."""
        from ferroflow.keras.models import summary

        summary.print_summary(
            self,
            line_length=line_length,
            positions=positions,
            print_fn=print_fn,
            expand_nested=expand_nested,
            show_trainable=show_trainable,
            layer_range=layer_range,
        )

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A model from its config: functional configs (``layers``, ``input_layers``,
        ``output_layers``) are rebuilt as functional models, others go to the constructor."""
        from ferroflow.keras.models import functional

        functional_keys = ("name", "layers", "input_layers", "output_layers")
        if all(key in config for key in functional_keys) and (
            cls in (Model, functional.Functional) or functional.functional_like_constructor(cls)
        ):
            return functional.functional_from_config(cls, config, custom_objects=custom_objects)
        try:
            return cls(**config)
        except TypeError as error:
            raise TypeError(
                f"Unable to revive model from config. When overriding the `get_config()` "
                "method, make sure that the returned config contains all items used as "
                f"arguments in the constructor to {cls}, which is the default behavior. You "
                f"can override this default behavior by defining a `from_config(cls, config)` "
                f"class method to specify how to create an instance of {cls.__name__} from "
                f"its config.\n\nReceived config={config}\n\nError encountered during "
                f"deserialization: {error}"
            ) from error

    # --- saving (the formats live in keras/saving) ----------------------------------------

    def save(self, filepath, overwrite=True, **kwargs):
        from ferroflow.keras import saving

        saving.save_model(self, filepath, overwrite=overwrite, **kwargs)

    def save_weights(self, filepath, overwrite=True, **kwargs):
        from ferroflow.keras import saving

        saving.save_weights(self, filepath, overwrite=overwrite, **kwargs)

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        from ferroflow.keras import saving

        return saving.load_weights(self, filepath, skip_mismatch=skip_mismatch, **kwargs)

    def export(
        self, filepath, format="tf_saved_model", verbose=None, input_signature=None, **kwargs
    ):
        """Exports the forward pass for inference: with ``format="tf_saved_model"`` a
        SavedModel whose ``serve`` endpoint (also signature ``serving_default``) takes
        ``input_signature``, by default the model's inputs with any batch size (see
        keras/export)."""
        from ferroflow.keras.export import model_export

        model_export.export_model(self, filepath, format, verbose, input_signature, **kwargs)

    def quantize(self, mode=None, config=None, filters=None, **kwargs):
        """Quantizes the weights of every leaf layer that can be (``"int8"``, ``"int4"``;
        Keras's rules: ``filters`` is a regex, a list of them or a callable choosing layers;
        a layer without a quantized form only warns)."""
        _quantize_model(self, mode, config, filters, kwargs)


def _quantize_model(model, mode, config, filters, kwargs):
    import re
    import warnings

    from ferroflow.keras.layers._quantization import UnsupportedQuantizationError

    type_check = kwargs.pop("type_check", True)
    if kwargs:
        raise ValueError(
            f"Unrecognized keyword arguments passed to {type(model).__name__}: {kwargs}"
        )
    if (
        filters is not None
        and not isinstance(filters, (str, list, tuple))
        and not callable(filters)
    ):
        raise ValueError(
            "The `filters` argument must be a regex string, a list of regex strings, or a "
            f"callable. Received: {type(filters)}"
        )
    if mode in ("gptq", "awq"):
        raise UnsupportedQuantizationError(
            f"ferroflow's Keras cannot quantize models with mode='{mode}' (no GPTQ/AWQ)."
        )

    def chosen(layer):
        if filters is None:
            return True
        if isinstance(filters, str):
            return bool(re.search(filters, layer.name))
        if isinstance(filters, (list, tuple)):
            return any(re.search(pattern, layer.name) for pattern in filters)
        return filters(layer)

    modified = False
    for layer in list(model._walk()):
        if not chosen(layer) or len(list(layer._walk())) != 1:
            continue
        try:
            layer.quantize(mode, type_check=type_check, config=config)
            modified = True
        except UnsupportedQuantizationError:
            raise
        except NotImplementedError as e:
            warnings.warn(str(e), stacklevel=3)
        except AttributeError:
            pass
    if modified:
        model.train_function = model.test_function = model.predict_function = None
