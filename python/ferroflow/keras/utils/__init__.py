"""`tf.keras.utils`: the progress bar, seeding, one-hot targets, data packing helpers,
`clear_session`, `PyDataset`, sequence padding, time-series windows, `get_file`, image
arrays and small helpers (`normalize`, `Config`, `standardize_dtype`...)."""

from ferroflow.keras.backend import clear_session
from ferroflow.keras.layers.preprocessing.feature_space import FeatureSpace
from ferroflow.keras.saving import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)
from ferroflow.keras.utils import bounding_boxes, legacy
from ferroflow.keras.utils.audio_dataset_utils import audio_dataset_from_directory
from ferroflow.keras.utils.config import Config
from ferroflow.keras.utils.data_utils import pack_x_y_sample_weight, unpack_x_y_sample_weight
from ferroflow.keras.utils.dataset_utils import split_dataset
from ferroflow.keras.utils.file_utils import get_file
from ferroflow.keras.utils.general_utils import (
    disable_interactive_logging,
    enable_interactive_logging,
    get_source_inputs,
    is_interactive_logging_enabled,
    is_keras_tensor,
    normalize,
    standardize_dtype,
)
from ferroflow.keras.utils.image_dataset_utils import image_dataset_from_directory
from ferroflow.keras.utils.image_utils import array_to_img, img_to_array, load_img, save_img
from ferroflow.keras.utils.model_visualization import model_to_dot, plot_model
from ferroflow.keras.utils.numerical_utils import to_categorical
from ferroflow.keras.utils.progbar import Progbar
from ferroflow.keras.utils.py_dataset import PyDataset, Sequence
from ferroflow.keras.utils.rng_utils import set_random_seed
from ferroflow.keras.utils.sequence_utils import pad_sequences
from ferroflow.keras.utils.text_dataset_utils import text_dataset_from_directory
from ferroflow.keras.utils.timeseries_dataset_utils import timeseries_dataset_from_array

__all__ = [
    "Config",
    "CustomObjectScope",
    "FeatureSpace",
    "Progbar",
    "PyDataset",
    "Sequence",
    "array_to_img",
    "bounding_boxes",
    "audio_dataset_from_directory",
    "clear_session",
    "custom_object_scope",
    "deserialize_keras_object",
    "disable_interactive_logging",
    "enable_interactive_logging",
    "get_custom_objects",
    "get_file",
    "get_registered_name",
    "get_registered_object",
    "get_source_inputs",
    "image_dataset_from_directory",
    "img_to_array",
    "is_interactive_logging_enabled",
    "is_keras_tensor",
    "legacy",
    "load_img",
    "model_to_dot",
    "normalize",
    "pack_x_y_sample_weight",
    "pad_sequences",
    "plot_model",
    "register_keras_serializable",
    "save_img",
    "serialize_keras_object",
    "set_random_seed",
    "split_dataset",
    "standardize_dtype",
    "text_dataset_from_directory",
    "timeseries_dataset_from_array",
    "to_categorical",
    "unpack_x_y_sample_weight",
]
