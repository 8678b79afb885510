"""TensorFlow's results recorded on one machine and replayed on another.

The device machines lent for GPU runs have no TensorFlow (and it is too large to carry there),
so the differential tests would all skip on the only real GPUs we can reach. With
`FERROFLOW_TF_RECORD=<dir>` the oracle stores each program's TensorFlow result under a key made
of the request's content; with `FERROFLOW_TF_REPLAY=<dir>` the tests read those results instead
of starting TensorFlow, and a program with no recorded result (arguments drawn at random, a
program changed since) skips. Nothing here runs in CI.

The key hashes what defines the program's TensorFlow result (source texts, entry, arguments),
not file names or line numbers, which differ between checkouts, nor pickle bytes, which differ
between numpy versions.
"""

import hashlib
import os
import pickle
from pathlib import Path

import numpy as np
import pytest


def _feed(digest, item):
    """Feeds a canonical form of `item` to the hash."""
    if isinstance(item, np.ndarray):
        digest.update(f"nd{item.dtype.str}{item.shape}".encode())
        if item.dtype.kind == "O":
            for element in item.ravel():
                _feed(digest, element)
        else:
            digest.update(np.ascontiguousarray(item).tobytes())
    elif isinstance(item, np.generic):
        _feed(digest, np.asarray(item))
    elif isinstance(item, dict):
        digest.update(f"dict{len(item)}".encode())
        for key, value in item.items():
            _feed(digest, key)
            _feed(digest, value)
    elif isinstance(item, (list, tuple)):
        digest.update(f"{type(item).__name__}{len(item)}".encode())
        for element in item:
            _feed(digest, element)
    elif isinstance(item, (str, bytes, int, float, complex, bool, type(None))):
        digest.update(f"{type(item).__name__}:{item!r};".encode())
    else:
        digest.update(f"{type(item).__qualname__}:{item!r};".encode())


def request_key(request):
    """The content hash of a parity request (hex)."""
    digest = hashlib.sha256()
    _feed(digest, [source for source, _, _ in request["sources"]])
    _feed(digest, request["entry"])
    _feed(digest, request["args"])
    _feed(digest, request["kwargs"])
    return digest.hexdigest()


def record_directory():
    named = os.environ.get("FERROFLOW_TF_RECORD")
    return Path(named) if named else None


def recording_only():
    """FERROFLOW_TF_RECORD_ONLY=1: a recording run that skips ferroflow's side (on lavapipe it
    is most of the time, and the recording needs only TensorFlow's)."""
    return record_directory() is not None and os.environ.get("FERROFLOW_TF_RECORD_ONLY") == "1"


def replay_directory():
    named = os.environ.get("FERROFLOW_TF_REPLAY")
    return Path(named) if named else None


def recorded_result(request):
    """A recording run's earlier result for `request`, so that a resumed recording does not
    run TensorFlow again; None when not recording or not yet recorded."""
    directory = record_directory()
    path = None if directory is None else directory / request_key(request)
    if path is None or not path.exists():
        return None
    return pickle.loads(path.read_bytes())


def store(directory, request, result, version):
    """Writes one result (atomically: several pytest workers record at once)."""
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / request_key(request)
    temporary = target.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_bytes(pickle.dumps(result, protocol=4))
    os.replace(temporary, target)
    (directory / "VERSION").write_text(version or "unknown")


class ReplayedOracle:
    """Stands in for the TensorFlow worker, answering from recorded results."""

    def __init__(self, directory):
        self.directory = Path(directory)
        version_file = self.directory / "VERSION"
        self.version = (
            f"{version_file.read_text()} (recorded)" if version_file.exists() else "recorded"
        )

    def run(self, request, timeout=None):
        path = self.directory / request_key(request)
        if not path.exists():
            pytest.skip("no recorded TensorFlow result for this program (FERROFLOW_TF_REPLAY)")
        return pickle.loads(path.read_bytes())

    def close(self):
        pass
