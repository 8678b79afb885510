"""`keras.distillation`: Keras 3's knowledge-distillation losses (`LogitsDistillation`,
`FeatureDistillation`) over ferroflow's Keras losses and ops. The `Distiller` model (a
teacher-student training loop) is not in ferroflow: constructing one raises
``NotImplementedError``."""

from ferroflow.keras import losses, ops, tree
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


class Distiller:
    """Keras's teacher-student model: not in ferroflow."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            "keras.distillation.Distiller is not implemented in ferroflow; compute a "
            "`LogitsDistillation`/`FeatureDistillation` loss in a custom `train_step` instead."
        )
