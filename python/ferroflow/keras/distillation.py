"""`keras.distillation`: Keras 3's knowledge-distillation losses (`LogitsDistillation`,
`FeatureDistillation`) over ferroflow's Keras losses and ops, and `Distiller`, a model that
trains a student against a frozen teacher with them."""

from ferroflow.keras import losses, metrics, ops, tree
from ferroflow.keras.models import Model, Sequential
from ferroflow.keras.saving import serialization_lib

__all__ = ["DistillationLoss", "Distiller", "FeatureDistillation", "LogitsDistillation"]


def _loss_function(item):
    if isinstance(item, str):
        loss = losses.get(item)
        if loss is None:
            raise ValueError(f"Unknown loss function: '{item}'.")
        return loss
    return item


def _summed(loss_values):
    return ops.sum(ops.stack(tree.flatten(loss_values)))


class DistillationLoss:
    """Base class of distillation losses: ``compute_loss(teacher_outputs, student_outputs)``."""

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        raise NotImplementedError("Subclasses must implement compute_loss")

    def validate_outputs(self, teacher_outputs, student_outputs):
        """Raises ``ValueError`` unless both outputs have the same structure."""
        tree.assert_same_structure(teacher_outputs, student_outputs)

    def validate_model_compatibility(self, teacher, student):
        """Checks that the teacher and student fit this loss (nothing to check here)."""


class FeatureDistillation(DistillationLoss):
    """The mean of ``loss(teacher_features, student_features)`` per output (or per named
    intermediate layer), summed."""

    def __init__(self, loss="mse", teacher_layer_name=None, student_layer_name=None):
        self.teacher_layer_name = teacher_layer_name
        self.student_layer_name = student_layer_name
        self.loss = tree.map_structure(_loss_function, loss)
        if all(item is None for item in tree.flatten(self.loss)):
            raise ValueError(
                "The `loss` argument in `FeatureDistillation` must contain at least one "
                "non-`None` value."
            )

    def validate_model_compatibility(self, teacher, student):
        """Layer names need functional or sequential models that have those layers."""
        if self.teacher_layer_name is not None or self.student_layer_name is not None:
            subclassed = [
                role
                for role, model in (("teacher", teacher), ("student", student))
                if getattr(model, "inputs", None) is None
            ]
            if subclassed:
                raise ValueError(
                    "FeatureDistillation with specific layer names requires Functional or "
                    f"Sequential models. The {' and '.join(subclassed)} model(s) appear to be "
                    "subclassed (no symbolic inputs/outputs). Either use Functional/Sequential "
                    "models, or use FeatureDistillation without layer names (to distill final "
                    "outputs only), or use LogitsDistillation instead."
                )
        for role, model, name in (
            ("teacher", teacher, self.teacher_layer_name),
            ("student", student, self.student_layer_name),
        ):
            if name is not None:
                try:
                    model.get_layer(name=name)
                except ValueError as e:
                    raise ValueError(f"In {role} model: {e}") from None

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        def apply(loss_fn, teacher, student):
            if loss_fn is None:
                return 0.0
            return ops.mean(loss_fn(teacher, student))

        return _summed(tree.map_structure(apply, self.loss, teacher_outputs, student_outputs))

    def get_config(self):
        return {
            "loss": losses.serialize(self.loss),
            "teacher_layer_name": self.teacher_layer_name,
            "student_layer_name": self.student_layer_name,
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["loss"] = losses.deserialize(config["loss"])
        return cls(**config)


class LogitsDistillation(DistillationLoss):
    """Distillation of logits softened by ``temperature``: for a `KLDivergence` loss object,
    ``temperature**2`` times the mean KL divergence of the softmaxes; for any other loss, its
    mean on the scaled logits."""

    def __init__(self, temperature=3.0, loss="kl_divergence"):
        self.temperature = temperature
        self.loss = tree.map_structure(_loss_function, loss)
        if all(item is None for item in tree.flatten(self.loss)):
            raise ValueError("At least one loss must be non-`None`.")
        if not isinstance(self.temperature, (int, float)):
            raise ValueError(f"temperature must be a number, got {type(self.temperature)}")
        if self.temperature <= 0.0:
            raise ValueError("temperature must be positive.")

    def compute_loss(self, teacher_outputs, student_outputs, **kwargs):
        def scaled(outputs):
            return tree.map_structure(lambda x: ops.divide(x, self.temperature), outputs)

        def apply(loss_fn, teacher, student):
            if loss_fn is None:
                return 0.0
            if isinstance(loss_fn, losses.KLDivergence):
                teacher_probs = ops.softmax(teacher, axis=-1)
                student_probs = ops.softmax(student, axis=-1)
                return ops.mean(loss_fn(teacher_probs, student_probs)) * self.temperature**2
            return ops.mean(loss_fn(teacher, student))

        return _summed(
            tree.map_structure(apply, self.loss, scaled(teacher_outputs), scaled(student_outputs))
        )

    def get_config(self):
        return {
            "temperature": self.temperature,
            "loss": serialization_lib.serialize_keras_object(self.loss),
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["loss"] = losses.deserialize(config["loss"])
        return cls(**config)


def _check_shapes(teacher_shape, student_shape, context):
    if len(teacher_shape) != len(student_shape):
        raise ValueError(
            f"Teacher and student {context} shapes have different dimensions. Teacher: "
            f"{teacher_shape}, Student: {student_shape}."
        )
    for a, b in zip(teacher_shape, student_shape):
        if a is not None and b is not None and a != b:
            raise ValueError(
                f"Teacher and student {context} shapes are incompatible. Teacher: "
                f"{teacher_shape}, Student: {student_shape}. All dimensions must match."
            )


def _check_dtypes(teacher_dtype, student_dtype, context):
    if teacher_dtype != student_dtype:
        raise ValueError(
            f"Teacher and student {context} dtypes must match. Teacher: {teacher_dtype}, "
            f"Student: {student_dtype}."
        )


def _symbolic(model, attribute):
    return getattr(model, attribute, None)


class Distiller(Model):
    """Trains ``student`` on a mix of its own loss (weight ``student_loss_weight``) and
    distillation losses against a frozen ``teacher``."""

    def __init__(
        self,
        teacher,
        student,
        distillation_losses,
        distillation_loss_weights=None,
        student_loss_weight=0.5,
        name="distiller",
        **kwargs,
    ):
        super().__init__(name=name, **kwargs)
        for role, model in (("Teacher", teacher), ("Student", student)):
            if not isinstance(model, Model):
                raise ValueError(f"{role} must be a keras.Model, got {type(model)}")
        for attribute, context in (("inputs", "input"), ("outputs", "output")):
            t, st = _symbolic(teacher, attribute), _symbolic(student, attribute)
            if t is not None and st is not None:
                tree.map_structure(
                    lambda a, b, c=context: _check_shapes(a.shape, b.shape, c), t, st
                )
        for attribute, context in (("inputs", "input"), ("outputs", "output")):
            t, st = _symbolic(teacher, attribute), _symbolic(student, attribute)
            if t is None or st is None:
                break
            tree.map_structure(lambda a, b, c=context: _check_dtypes(a.dtype, b.dtype, c), t, st)
        self.teacher = teacher
        self.student = student
        if not isinstance(student_loss_weight, (int, float)):
            raise ValueError(
                f"student_loss_weight must be a number, got {type(student_loss_weight)}"
            )
        if student_loss_weight < 0.0 or student_loss_weight > 1.0:
            raise ValueError(
                f"student_loss_weight must be between 0.0 and 1.0, got {student_loss_weight}"
            )
        self.student_loss_weight = student_loss_weight
        if distillation_losses is None:
            raise ValueError(
                "'distillation_losses' cannot be `None`. Provide a distillation loss "
                "(e.g., LogitsDistillation or FeatureDistillation) or a list of "
                "distillation losses."
            )
        if not isinstance(distillation_losses, (list, tuple)):
            distillation_losses, distillation_loss_weights = [distillation_losses], [1.0]
        elif distillation_loss_weights is None:
            distillation_loss_weights = [1.0] * len(distillation_losses)
        elif len(distillation_loss_weights) != len(distillation_losses):
            raise ValueError(
                f"Number of distillation_loss_weights ({len(distillation_loss_weights)}) "
                f"must match number of distillation_losses ({len(distillation_losses)})"
            )
        self.distillation_losses = distillation_losses
        self.distillation_loss_weights = distillation_loss_weights
        for loss in self.distillation_losses:
            loss.validate_model_compatibility(teacher, student)
        self._teacher_feature_extractor = self._feature_extractor(teacher, "teacher")
        self._student_feature_extractor = self._feature_extractor(student, "student")
        self.teacher.trainable = False
        self.student_loss_tracker = metrics.Mean(name="student_loss")
        self.distillation_loss_tracker = metrics.Mean(name="distillation_loss")
        self.total_loss_tracker = metrics.Mean(name="total_loss")

    def _feature_extractor(self, model, role):
        names = []
        for loss in self.distillation_losses:
            name = getattr(loss, f"{role}_layer_name", None)
            if name and name not in names:
                names.append(name)
        if not names:
            return None
        if getattr(model, "inputs", None) is None:
            raise ValueError(
                f"Cannot create feature extractor for {model.name}. The model has no "
                "symbolic inputs attribute."
            )
        final = model.layers[-1].output if isinstance(model, Sequential) else model.output
        outputs = {"final_output": final}
        for name in names:
            outputs[name] = model.get_layer(name=name).output
        return Model(
            inputs=model.inputs,
            outputs=outputs,
            name=f"{model.name}_multi_feature_extractor",
        )

    def compile(self, optimizer="adam", loss=None, metrics=None, **kwargs):
        """Compiles with ``loss`` as the student's loss (required)."""
        if loss is None:
            raise ValueError("'loss' cannot be `None`.")
        self._student_loss = tree.map_structure(_loss_function, loss)
        self._student_loss_for_serialization = loss
        if metrics is not None and not isinstance(metrics, (list, tuple)):
            raise ValueError(f"metrics must be a list or tuple, got {type(metrics)}")
        super().compile(optimizer=optimizer, loss=None, metrics=metrics, **kwargs)

    def call(self, inputs, training=None, **kwargs):
        return self.student(inputs, training=training, **kwargs)

    def _features(self, loss, features, role):
        name = getattr(loss, f"{role}_layer_name") or "final_output"
        if name not in features:
            raise ValueError(
                f"Layer '{name}' not found in extracted features. Available: "
                f"{list(features.keys())}"
            )
        return features[name]

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """``w * student_loss + (1 - w) * sum(weight_i * distillation_loss_i)``."""
        if y_pred is None:
            y_pred = self(x, training=training)
        student_loss = 0.0
        if self.student_loss_weight > 0.0 and y is not None:
            values = tree.flatten(
                tree.map_structure(lambda fn, o, p: fn(o, p), self._student_loss, y, y_pred)
            )
            student_loss = _summed(values) if len(values) > 1 else values[0]
            if hasattr(student_loss, "shape") and len(student_loss.shape) > 0:
                student_loss = ops.mean(student_loss)
        distillation_loss = 0.0
        if self.student_loss_weight < 1.0:
            if self._teacher_feature_extractor is not None:
                teacher_features = self._teacher_feature_extractor(x, training=False)
            else:
                teacher_features = {"final_output": self.teacher(x, training=False)}
            if self._student_feature_extractor is not None:
                student_features = self._student_feature_extractor(x, training=True)
            else:
                student_features = {"final_output": y_pred}
            for loss_fn, weight in zip(self.distillation_losses, self.distillation_loss_weights):
                if getattr(loss_fn, "teacher_layer_name", None) is not None:
                    try:
                        teacher_out = self._features(loss_fn, teacher_features, "teacher")
                        student_out = self._features(loss_fn, student_features, "student")
                    except ValueError as e:
                        raise RuntimeError(
                            f"Failed to extract features for {type(loss_fn).__name__} "
                            f"targeting teacher layer '{loss_fn.teacher_layer_name}' and "
                            f"student layer '{loss_fn.student_layer_name}'. Original "
                            f"error: {e}"
                        ) from e
                else:
                    teacher_out, student_out = teacher_features["final_output"], y_pred
                loss_fn.validate_outputs(teacher_out, student_out)
                value = loss_fn.compute_loss(teacher_out, student_out)
                if hasattr(value, "shape") and len(value.shape) > 0:
                    raise ValueError(
                        f"Distillation loss {type(loss_fn).__name__} returned a "
                        f"non-scalar loss with shape {value.shape}. The compute_loss "
                        "method must return a scalar tensor."
                    )
                distillation_loss = ops.add(distillation_loss, ops.multiply(weight, value))
        total = ops.add(
            ops.multiply(self.student_loss_weight, student_loss),
            ops.multiply(ops.subtract(1.0, self.student_loss_weight), distillation_loss),
        )
        self.student_loss_tracker.update_state(student_loss)
        self.distillation_loss_tracker.update_state(distillation_loss)
        self.total_loss_tracker.update_state(total)
        return total

    def reset_metrics(self):
        super().reset_metrics()
        self.student_loss_tracker.reset_state()
        self.distillation_loss_tracker.reset_state()
        self.total_loss_tracker.reset_state()

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "teacher": serialization_lib.serialize_keras_object(self.teacher),
                "student": serialization_lib.serialize_keras_object(self.student),
                "distillation_losses": [
                    serialization_lib.serialize_keras_object(loss)
                    for loss in self.distillation_losses
                ],
                "distillation_loss_weights": self.distillation_loss_weights,
                "student_loss_weight": self.student_loss_weight,
            }
        )
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for key in ("teacher", "student"):
            config[key] = serialization_lib.deserialize_keras_object(config[key])
        config["distillation_losses"] = [
            serialization_lib.deserialize_keras_object(loss)
            for loss in config["distillation_losses"]
        ]
        return cls(**config)
