"""`tf.io.gfile`: TensorFlow's file API over the local file system (plain paths and ``file://``
URIs) and TensorFlow's in-memory ``ram://`` file system (`_ram_filesystem.py`); other schemes
raise `UnimplementedError` as TensorFlow does without their plugin.

Errors are TensorFlow's: an OS error becomes the `tf.errors` class of its errno with the
message ``"<path>; <reason>"`` (`NotFoundError` for a missing file).

>>> import ferroflow as tf
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "x.txt")
>>> with tf.io.gfile.GFile(path, "w") as f:
...     f.write("one\\ntwo\\n")
>>> tf.io.gfile.GFile(path).readlines()
['one\\n', 'two\\n']
"""

import os
import shutil

from ferroflow import errors
from ferroflow.io import _filesystem as _fs
from ferroflow.io import _ram_filesystem as _ram

__all__ = [
    "GFile",
    "copy",
    "exists",
    "get_registered_schemes",
    "glob",
    "isdir",
    "join",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]

_MODES = ("r", "w", "a", "r+", "w+", "a+")
_READ_BUFFER = 512 * 1024


def _as_bytes(value, encoding):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


class _Reader:
    """TensorFlow's `BufferedInputStream`: reads through a buffer that is refilled on demand
    (an end of file met once is not remembered, so data written since is read)."""

    def __init__(self, path):
        try:
            if os.path.isdir(path):
                raise IsADirectoryError(21, os.strerror(21))
            self._file = open(path, "rb", buffering=0)  # noqa: SIM115 - closed by GFile.close
        except OSError as e:
            raise _fs.os_error(e, path) from None
        self._buffer = b""
        self._start = 0  # the file offset of the buffer's first byte
        self._pos = 0  # the read position within the buffer

    def _refill(self):
        """Moves the buffer past what was read; False at the end of the file."""
        self._start += self._pos
        self._pos = 0
        self._file.seek(self._start)
        self._buffer = self._file.read(_READ_BUFFER)
        return bool(self._buffer)

    def tell(self):
        return self._start + self._pos

    def read(self, n):
        if n < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Can't read a negative number of bytes: {n}"
            )
        parts = []
        while n > 0:
            if self._pos >= len(self._buffer) and not self._refill():
                break
            piece = self._buffer[self._pos : self._pos + n]
            self._pos += len(piece)
            n -= len(piece)
            parts.append(piece)
        return b"".join(parts)

    def readline(self):
        parts = []
        while True:
            if self._pos >= len(self._buffer) and not self._refill():
                break
            end = self._buffer.find(b"\n", self._pos)
            if end >= 0:
                parts.append(self._buffer[self._pos : end + 1])
                self._pos = end + 1
                break
            parts.append(self._buffer[self._pos :])
            self._pos = len(self._buffer)
        # TensorFlow's `ReadLineHelper` drops every carriage return of the line.
        return b"".join(parts).replace(b"\r", b"")

    def seek(self, offset):
        if offset < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Seeking to a negative position: {offset}"
            )
        size = os.fstat(self._file.fileno()).st_size
        if offset > size:
            # TensorFlow moves to the end before reporting it.
            self._start, self._buffer, self._pos = size, b"", 0
            raise errors.OutOfRangeError(None, None, "reached end of file")
        if self._start <= offset <= self._start + len(self._buffer):
            self._pos = offset - self._start
        else:
            self._start, self._buffer, self._pos = offset, b"", 0

    def close(self):
        self._file.close()


class GFile:
    """A file of the local file system (TensorFlow's `FileIO`): ``mode`` is one of r, w, a, r+,
    w+, a+, with ``b`` for bytes (reads return str otherwise, decoded as UTF-8).
    The file is opened at the first read or write, not by the constructor; ``"w"`` and ``"r+"``
    truncate it then, ``"a"`` and ``"a+"`` append. Iterating gives the lines."""

    def __init__(self, name, mode="r"):
        self.__name = name
        self.__mode = mode
        self.__encoding = "utf-8"
        self._read_buf = None
        self._writable_file = None
        self._binary_mode = "b" in mode
        mode = mode.replace("b", "")
        if mode not in _MODES:
            raise errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'"
            )
        self._read_check_passed = mode in ("r", "r+", "a+", "w+")
        self._write_check_passed = mode in ("a", "w", "r+", "a+", "w+")

    @property
    def name(self):
        """The file name."""
        return self.__name

    @property
    def mode(self):
        """The mode the file was opened with."""
        return self.__mode

    def _text_name(self):
        if not isinstance(self.__name, (str, bytes, bytearray, os.PathLike)):
            raise TypeError(f"GFile expects a path, got {self.__name!r}")
        return _fs.as_name(self.__name)

    def _preread_check(self):
        if not self._read_buf:
            if not self._read_check_passed:
                raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
            self._read_buf = _Reader(_fs.readable_path(self._text_name()))

    def _prewrite_check(self):
        if not self._writable_file:
            if not self._write_check_passed:
                raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
            name = self._text_name()
            path = _fs.writable_path(name)
            # A ram:// file is appended to in every mode, as TensorFlow's are.
            append = "a" in self.__mode or _ram.owns(name)
            try:
                self._writable_file = open(path, "ab" if append else "wb")  # noqa: SIM115
            except OSError as e:
                raise _fs.os_error(e, path) from None

    def _prepare_value(self, value):
        return value if self._binary_mode else value.decode(self.__encoding)

    def size(self):
        """The size of the file in bytes (what is on disk: unflushed writes are not counted)."""
        return stat(self.__name).length

    def write(self, file_content):
        """Appends ``file_content`` (str or bytes) to the file."""
        data = _as_bytes(file_content, self.__encoding)
        self._prewrite_check()
        self._writable_file.write(data)

    def read(self, n=-1):
        """``n`` bytes from the current position (all the rest when ``n`` is -1), as bytes in
        bytes mode, else decoded."""
        self._preread_check()
        length = self.size() - self.tell() if n == -1 else n
        return self._prepare_value(self._read_buf.read(length))

    def seek(self, offset=None, whence=0, position=None):
        """Moves the read position to ``offset`` from the start (``whence`` 0), the current
        position (1) or the end (2)."""
        self._preread_check()
        if offset is None and position is None:
            raise TypeError("seek(): offset argument required")
        if offset is not None and position is not None:
            raise TypeError("seek(): offset and position may not be set simultaneously.")
        if position is not None:
            offset = position
        if whence == 1:
            offset += self.tell()
        elif whence == 2:
            offset += self.size()
        elif whence != 0:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid whence argument: {whence}. Valid values are 0, 1, or 2."
            )
        self._read_buf.seek(offset)

    def readline(self):
        r"""The next line, with its ``\n`` (carriage returns left out, as TensorFlow's reader
        does); ``''`` at the end of the file."""
        self._preread_check()
        return self._prepare_value(self._read_buf.readline())

    def readlines(self):
        """All the remaining lines, as a list."""
        self._preread_check()
        lines = []
        while True:
            line = self.readline()
            if not line:
                return lines
            lines.append(line)

    def tell(self):
        """The current position in the file."""
        if self._read_check_passed:
            self._preread_check()
            return self._read_buf.tell()
        self._prewrite_check()
        if _ram.owns(self._text_name()):
            raise errors.UnimplementedError(None, None, "This filesystem does not support Tell()")
        return self._writable_file.tell()

    def __enter__(self):
        return self

    def __exit__(self, unused_type, unused_value, unused_traceback):
        self.close()

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration()
        return line

    next = __next__

    def flush(self):
        """Pushes the written data out of the process."""
        if self._writable_file:
            self._writable_file.flush()

    def close(self):
        """Closes the file (flushing what was written); a later read opens it again."""
        if self._read_buf:
            self._read_buf.close()
        self._read_buf = None
        if self._writable_file:
            self._writable_file.close()
            self._writable_file = None

    def seekable(self):
        """True: seek and tell are supported."""
        return True


class FileStatistics:
    """What `stat` returns: ``length`` in bytes, ``mtime_nsec`` (whole seconds, in
    nanoseconds, as TensorFlow's POSIX file system reports it) and ``is_directory``."""

    def __init__(self, length, mtime_nsec, is_directory):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory


def _local(path):
    return _fs.local_path(_fs.as_name(path))


def exists(path):
    """Whether ``path`` (a file or a directory) exists."""
    return _fs.exists(_fs.as_name(path))


def isdir(path):
    """Whether ``path`` is a directory (False on any error)."""
    return _fs.is_directory(_fs.as_name(path))


def listdir(path):
    """The names of the entries of the directory ``path`` (listing order; ``.`` and ``..``
    left out)."""
    name = _fs.as_name(path)
    if not _fs.is_directory(name):
        raise errors.NotFoundError(None, None, f"Could not find directory {name}")
    if _ram.owns(name):
        return _ram.children(name)
    local = _fs.local_path(name)
    try:
        return os.listdir(local)
    except OSError as e:
        raise _fs.os_error(e, local) from None


def glob(pattern):
    """The paths matching ``pattern`` (``*``, ``?``, ``[...]`` within one path component), or
    matching any pattern of a list of them."""
    if isinstance(pattern, (str, bytes)):
        return _fs.get_matching_paths(_fs.as_name(pattern))
    return [m for p in pattern for m in _fs.get_matching_paths(_fs.as_name(p))]


def mkdir(path):
    """Creates the directory ``path`` (its parent must exist; an existing ``path`` is fine)."""
    if _ram.owns(_fs.as_name(path)):
        try:
            _ram.create_dir(_fs.as_name(path))
        except errors.AlreadyExistsError:
            pass  # TensorFlow's Python binding ignores AlreadyExists
        return
    local = _local(path)
    try:
        os.mkdir(local)
    except FileExistsError:
        pass  # TensorFlow's Python binding ignores AlreadyExists
    except OSError as e:
        raise _fs.os_error(e, local) from None


def makedirs(path):
    """Creates the directory ``path`` and its missing parents."""
    if _ram.owns(_fs.as_name(path)):
        _ram.recursively_create_dir(_fs.as_name(path))
        return
    local = _local(path)
    parts = []
    current = local
    while current and not os.path.exists(current):
        parts.append(current)
        parent = os.path.dirname(current.rstrip("/")) if current.rstrip("/") else ""
        if parent == current:
            break
        current = parent
    if current and os.path.exists(current) and not os.path.isdir(current):
        raise errors.FailedPreconditionError(None, None, f"{current} is not a directory")
    for p in reversed(parts):
        try:
            os.mkdir(p)
        except FileExistsError:
            pass
        except OSError as e:
            raise _fs.os_error(e, p) from None


def remove(path):
    """Deletes the file ``path``."""
    if _ram.owns(_fs.as_name(path)):
        _ram.delete_file(_fs.as_name(path))
        return
    local = _local(path)
    try:
        os.unlink(local)
    except OSError as e:
        raise _fs.os_error(e, local) from None


def rmtree(path):
    """Deletes ``path`` and everything under it (a file is deleted too)."""
    if _ram.owns(_fs.as_name(path)):
        _ram.delete_recursively(_fs.as_name(path))
        return
    local = _local(path)
    if not os.path.lexists(local):
        raise errors.NotFoundError(None, None, f"{local} not found")
    try:
        if os.path.isdir(local) and not os.path.islink(local):
            shutil.rmtree(local)
        else:
            os.unlink(local)
    except OSError as e:
        raise _fs.os_error(e, e.filename or local) from None


def _check_overwrite(dst, overwrite):
    if not overwrite and _fs.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")


def copy(src, dst, overwrite=False):
    """Copies the file ``src`` to ``dst`` (AlreadyExistsError when ``dst`` exists unless
    ``overwrite``)."""
    src, dst = _fs.as_name(src), _fs.as_name(dst)
    _check_overwrite(dst, overwrite)
    if _ram.owns(src) or _ram.owns(dst):
        _copy_through(src, dst)
        return
    source, target = _fs.local_path(src), _fs.local_path(dst)
    try:
        with open(source, "rb") as f:
            with open(target, "wb") as g:
                if os.path.isdir(source):
                    # TensorFlow opens both and then fails to copy a directory's bytes.
                    raise errors.InvalidArgumentError(None, None, f"{target}; Invalid argument")
                shutil.copyfileobj(f, g)
    except OSError as e:
        raise _fs.os_error(e, e.filename if e.filename is not None else source) from None


def _copy_through(src, dst):
    """tsl's `FileSystemCopyFile`, the copy of a file system without its own: ``src`` opened,
    then ``dst`` opened for writing (a ram:// one is appended to; a directory gets the file
    named by ``src``'s basename, which a ``ram://name`` has none of), then the bytes copied."""
    source = _fs.readable_path(src)
    try:
        with open(source, "rb") as f:
            if _fs.is_directory(dst):
                dst = _fs.join_path(dst, _fs.basename(src))
            target = _fs.writable_path(dst)
            if os.path.isdir(target):
                raise IsADirectoryError(21, os.strerror(21), target)
            with open(target, "ab" if _ram.owns(dst) else "wb") as g:
                shutil.copyfileobj(f, g)
    except OSError as e:
        raise _fs.os_error(e, e.filename if e.filename is not None else source) from None


def rename(src, dst, overwrite=False):
    """Renames (moves) ``src`` to ``dst`` (AlreadyExistsError when ``dst`` exists unless
    ``overwrite``)."""
    src, dst = _fs.as_name(src), _fs.as_name(dst)
    _check_overwrite(dst, overwrite)
    if _ram.owns(src) != _ram.owns(dst):
        raise errors.UnimplementedError(None, None, f"Renaming {src} to {dst} not implemented")
    if _ram.owns(src):
        _ram.rename(src, dst)
        return
    source, target = _fs.local_path(src), _fs.local_path(dst)
    try:
        os.rename(source, target)
    except OSError as e:
        raise _fs.os_error(e, source) from None


def stat(path):
    """The `FileStatistics` of ``path`` (a ram:// one has no modification time: 0)."""
    if _ram.owns(_fs.as_name(path)):
        is_directory, length = _ram.stat(_fs.as_name(path))
        return FileStatistics(length, 0, is_directory)
    local = _local(path)
    try:
        info = os.stat(local)
    except OSError as e:
        raise _fs.os_error(e, local) from None
    return FileStatistics(info.st_size, int(info.st_mtime) * 1_000_000_000, os.path.isdir(local))


def join(path, *paths):
    """``path`` and ``paths`` joined with '/' (URL rules for ``scheme://`` paths)."""
    import posixpath

    name = _fs.as_name(path)
    if "://" in name[1:]:
        return posixpath.join(path, *paths)
    return os.path.join(path, *paths)


def walk(top, topdown=True, onerror=None):
    """``(dirname, subdirs, files)`` for ``top`` and each directory under it, parents first
    (last with ``topdown=False``). A missing ``top`` yields nothing, or calls ``onerror``."""
    top = _fs.as_name(top)
    try:
        listing = listdir(top)
    except errors.NotFoundError as err:
        if not onerror:
            return
        onerror(err)
        # TensorFlow's walk goes on to read the listing it does not have.
        raise UnboundLocalError(
            "cannot access local variable 'listing' where it is not associated with a value"
        ) from None
    files, subdirs = [], []
    for item in listing:
        full = join(join(top, ""), item) if item[:1] == os.sep else join(top, item)
        (subdirs if isdir(full) else files).append(item)
    here = (top, subdirs, files)
    if topdown:
        yield here
    for subdir in subdirs:
        full = join(join(top, ""), subdir) if subdir[:1] == os.sep else join(top, subdir)
        yield from walk(full, topdown, onerror=onerror)
    if not topdown:
        yield here


def get_registered_schemes():
    """The URI schemes `tf.io.gfile` understands: ``''`` (plain paths), ``'file'`` and
    ``'ram'``."""
    return ["ram", "file", ""]
