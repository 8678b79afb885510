"""`Model.export`'s choice of format: Keras 3's formats, of which ferroflow writes the
TensorFlow SavedModel; the others raise an error naming the format once Keras's own checks of
the arguments have passed."""

import os

from ferroflow.keras.export.input_signature import get_input_signature
from ferroflow.keras.export.saved_model import export_saved_model

__all__ = ["AVAILABLE_FORMATS", "export_model"]

AVAILABLE_FORMATS = ("tf_saved_model", "onnx", "openvino", "litert", "torch")


def export_model(model, filepath, format, verbose, input_signature, **kwargs):
    """Exports ``model`` to ``filepath`` in ``format`` (one of `AVAILABLE_FORMATS`)."""
    if format not in AVAILABLE_FORMATS:
        raise ValueError(
            f"Unrecognized format={format}. Supported formats are: {list(AVAILABLE_FORMATS)}."
        )
    if format == "torch":
        raise ValueError("Torch export requires PyTorch backend.")
    if format == "tf_saved_model":
        export_saved_model(model, filepath, verbose, input_signature=input_signature, **kwargs)
        return
    _check_like_keras(model, filepath, format, input_signature)
    raise NotImplementedError(
        f"Model.export(format={format!r}) is not supported by ferroflow's Keras yet; it "
        "exports format='tf_saved_model' (a TensorFlow SavedModel)."
    )


def _check_like_keras(model, filepath, format, input_signature):
    """The argument checks Keras's exporter for ``format`` makes before converting."""
    if format == "openvino" and not os.fspath(filepath).endswith(".xml"):
        raise ValueError(
            "The OpenVINO export requires the filepath to end with '.xml'. "
            f"Got: filepath={filepath}"
        )
    if format == "litert" and not str(filepath).endswith(".tflite"):
        raise ValueError(
            f"The LiteRT export requires the filepath to end with '.tflite'. Got: {filepath}"
        )
    if format == "onnx" and input_signature is None:
        get_input_signature(model)  # Keras's errors for an unbuilt or never called model
