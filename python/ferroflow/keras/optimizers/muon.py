"""`tf.keras.optimizers.Muon`: momentum orthogonalized by Newton-Schulz iterations for 2-D
weights, AdamW for the others (and for embeddings and ``exclude_layers``)."""

import math
import re

from ferroflow import array_ops, linalg
from ferroflow import math as tf_math
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers.optimizer import Optimizer

__all__ = ["Muon"]


def _swap_last_axes(x):
    rank = len(x.shape)
    order = list(range(rank))
    order[-2], order[-1] = rank - 1, rank - 2
    return array_ops.transpose(x, order)


class Muon(Optimizer):
    """For a 2-D variable (not an embedding, not matched by ``exclude_layers``):
    ``m = momentum * m + g``, ``g' = g + momentum * m`` (Nesterov) or m, and
    ``w -= lr * NS5(g') * sqrt(max(shape)) * rms_rate``. The other variables take AdamW steps
    at ``lr * adam_lr_ratio`` (decay ``adam_weight_decay``)."""

    _no_dependency_attributes = Optimizer._no_dependency_attributes | {
        "momentums",
        "adam_velocities",
    }

    def __init__(
        self,
        learning_rate=0.001,
        adam_beta_1=0.9,
        adam_beta_2=0.999,
        adam_weight_decay=0.004,
        epsilon=1e-7,
        weight_decay=0.004,
        clipnorm=None,
        clipvalue=None,
        global_clipnorm=None,
        use_ema=False,
        ema_momentum=0.99,
        ema_overwrite_frequency=None,
        loss_scale_factor=None,
        gradient_accumulation_steps=None,
        name=None,
        exclude_layers=None,
        exclude_embeddings=True,
        muon_a=3.4445,
        muon_b=-4.775,
        muon_c=2.0315,
        adam_lr_ratio=1,
        momentum=0.95,
        ns_steps=5,
        nesterov=True,
        rms_rate=0.2,
        **kwargs,
    ):
        super().__init__(
            learning_rate=learning_rate,
            name=name,
            weight_decay=weight_decay,
            clipnorm=clipnorm,
            clipvalue=clipvalue,
            global_clipnorm=global_clipnorm,
            use_ema=use_ema,
            ema_momentum=ema_momentum,
            ema_overwrite_frequency=ema_overwrite_frequency,
            loss_scale_factor=loss_scale_factor,
            gradient_accumulation_steps=gradient_accumulation_steps,
            **kwargs,
        )
        self.adam_beta_1 = adam_beta_1
        self.adam_beta_2 = adam_beta_2
        self.epsilon = epsilon
        self.muon_a = muon_a
        self.muon_b = muon_b
        self.muon_c = muon_c
        self.adam_lr_ratio = adam_lr_ratio
        self.momentum = momentum
        self.ns_steps = ns_steps
        self.nesterov = nesterov
        self.exclude_embeddings = exclude_embeddings
        self.exclude_layers = exclude_layers or []
        self.adam_weight_decay = adam_weight_decay
        self.rms_rate = rms_rate

    def _should_use_adamw(self, variable):
        if len(variable.shape) != 2:
            return True
        # Like Keras, this reads the Keras path ("dense/kernel") of a layer's variable.
        if self.exclude_embeddings and "embedding" in variable.path.lower():
            return True
        return any(re.search(keyword, variable.path) for keyword in self.exclude_layers)

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self.momentums = [None] * len(var_list)
        self.adam_velocities = [None] * len(var_list)
        for variable in var_list:
            index = self._get_variable_index(variable)
            self.momentums[index] = self.add_variable_from_reference(variable, name="momentum")
            if self._should_use_adamw(variable):
                self.adam_velocities[index] = self.add_variable_from_reference(
                    variable, name="velocity"
                )

    def update_step(self, gradient, variable, learning_rate):
        index = self._get_variable_index(variable)
        m = self.momentums[index]
        v = self.adam_velocities[index]
        if v is not None:
            self._adamw_update_step(gradient, variable, learning_rate * self.adam_lr_ratio, m, v)
        else:
            self._muon_update_step(gradient, variable, learning_rate, m)

    def _muon_update_step(self, gradient, variable, lr, m):
        gradient = ops.densify(gradient)
        self.assign_add(m, gradient + m * (self.momentum - 1))
        g = gradient + self.momentum * m.value() if self.nesterov else m.value()
        update = self.zeropower_via_newtonschulz5(g, self.ns_steps)
        self.assign_sub(variable, self.lr_adjust(lr * update))

    def _adamw_update_step(self, gradient, variable, learning_rate, m, v):
        dtype = variable.dtype
        lr = array_ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        local_step = array_ops.cast(self.iterations + 1, dtype)
        beta_1_power = tf_math.pow(array_ops.cast(self.adam_beta_1, dtype), local_step)
        beta_2_power = tf_math.pow(array_ops.cast(self.adam_beta_2, dtype), local_step)
        alpha = lr * tf_math.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1 - self.adam_beta_1))
        self.assign_add(
            v, ops.multiply(ops.subtract(ops.square(gradient), v), 1 - self.adam_beta_2)
        )
        self.assign_sub(
            variable, ops.divide(ops.multiply(m, alpha), ops.add(ops.sqrt(v), self.epsilon))
        )

    def transpose_last_axis(self, x):
        return _swap_last_axes(x)

    def lr_adjust(self, x):
        if self.rms_rate is None:
            return x
        return x * math.sqrt(max(x.shape[0], x.shape[1])) * self.rms_rate

    def zeropower_via_newtonschulz5(self, x, steps):
        """``x`` pushed towards the nearest semi-orthogonal matrix by ``steps`` quintic
        Newton-Schulz iterations (on the wide orientation, normalized first)."""
        shape = x.shape
        if len(shape) < 2:
            raise ValueError(
                "Expected gradient or momentum to have at least 2 dimensions. "
                f"Received: shape={tuple(shape)}"
            )
        a, b, c = self.muon_a, self.muon_b, self.muon_c
        tall = shape[-2] > shape[-1]
        if tall:
            x = _swap_last_axes(x)
        x = x / (linalg.norm(x, ord="fro", axis=[-2, -1], keepdims=True) + 1e-7)
        for _ in range(steps):
            temp_a = linalg.matmul(x, _swap_last_axes(x))
            temp_b = b * temp_a + c * linalg.matmul(temp_a, temp_a)
            x = a * x + linalg.matmul(temp_b, x)
        if tall:
            x = _swap_last_axes(x)
        return x

    def _apply_weight_decay(self, variables):
        for variable in variables:
            if not self._use_weight_decay(variable):
                continue
            if self._should_use_adamw(variable):
                decay = self.adam_weight_decay
            else:
                decay = self.weight_decay
            if decay is None:
                continue
            wd = array_ops.cast(decay, variable.dtype)
            lr = array_ops.cast(self.learning_rate, variable.dtype)
            variable.assign(variable - variable * wd * lr)

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "adam_beta_1": self.adam_beta_1,
                "adam_beta_2": self.adam_beta_2,
                "epsilon": self.epsilon,
                "exclude_layers": self.exclude_layers,
                "muon_a": self.muon_a,
                "muon_b": self.muon_b,
                "muon_c": self.muon_c,
                "adam_lr_ratio": self.adam_lr_ratio,
                "momentum": self.momentum,
                "ns_steps": self.ns_steps,
                "nesterov": self.nesterov,
                "exclude_embeddings": self.exclude_embeddings,
                "adam_weight_decay": self.adam_weight_decay,
                "rms_rate": self.rms_rate,
            }
        )
        return config
