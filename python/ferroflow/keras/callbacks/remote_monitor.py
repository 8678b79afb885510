"""`tf.keras.callbacks.RemoteMonitor`: posts each epoch's logs to a server (needs the
`requests` package, as in Keras)."""

import json
import warnings

import numpy as np

from ferroflow.keras.callbacks.callback import Callback

try:
    import requests
except ImportError:
    requests = None

__all__ = ["RemoteMonitor"]


class RemoteMonitor(Callback):
    """At each epoch's end, POSTs ``{"epoch": ..., **logs}`` to ``root + path``: as JSON with
    ``send_as_json``, else as the form field ``field`` holding that JSON."""

    def __init__(
        self,
        root="http://localhost:9000",
        path="/publish/epoch/end/",
        field="data",
        headers=None,
        send_as_json=False,
    ):
        super().__init__()
        self.root = root
        self.path = path
        self.field = field
        self.headers = headers
        self.send_as_json = send_as_json

    def on_epoch_end(self, epoch, logs=None):
        if requests is None:
            raise ImportError("RemoteMonitor requires the `requests` library.")
        send = {"epoch": epoch}
        for key, value in (logs or {}).items():
            send[key] = value.item() if isinstance(value, (np.ndarray, np.generic)) else value
        try:
            if self.send_as_json:
                requests.post(self.root + self.path, json=send, headers=self.headers)
            else:
                requests.post(
                    self.root + self.path, {self.field: json.dumps(send)}, headers=self.headers
                )
        except requests.exceptions.RequestException:
            warnings.warn(f"Could not reach RemoteMonitor root server at {self.root}", stacklevel=2)
