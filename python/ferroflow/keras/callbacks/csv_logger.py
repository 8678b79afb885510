"""`tf.keras.callbacks.CSVLogger`."""

import collections
import collections.abc
import csv
import os

import numpy as np

from ferroflow.keras.callbacks.callback import Callback

__all__ = ["CSVLogger"]


def _csv_value(value):
    if isinstance(value, str):
        return value
    if isinstance(value, collections.abc.Iterable) and not (
        isinstance(value, np.ndarray) and value.ndim == 0
    ):
        return f'"[{", ".join(map(str, value))}]"'
    return value


class CSVLogger(Callback):
    """Writes each epoch's logs to a CSV file: a header ``epoch,<sorted log keys>`` (with
    ``val_`` columns even before validation has run), then a row per epoch.

    Args:
        filename: The CSV file.
        separator: The field separator.
        append: Whether to append to an existing file (its header is kept).
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        mode = "w"
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode, newline="")  # noqa: SIM115 - closed at the end
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs.keys())
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys.extend([f"val_{k}" for k in self.keys])
        if not self.writer:

            class Dialect(csv.excel):
                delimiter = self.sep

            self.writer = csv.DictWriter(
                self.csv_file, fieldnames=["epoch"] + (self.keys or []), dialect=Dialect
            )
            if self.append_header:
                self.writer.writeheader()
        row = collections.OrderedDict({"epoch": epoch})
        row.update((key, _csv_value(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None
