"""`keras.export`: `ExportArchive`, which writes layers' variables and serving endpoints into a
TensorFlow SavedModel as Keras 3's TensorFlow backend does; `Model.export` builds on it
(`export_saved_model`)."""

from ferroflow.keras.export.archive import ExportArchive
from ferroflow.keras.export.saved_model import export_saved_model

__all__ = ["ExportArchive", "export_saved_model"]
