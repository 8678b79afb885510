"""The ``assets/`` members of a `.keras` archive, laid out as Keras 3 lays them out: the files a
saveable writes in `save_assets(dir_path)` are stored under ``assets/<its path>/`` (the path of
its variables, ``layers/text_vectorization/_lookup_layer``), and `load_assets(dir_path)` reads
them back from a directory holding the same files. Lookup layers keep their vocabularies
there."""

import os
import tempfile

from ferroflow.keras.saving import saveable_state

__all__ = ["read_assets", "write_assets"]

PREFIX = "assets/"


def _saveables_with(model, method):
    found = []

    def visit(saveable, path):
        if callable(getattr(saveable, method, None)):
            found.append((saveable, path))

    saveable_state._walk(model, "", set(), visit)
    return found


def write_assets(model, archive):
    """Writes the assets of ``model``'s saveables into the open zip ``archive``."""
    for saveable, path in _saveables_with(model, "save_assets"):
        with tempfile.TemporaryDirectory() as directory:
            saveable.save_assets(directory)
            for root, _, files in os.walk(directory):
                for name in sorted(files):
                    full = os.path.join(root, name)
                    relative = os.path.relpath(full, directory).replace(os.sep, "/")
                    member = f"{PREFIX}{path}/{relative}" if path else f"{PREFIX}{relative}"
                    archive.write(full, member)


def read_assets(model, archive):
    """Hands each of ``model``'s saveables its assets from the open zip ``archive``."""
    names = [n for n in archive.namelist() if n.startswith(PREFIX) and not n.endswith("/")]
    for saveable, path in _saveables_with(model, "load_assets"):
        prefix = f"{PREFIX}{path}/" if path else PREFIX
        mine = [n for n in names if n.startswith(prefix) and "/" not in n[len(prefix) :]]
        with tempfile.TemporaryDirectory() as directory:
            for name in mine:
                with open(os.path.join(directory, name[len(prefix) :]), "wb") as f:
                    f.write(archive.read(name))
            saveable.load_assets(directory)
