"""The file system under `tf.io.gfile`, `tf.io.read_file` and the file datasets: local paths and
``file://`` URIs, with TensorFlow's errors (an OS error becomes the `tf.errors` class its errno
maps to, with TensorFlow's ``"<path>; <strerror>"`` message) and TensorFlow's glob, and
TensorFlow's in-memory ``ram://`` (`_ram_filesystem.py`), whose names `local_path` maps onto a
private directory.

Other URI schemes (``gs://``, ``s3://``...) have no file system here: they raise
`UnimplementedError` as TensorFlow does for a scheme without a registered plugin.
"""

import errno as _errno
import os
import re

from ferroflow import errors
from ferroflow.io import _ram_filesystem as _ram

__all__ = [
    "ERRNO_CLASSES",
    "as_name",
    "basename",
    "dirname",
    "exists",
    "fnmatch_components",
    "fnmatch_regex",
    "get_matching_paths",
    "host_path",
    "is_directory",
    "join_path",
    "local_path",
    "os_error",
    "read_bytes",
    "readable_path",
    "shown",
    "split_scheme",
    "writable_path",
]

# TensorFlow's `ErrnoToCode` (tsl/platform/errors.cc), for the errnos a file system meets.
_ERRNO_NAMES = {
    errors.InvalidArgumentError: "EINVAL ENAMETOOLONG E2BIG EFAULT ENOTTY ESPIPE EILSEQ",
    errors.NotFoundError: "ENOENT ENODEV ENXIO ESRCH",
    errors.AlreadyExistsError: "EEXIST EALREADY",
    errors.PermissionDeniedError: "EPERM EACCES EROFS",
    errors.FailedPreconditionError: "ENOTEMPTY EPIPE ENOTDIR EISDIR EBUSY ETXTBSY EBADF",
    errors.ResourceExhaustedError: "ENOSPC EMFILE ENFILE ENOBUFS ENOMEM EMLINK EDQUOT",
    errors.OutOfRangeError: "EFBIG EOVERFLOW ERANGE",
    errors.UnimplementedError: "ENOSYS ENOTSUP EXDEV",
    errors.UnavailableError: "EAGAIN EINTR EIO",
    errors.CancelledError: "ECANCELED",
}
ERRNO_CLASSES = {
    getattr(_errno, name): cls
    for cls, names in _ERRNO_NAMES.items()
    for name in names.split()
    if hasattr(_errno, name)
}

_SCHEME = re.compile(r"^([a-zA-Z][0-9a-zA-Z.]*)://")


def as_name(path):
    """A path argument (str, bytes or `os.PathLike`) as a str, as TensorFlow's `compat` takes
    it; anything else is TypeError."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if isinstance(path, (bytes, bytearray)):
        return bytes(path).decode("utf-8", "surrogateescape")
    if isinstance(path, str):
        return path
    raise TypeError(f"Expected binary or unicode string, got {path!r}")


def split_scheme(name):
    """``(scheme, rest)``: TensorFlow's `ParseURI` split of ``scheme://rest`` (``("", name)``
    for a plain path)."""
    m = _SCHEME.match(name)
    if m is None:
        return "", name
    return m.group(1), name[m.end() :]


def local_path(name):
    """The local path ``name`` names (a plain path, the path part of a ``file://`` URI, or
    where a ``ram://`` name is kept); other schemes raise TensorFlow's UnimplementedError."""
    scheme, rest = split_scheme(name)
    if scheme == "":
        return name
    if scheme == "ram":
        return _ram.local(_ram.key(name))
    if scheme == "file":
        # file://host/path: the host is ignored, as TensorFlow's local file system does.
        slash = rest.find("/")
        return "" if slash < 0 else rest[slash:]
    raise errors.UnimplementedError(
        None, None, f"File system scheme '{scheme}' not implemented (file: '{name}')"
    )


def os_error(error, path):
    """TensorFlow's error for an `OSError` met on ``path`` (named by its ``ram://`` name when it
    is one's)."""
    if isinstance(path, str):
        path = _ram.name_of(path) or path
    code = error.errno
    cls = ERRNO_CLASSES.get(code, errors.UnknownError)
    reason = os.strerror(code) if code is not None else str(error)
    return cls(None, None, f"{path}; {reason}")


def exists(name):
    """Whether ``name`` exists (False for a missing path; other errors raise)."""
    if _ram.owns(name):
        try:
            _ram.stat(name)
        except errors.NotFoundError:
            return False
        return True
    path = local_path(name)
    return path != "" and os.path.exists(path)


def is_directory(name):
    """Whether ``name`` is a directory; False on any error, as `tf.io.gfile.isdir`."""
    try:
        if _ram.owns(name):
            return _ram.stat(name)[0]
        return os.path.isdir(local_path(name))
    except errors.OpError:
        return False


def read_bytes(name):
    """The whole content of the file ``name`` (TensorFlow's errors for a missing file or a
    directory)."""
    path = readable_path(name)
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise os_error(e, path) from None


def host_path(path):
    """``path`` as the operating system names it: where a ``ram://`` name is kept, any other
    path unchanged (for code that works on local files through `os` or Rust)."""
    if isinstance(path, str) and _ram.owns(path):
        return _ram.local(_ram.key(path))
    return path


def shown(text):
    """``text`` (a message naming local paths) with ``ram://`` files named as such."""
    return _ram.shown(text)


def readable_path(name):
    """The local path to read the file ``name`` from; a ``ram://`` name is checked first, with
    TensorFlow's errors for a missing file or a directory."""
    return _ram.open_read(name) if _ram.owns(name) else local_path(name)


def writable_path(name):
    """The local path to write the file ``name`` to; a ``ram://`` file is created (with the
    parents it needs) as TensorFlow's ram file system creates it."""
    return _ram.open_write(name) if _ram.owns(name) else local_path(name)


def basename(name):
    """tsl's `io::Basename`: what follows the last '/' of the path part (after a URI's
    host), so ``ram://x`` has none."""
    scheme, rest = split_scheme(name)
    if scheme:
        slash = rest.find("/")
        rest = "" if slash < 0 else rest[slash:]
    return rest[rest.rfind("/") + 1 :]


def join_path(parent, child):
    """tsl's `io::JoinPath` of two parts (one '/' between them)."""
    if not parent:
        return child
    if not child:
        return parent
    if parent.endswith("/"):
        return parent + (child[1:] if child.startswith("/") else child)
    return parent + (child if child.startswith("/") else "/" + child)


def dirname(name):
    """tsl's `io::Dirname`: everything before the last '/' of the path part (``/`` for a
    top-level path, ``""`` when there is no '/'), the scheme kept."""
    scheme, rest = split_scheme(name)
    prefix = f"{scheme}://" if scheme else ""
    if scheme:
        slash = rest.find("/")
        host, path = (rest, "") if slash < 0 else (rest[:slash], rest[slash:])
        prefix += host
    else:
        path = rest
    pos = path.rfind("/")
    if pos < 0:
        return prefix if scheme else ""
    if pos == 0:
        return prefix + "/"
    return prefix + path[:pos]


_GLOB_CHARS = "*?[\\"


def _is_glob(text):
    return any(c in text for c in _GLOB_CHARS)


def fnmatch_regex(pattern):
    """POSIX `fnmatch(pattern, FNM_PATHNAME)` as a regex: ``*``/``?`` and brackets never match
    '/', brackets with ``!``/``^`` negation, a backslash escapes the next character."""
    return re.compile("/".join(c for c, _ in fnmatch_components(pattern)) + r"\Z", re.DOTALL)


def fnmatch_components(pattern):
    """`fnmatch_regex` split where the pattern matches a '/' (a '/' or an escaped one, outside
    brackets): ``(regex, literal)`` for each component, ``literal`` being the text it alone
    matches, or None when it has wildcards."""
    components, out, literal, i, n = [], [], [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "\\" and i < n:
            c = pattern[i]
            i += 1
            if c != "/":
                out.append(re.escape(c))
                if literal is not None:
                    literal.append(c)
                continue
        if c == "/":
            components.append(("".join(out), None if literal is None else "".join(literal)))
            out, literal = [], []
        elif c == "*":
            out.append("[^/]*")
            literal = None
        elif c == "?":
            out.append("[^/]")
            literal = None
        elif c == "[":
            j = i
            if j < n and pattern[j] in "!^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
                if literal is not None:
                    literal.append(c)
                continue
            body = pattern[i:j]
            i = j + 1
            negate = body[:1] in ("!", "^")
            if negate:
                body = body[1:]
            # Literal in the set: a regex's escape, brackets and set operators.
            body = re.sub(r"([\\\[\]&~|])", r"\\\1", body)
            # With FNM_PATHNAME a bracket never matches '/', even one that lists it.
            out.append(f"[^/{body}]" if negate else f"(?!/)[{body}]")
            literal = None
        else:
            out.append(re.escape(c))
            if literal is not None:
                literal.append(c)
    components.append(("".join(out), None if literal is None else "".join(literal)))
    return components


def _prefixes(pattern):
    """tsl's `AllDirectoryPrefixes`: the pattern and its ancestors, root first."""
    fixed = pattern[: min((pattern.find(c) for c in _GLOB_CHARS if c in pattern), default=None)]
    if dirname(fixed) == "":
        pattern = join_path(".", pattern)
    d = dirname(pattern) if pattern.endswith("/") else pattern
    dirs = []
    while d:
        dirs.append(d)
        parent = dirname(d)
        if parent == d:
            break
        d = parent
    return dirs[::-1]


def _children(name):
    try:
        return os.listdir(local_path(name))
    except OSError:
        return []


def get_matching_paths(pattern):
    """The paths matching the glob ``pattern``, in the order TensorFlow's `GetMatchingPaths`
    finds them (breadth first, each directory's entries in listing order; TensorFlow scans
    sibling directories in parallel, so its order across directories may vary)."""
    if not pattern:
        return []
    if _ram.owns(pattern):
        return _ram.matching_paths(pattern)
    local_path(pattern)  # an unknown scheme raises
    dirs = _prefixes(pattern)
    first = next((i for i, d in enumerate(dirs) if _is_glob(d)), len(dirs))
    if first == len(dirs):
        return [pattern] if exists(pattern) else []
    queue = [(dirs[first - 1], first - 1)]
    results = []
    matchers = {}
    while queue:
        next_queue = []
        for parent, index in queue:
            index += 1
            matcher = matchers.get(index)
            if matcher is None:
                matcher = matchers[index] = fnmatch_regex(dirs[index])
            for child in _children(parent):
                path = join_path(parent, child)
                if not matcher.match(path):
                    continue
                if index == len(dirs) - 1:
                    results.append(path)
                elif is_directory(path):
                    next_queue.append((path, index))
        queue = next_queue
    return results
