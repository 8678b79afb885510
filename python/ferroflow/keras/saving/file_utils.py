"""Writing files so that a crash never leaves a half-written file, nor destroys the earlier one:
bytes go to a temporary name in the same directory, which is then renamed over the target; a
directory is written beside the target and swapped in. Also Keras's overwrite prompt."""

import os
import shutil
import tempfile

from ferroflow import _core

__all__ = ["ask_to_proceed_with_overwrite", "replace_directory", "write_bytes"]


def ask_to_proceed_with_overwrite(filepath):
    """Asks on the terminal whether ``filepath`` may be overwritten (Keras's prompt)."""
    answer = input(f"[WARNING] {filepath} already exists - overwrite? [y/n]").strip().lower()
    while answer not in ("y", "n"):
        answer = input('Enter "y" (overwrite) or "n" (cancel).').strip().lower()
    if answer == "n":
        return False
    print("[TIP] Next time specify overwrite=True!")
    return True


def may_write(filepath, overwrite, exists=None):
    """Whether to go on writing ``filepath``: yes unless it exists, ``overwrite`` is False and
    the user declines at the prompt."""
    exists = os.path.exists(filepath) if exists is None else exists
    return not exists or overwrite or ask_to_proceed_with_overwrite(filepath)


def make_parent_directory(filepath):
    parent = os.path.dirname(os.path.abspath(filepath))
    os.makedirs(parent, exist_ok=True)


def write_bytes(filepath, data):
    """Writes ``data`` to ``filepath`` atomically."""
    make_parent_directory(filepath)
    _core.write_file_atomic(filepath, data)


def replace_directory(target, write):
    """Calls ``write(directory)`` on a fresh directory beside ``target`` and, once it returns,
    moves the result to ``target``, replacing what was there only then."""
    target = os.path.abspath(target)
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    name = os.path.basename(target)
    staging = tempfile.mkdtemp(prefix=f".{name}.", suffix=".tmp", dir=parent)
    try:
        write(staging)
        if os.path.isdir(target) and not os.path.islink(target):
            retired = tempfile.mkdtemp(prefix=f".{name}.", suffix=".old", dir=parent)
            os.rename(target, os.path.join(retired, name))
            os.rename(staging, target)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            if os.path.lexists(target):
                os.remove(target)
            os.rename(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
