"""`tf.keras.optimizers.Adafactor`: factored second moments (row and column means) for
variables of rank 2 and more, a full second moment for the others."""

from ferroflow import array_ops
from ferroflow import math as tf_math
from ferroflow.keras.optimizers import _ops as ops
from ferroflow.keras.optimizers.optimizer import Optimizer
from ferroflow.variables import Variable

__all__ = ["Adafactor"]


def _rms(x):
    """``sqrt(mean(x**2))``; for IndexedSlices, as Keras's sparse mean: the squares of the
    rows as given (repeated rows not summed first) over the dense size."""
    if isinstance(x, ops.IndexedSlices):
        total = tf_math.reduce_sum(tf_math.square(x.values))
        size = tf_math.reduce_prod(array_ops.cast(x.dense_shape, total.dtype))
        return tf_math.sqrt(total / size)
    return tf_math.sqrt(tf_math.reduce_mean(tf_math.square(x)))


class Adafactor(Optimizer):
    """``beta_2_t = 1 - t**beta_2_decay``; r and c are running means of ``g**2 + epsilon_1``
    over the last and second-to-last axes, ``v = r / mean(r) x c`` (rank < 2: a running mean of
    ``g**2 + epsilon_1``); ``u = g / sqrt(v)`` clipped to RMS ``clip_threshold``, and
    ``w -= max(epsilon_2, rms(w)) * min(lr, 1/sqrt(t)) * u`` (with ``relative_step``, lr is
    itself capped at ``1/sqrt(t)``)."""

    _no_dependency_attributes = Optimizer._no_dependency_attributes | {"_r", "_c", "_v"}

    def __init__(
        self,
        learning_rate=0.001,
        beta_2_decay=-0.8,
        epsilon_1=1e-30,
        epsilon_2=1e-3,
        clip_threshold=1.0,
        relative_step=True,
        name=None,
        **kwargs,
    ):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_2_decay = beta_2_decay
        self.epsilon_1 = epsilon_1
        self.epsilon_2 = epsilon_2
        self.clip_threshold = clip_threshold
        self.relative_step = relative_step

    def _scalar_placeholder(self, variable):
        # Keras keeps an unused scalar (outside its scope) for each factor of a rank < 2
        # variable; kept so that `variables` lists the same state.
        placeholder = Variable(0, dtype="int32", name=variable.name.split(":")[0], trainable=False)
        self._track_variable(placeholder)
        return placeholder

    def build(self, var_list):
        if self.built:
            return
        super().build(var_list)
        self._r, self._c, self._v = [], [], []
        for variable in var_list:
            shape = variable.shape.as_list()
            name = variable.name.split(":")[0]
            if len(shape) < 2:
                self._r.append(self._scalar_placeholder(variable))
                self._c.append(self._scalar_placeholder(variable))
            else:
                self._r.append(self.add_variable(shape[:-1], dtype=variable.dtype, name=name))
                self._c.append(
                    self.add_variable(shape[:-2] + shape[-1:], dtype=variable.dtype, name=name)
                )
            self._v.append(self.add_variable_from_reference(variable, name="velocity"))

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = array_ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        epsilon_2 = array_ops.cast(self.epsilon_2, dtype)
        one = array_ops.cast(1.0, dtype)
        local_step = array_ops.cast(self.iterations + 1, dtype)
        if not callable(self._learning_rate) and self.relative_step:
            lr = tf_math.minimum(lr, 1 / tf_math.sqrt(local_step))
        index = self._get_variable_index(variable)
        r, c, v = self._r[index], self._c[index], self._v[index]
        rho_t = tf_math.minimum(lr, 1 / tf_math.sqrt(local_step))
        alpha_t = tf_math.maximum(epsilon_2, _rms(variable.value())) * rho_t
        regulated_grad_square = ops.add(ops.square(gradient), self.epsilon_1)
        beta_2_t = 1 - tf_math.pow(local_step, self.beta_2_decay)
        if len(variable.shape) >= 2:
            self.assign(
                r,
                beta_2_t * r + (1 - beta_2_t) * tf_math.reduce_mean(regulated_grad_square, axis=-1),
            )
            self.assign(
                c,
                beta_2_t * c + (1 - beta_2_t) * tf_math.reduce_mean(regulated_grad_square, axis=-2),
            )
            row_factor = r / tf_math.reduce_mean(r, axis=-1, keepdims=True)
            self.assign(
                v, array_ops.expand_dims(row_factor, axis=-1) * array_ops.expand_dims(c, -2)
            )
        else:
            self.assign(v, beta_2_t * v + (1 - beta_2_t) * regulated_grad_square)
        u_t = ops.divide(gradient, tf_math.sqrt(v.value()))
        u_t_hat = ops.divide(u_t, tf_math.maximum(one, _rms(u_t) / self.clip_threshold))
        self.assign_sub(variable, ops.multiply(alpha_t, u_t_hat))

    def get_config(self):
        config = super().get_config()
        config.update(
            {
                "beta_2_decay": self.beta_2_decay,
                "epsilon_1": self.epsilon_1,
                "epsilon_2": self.epsilon_2,
                "clip_threshold": self.clip_threshold,
                "relative_step": self.relative_step,
            }
        )
        return config
