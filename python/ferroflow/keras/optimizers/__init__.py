"""`tf.keras.optimizers`: Keras 3's optimizers (as TensorFlow 2.21 ships them) and learning-rate
schedules, updating ferroflow variables eagerly or inside a `tf.function`."""

from ferroflow.keras.optimizers import legacy, schedules
from ferroflow.keras.optimizers.adadelta import Adadelta
from ferroflow.keras.optimizers.adafactor import Adafactor
from ferroflow.keras.optimizers.adagrad import Adagrad
from ferroflow.keras.optimizers.adam import Adam
from ferroflow.keras.optimizers.adamax import Adamax
from ferroflow.keras.optimizers.adamw import AdamW
from ferroflow.keras.optimizers.ftrl import Ftrl
from ferroflow.keras.optimizers.lamb import Lamb
from ferroflow.keras.optimizers.lion import Lion
from ferroflow.keras.optimizers.loss_scale_optimizer import LossScaleOptimizer
from ferroflow.keras.optimizers.multi_optimizer import MultiOptimizer, OptimizerMap
from ferroflow.keras.optimizers.muon import Muon
from ferroflow.keras.optimizers.nadam import Nadam
from ferroflow.keras.optimizers.optimizer import Optimizer
from ferroflow.keras.optimizers.rmsprop import RMSprop
from ferroflow.keras.optimizers.schedule_free_adamw import ScheduleFreeAdamW
from ferroflow.keras.optimizers.serialization import deserialize, get, serialize
from ferroflow.keras.optimizers.sgd import SGD

__all__ = [
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Ftrl",
    "Lamb",
    "Lion",
    "LossScaleOptimizer",
    "MultiOptimizer",
    "Muon",
    "Nadam",
    "Optimizer",
    "OptimizerMap",
    "RMSprop",
    "SGD",
    "ScheduleFreeAdamW",
    "deserialize",
    "get",
    "legacy",
    "schedules",
    "serialize",
]
