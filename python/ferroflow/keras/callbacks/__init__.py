"""`tf.keras.callbacks`: hooks into `fit`, `evaluate` and `predict`."""

from ferroflow.keras.callbacks.backup_and_restore import BackupAndRestore
from ferroflow.keras.callbacks.callback import Callback
from ferroflow.keras.callbacks.callback_list import CallbackList
from ferroflow.keras.callbacks.csv_logger import CSVLogger
from ferroflow.keras.callbacks.early_stopping import EarlyStopping
from ferroflow.keras.callbacks.history import History
from ferroflow.keras.callbacks.lambda_callback import LambdaCallback
from ferroflow.keras.callbacks.learning_rate_scheduler import LearningRateScheduler
from ferroflow.keras.callbacks.model_checkpoint import ModelCheckpoint
from ferroflow.keras.callbacks.orbax_checkpoint import OrbaxCheckpoint
from ferroflow.keras.callbacks.progbar_logger import ProgbarLogger
from ferroflow.keras.callbacks.reduce_lr_on_plateau import ReduceLROnPlateau
from ferroflow.keras.callbacks.remote_monitor import RemoteMonitor
from ferroflow.keras.callbacks.swap_ema_weights import SwapEMAWeights
from ferroflow.keras.callbacks.tensorboard import TensorBoard
from ferroflow.keras.callbacks.terminate_on_nan import TerminateOnNaN

__all__ = [
    "BackupAndRestore",
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "ModelCheckpoint",
    "OrbaxCheckpoint",
    "ProgbarLogger",
    "ReduceLROnPlateau",
    "RemoteMonitor",
    "SwapEMAWeights",
    "TensorBoard",
    "TerminateOnNaN",
]
