"""`tf.keras.preprocessing`: Keras 3's legacy preprocessing namespace (image, sequence and
text helpers, and the dataset builders of `keras.utils`)."""

from ferroflow.keras.preprocessing import image, sequence, text
from ferroflow.keras.utils.image_dataset_utils import image_dataset_from_directory
from ferroflow.keras.utils.text_dataset_utils import text_dataset_from_directory
from ferroflow.keras.utils.timeseries_dataset_utils import timeseries_dataset_from_array

__all__ = [
    "image",
    "image_dataset_from_directory",
    "sequence",
    "text",
    "text_dataset_from_directory",
    "timeseries_dataset_from_array",
]
