"""`tf.keras.optimizers`: Keras 3's optimizers (as TensorFlow 2.21 ships them) and learning-rate
schedules, updating ferroflow variables eagerly or inside a `tf.function`."""

from ferroflow.keras.optimizers import schedules
from ferroflow.keras.optimizers.adagrad import Adagrad
from ferroflow.keras.optimizers.adam import Adam
from ferroflow.keras.optimizers.adamw import AdamW
from ferroflow.keras.optimizers.optimizer import Optimizer
from ferroflow.keras.optimizers.rmsprop import RMSprop
from ferroflow.keras.optimizers.serialization import deserialize, get, serialize
from ferroflow.keras.optimizers.sgd import SGD

__all__ = [
    "SGD",
    "Adagrad",
    "Adam",
    "AdamW",
    "Optimizer",
    "RMSprop",
    "deserialize",
    "get",
    "schedules",
    "serialize",
]
