"""`Model.export(format="tf_saved_model")`: the model's forward pass as one endpoint,
``serve`` (also the ``serving_default`` signature), in a SavedModel that reloads with
`tf.saved_model.load` without the code that built the model."""

from ferroflow.keras.export.archive import ExportArchive
from ferroflow.keras.export.input_signature import get_input_signature

__all__ = ["DEFAULT_ENDPOINT_NAME", "export_saved_model"]

DEFAULT_ENDPOINT_NAME = "serve"


def export_saved_model(model, filepath, verbose=None, input_signature=None, **kwargs):
    """Writes ``model``'s ``__call__`` to ``filepath`` as the endpoint ``serve``, traced for
    ``input_signature`` (by default the model's inputs with any batch size)."""
    if verbose is None:
        verbose = True
    archive = ExportArchive()
    if input_signature is None:
        input_signature = get_input_signature(model)
    archive.track_and_add_endpoint(DEFAULT_ENDPOINT_NAME, model, input_signature, **kwargs)
    archive.write_out(filepath, verbose=verbose)
