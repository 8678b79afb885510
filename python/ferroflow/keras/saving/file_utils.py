"""Writing files so that a crash never leaves a half-written file, nor destroys the earlier one:
bytes go to a temporary name in the same directory, which is then renamed over the target; a
directory is written beside the target and swapped in. Also Keras's overwrite prompt."""

import contextlib
import os
import secrets
import shutil
import tempfile

__all__ = [
    "ask_to_proceed_with_overwrite",
    "atomic_path",
    "copy_file",
    "replace_directory",
    "write_bytes",
]


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


def _sync(path):
    """Flushes ``path`` (a file or a directory) to disk; a filesystem that refuses to sync a
    directory only weakens durability after a power loss, never atomicity."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        if not os.path.isdir(path):
            raise
    finally:
        os.close(descriptor)


def _fresh_file(parent, name):
    """Creates an empty file named after ``name`` in ``parent`` with the permissions an
    ordinary ``open(..., "w")`` gives (``tempfile.mkstemp`` would make it private)."""
    for _ in range(100):
        temporary = os.path.join(parent, f".{name}.{secrets.token_hex(6)}.tmp")
        try:
            os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        return temporary
    raise FileExistsError(f"Could not create a temporary file beside {name} in {parent}")


@contextlib.contextmanager
def atomic_path(filepath):
    """Yields a fresh temporary path in ``filepath``'s directory for the caller to write (by
    name, as h5py does); once the block returns, the file is synced and renamed over
    ``filepath``. If the block raises, the temporary file is removed and ``filepath`` is left
    as it was."""
    target = os.path.abspath(os.fspath(filepath))
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    temporary = _fresh_file(parent, os.path.basename(target))
    try:
        yield temporary
        _sync(temporary)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise
    _sync(parent)


def write_bytes(filepath, data):
    """Writes ``data`` to ``filepath`` atomically."""
    with atomic_path(filepath) as temporary, open(temporary, "wb") as f:
        f.write(data)


def copy_file(source, destination):
    """Copies ``source`` to ``destination`` atomically."""
    with atomic_path(destination) as temporary:
        shutil.copyfile(source, temporary)


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
