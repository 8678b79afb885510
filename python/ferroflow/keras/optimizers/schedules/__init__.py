"""`tf.keras.optimizers.schedules`: learning rates as functions of the optimizer's step."""

from ferroflow.keras.optimizers.schedules.cosine_decay import CosineDecay
from ferroflow.keras.optimizers.schedules.exponential_decay import ExponentialDecay
from ferroflow.keras.optimizers.schedules.inverse_time_decay import InverseTimeDecay
from ferroflow.keras.optimizers.schedules.learning_rate_schedule import LearningRateSchedule
from ferroflow.keras.optimizers.schedules.piecewise_constant_decay import PiecewiseConstantDecay
from ferroflow.keras.optimizers.schedules.polynomial_decay import PolynomialDecay
from ferroflow.keras.optimizers.schedules.serialization import deserialize, serialize

__all__ = [
    "CosineDecay",
    "ExponentialDecay",
    "InverseTimeDecay",
    "LearningRateSchedule",
    "PiecewiseConstantDecay",
    "PolynomialDecay",
    "deserialize",
    "serialize",
]
