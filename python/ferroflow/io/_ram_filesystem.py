"""TensorFlow's in-memory file system, ``ram://`` (tsl's `RamFileSystem`), kept in a directory
private to this process (created on first use, removed at exit) so that every reader and writer
of local files (the TFRecord, checkpoint and SavedModel code in Rust, `ReadFile` in a graph)
works on it through `local`.

RamFileSystem is a flat map from names (a URI less ``ram://`` and one trailing '/') to a file's
bytes or a directory mark; a name is a directory too while any name starts with it, as a
*string* prefix (``ram://ab`` is a directory once ``ram://abc`` exists), and its children are
the names one '/' below it. Here each name is a path under the private root. The parents that a
write needs and nobody created as directories are on disk but no name of the map (*implicit*,
`_implicit`), so that stat, listings, glob and deletes see the map TensorFlow has: writing
``ram://a/b/f`` makes neither ``ram://a`` nor ``ram://a/b`` a child of anything. Opening a file
for writing appends to what it holds, in every mode, as TensorFlow's ram files do.

A file with names below it (``ram://a`` and ``ram://a/b`` at once, which the map holds) is kept
inside the folder those names need, as its entry `_OWN_FILE` (a part no name's part encodes
to); every other file is at its name's path, so code given the path of a ram:// directory or
checkpoint prefix (Rust's checkpoints, SavedModels) finds files where it looks. Graph
`ReadFile` (Rust) reads a name's path itself: it takes every folder for a directory, so it
cannot read a file kept in its folder, nor tell the folders a write made from directories.
"""

import atexit
import os
import re
import shutil
import tempfile
import threading

from ferroflow import _core, errors

__all__ = [
    "PREFIX",
    "children",
    "create_dir",
    "delete_dir",
    "delete_file",
    "delete_recursively",
    "key",
    "local",
    "matching_paths",
    "name_of",
    "open_read",
    "open_write",
    "owns",
    "recursively_create_dir",
    "rename",
    "shown",
    "stat",
]

PREFIX = "ram://"

_lock = threading.RLock()
_root = None


class _ImplicitFolders(set):
    """Names whose folder on disk is no directory entry of the map; the root is one until
    made. Every change is published to Rust, whose graph `ReadFile` raises NotFound for
    them, as TensorFlow does (InvalidArgument for a directory made as one)."""

    def add(self, name):
        if name not in self:
            super().add(name)
            self._publish()

    def discard(self, name):
        if name in self:
            super().discard(name)
            self._publish()

    def difference_update(self, names):
        before = len(self)
        super().difference_update(names)
        if len(self) != before:
            self._publish()

    def _publish(self):
        _core.set_ram_implicit(list(self))


_implicit = _ImplicitFolders({""})

# A name's parts as file names: '%' escaped, and the parts a path cannot hold ('', '.', '..')
# spelled with escapes no other part produces. `src/ops/read_file.rs` encodes the same way.
_SPECIAL = {"": "%", ".": "%2E", "..": "%2E%2E"}
_SPECIAL_BACK = {v: k for k, v in _SPECIAL.items()}
# In the folder of a name that is a file too, that file. A part never encodes to it: its '%'
# starts no escape. So does `_MOVING`, a file's name while it moves into its folder.
_OWN_FILE = "%file"
_MOVING = "%moving"


def owns(name):
    """Whether the (str) path ``name`` is on this file system."""
    return name.startswith(PREFIX)


def key(name):
    """tsl's `StripRamFsPrefix`: the map's name for ``name``. A name the folder on disk cannot
    hold (a NUL byte, a part longer than a file name may be) is a typed error here, where it
    would otherwise be the OS's error naming the private folder."""
    text = name[len(PREFIX) :] if name.startswith(PREFIX) else name
    text = text[:-1] if text.endswith("/") else text
    if "\x00" in text or any(len(_encode(p).encode()) > 255 for p in text.split("/")):
        raise errors.UnimplementedError(
            None,
            None,
            f"{name!r}: ferroflow's ram file system (kept in a folder on disk) cannot hold a "
            "name with a NUL byte or a part longer than 255 bytes",
        )
    return text


def _encode(part):
    return _SPECIAL.get(part) or part.replace("%", "%25")


def _decode(part):
    return _SPECIAL_BACK[part] if part in _SPECIAL_BACK else part.replace("%25", "%")


def _remove_root(path, owner):
    if os.getpid() == owner:  # a forked child leaves its parent's store alone
        shutil.rmtree(path, ignore_errors=True)


def _root_dir():
    global _root
    with _lock:
        if _root is None:
            path = tempfile.mkdtemp(prefix="ferroflow-ram-")
            atexit.register(_remove_root, path, os.getpid())
            _core.set_ram_root(path)
            _root = path
        return _root


def local(name_key):
    """The path on disk of the map's name ``name_key``: its file, or its folder when names lie
    below it (the root's for ``""``)."""
    if name_key == "":
        return _root_dir()
    return _parts_path(name_key.split("/"))


def _parts_path(parts):
    """The path on disk of a name's parts (``[""]`` is the name ``/``'s first part, not the
    root)."""
    return os.path.join(_root_dir(), *(_encode(p) for p in parts))


def name_of(path):
    """The ``ram://`` name of a path on disk under the root (None for another path)."""
    if _root is None or not (path == _root or path.startswith(_root + os.sep)):
        return None
    rest = path[len(_root) + 1 :]
    parts = rest.split(os.sep) if rest else []
    if parts and parts[-1] == _OWN_FILE:
        parts.pop()
    return PREFIX + "/".join(_decode(p) for p in parts)


def shown(text):
    """``text`` (a message) with the paths under the root written as ``ram://`` names."""
    if _root is None:
        return text
    text = text.replace(os.sep + _OWN_FILE, "")
    return text.replace(_root + os.sep, PREFIX).replace(_root, PREFIX)


def _scan(path):
    """The entries of the folder ``path`` that hold names (its own file left out)."""
    try:
        return [e for e in os.scandir(path) if e.name != _OWN_FILE]
    except OSError:
        return []


def _folder_entry(name, path):
    """``(name, is_file)`` for the folder ``path`` of ``name`` when the name is an entry of the
    map (a file kept in it, or a directory), else None. The folder of the part ``""`` at the
    root only holds the names starting with '/': the name ``""`` is the root's."""
    if name == "":
        return None
    if os.path.isfile(os.path.join(path, _OWN_FILE)):
        return name, True
    if name not in _implicit:
        return name, False
    return None


def _entry(name, path, is_dir):
    """``(name, is_file)`` for the file or folder ``path`` of ``name`` when the name is an entry
    of the map, else None."""
    return _folder_entry(name, path) if is_dir else (name, True)


def _entries(path, prefix):
    """``(name, is_file)`` for every entry of the map on disk under ``path`` (names start
    with ``prefix``), in no particular order."""
    for entry in _scan(path):
        name = prefix + _decode(entry.name)
        if entry.is_dir(follow_symlinks=False):
            found = _folder_entry(name, entry.path)
            if found:
                yield found
            yield from _entries(entry.path, name + "/")
        else:
            yield name, True


def _has_entries(name_key):
    """Whether any name of the map lies below ``name_key`` + '/' (anywhere, for the root)."""
    prefix = name_key + "/" if name_key else ""
    return any(True for _ in _entries(local(name_key), prefix))


def _sorted(entries):
    # std::map orders names by their bytes.
    return sorted(entries, key=lambda e: e[0].encode("utf-8", "surrogateescape"))


def _folder_holding(name_key):
    """The folder on disk holding the names ``name_key`` + '/' + part."""
    return _parts_path(name_key.split("/"))


def _folder_of(name_key):
    """The folder on disk holding the name ``name_key`` itself (and the names that share its
    parent and start with its last part)."""
    parent, slash, _ = name_key.rpartition("/")
    return _folder_holding(parent) if slash else local("")


def _file_path(name_key):
    """Where the file ``name_key`` is kept: its path, or its folder's own file when names lie
    below it; None when it is no file."""
    path = local(name_key)
    if name_key and os.path.isfile(path):
        return path
    own = os.path.join(path, _OWN_FILE)
    return own if os.path.isfile(own) else None


def _not_found():
    return errors.NotFoundError(None, None, "")


def _is_entry_dir(name_key, path):
    return name_key not in _implicit and os.path.isdir(path)


def stat(name):
    """``(is_directory, length)`` of ``name`` (RamFileSystem's `Stat`: a directory when any
    name starts with it); NotFoundError otherwise."""
    name_key = key(name)
    with _lock:
        file = _file_path(name_key)
        if file is not None:
            return False, os.path.getsize(file)
        if name_key == "":
            if _is_entry_dir("", local("")) or _has_entries(""):
                return True, 0
            raise _not_found()
        # The other names starting with name_key all lie in its parent's folder, under a part
        # that starts with its last part.
        parent, slash, last = name_key.rpartition("/")
        prefix = parent + slash
        for entry in _scan(_folder_of(name_key)):
            child = _decode(entry.name)
            if not child.startswith(last):
                continue
            full = prefix + child
            if not entry.is_dir(follow_symlinks=False) or _folder_entry(full, entry.path):
                return True, 0
            if _has_entries(full):
                return True, 0
        raise _not_found()


def children(name):
    """RamFileSystem's `GetChildren`: the part after ``name`` (and one '/') of each name that
    starts with it and has no further '/', in the map's order. Those names are
    ``name`` + part (in the folder of ``name``) and ``name`` + '/' + part (in its own)."""
    name_key = key(name)
    with _lock:
        parent, slash, last = name_key.rpartition("/")
        found = []
        for entry in _scan(_folder_of(name_key)):
            part = _decode(entry.name)
            full = parent + slash + part
            is_dir = entry.is_dir(follow_symlinks=False)
            if len(part) > len(last) and part.startswith(last) and _entry(full, entry.path, is_dir):
                found.append((full, part[len(last) :]))
        for entry in _scan(_folder_holding(name_key)):
            part = _decode(entry.name)
            full = name_key + "/" + part
            if part and _entry(full, entry.path, entry.is_dir(follow_symlinks=False)):
                found.append((full, part))
        return [child for _, child in _sorted(found)]


def matching_paths(pattern):
    """RamFileSystem's `GetMatchingPaths`: every name the whole pattern matches (fnmatch with
    FNM_PATHNAME), in the map's order, as ``ram://`` URIs. A match has a part for each of the
    pattern's components, so only the folders matching the components before the last are
    read (a literal component is looked up, not listed)."""
    from ferroflow.io._filesystem import fnmatch_components

    components = fnmatch_components(key(pattern))
    with _lock:
        found = []
        root_is_entry = _file_path("") is not None or _is_entry_dir("", local(""))
        if len(components) == 1 and root_is_entry and _matches(components[0][0], ""):
            found.append(("", True))
        folders = [(local(""), "")]
        for depth, (regex, literal) in enumerate(components):
            last = depth == len(components) - 1
            matcher = re.compile(regex + r"\Z", re.DOTALL)
            deeper = []
            for folder, prefix in folders:
                for part, path, is_dir in _parts_in(folder, literal):
                    if not matcher.match(part):
                        continue
                    if last:
                        if _entry(prefix + part, path, is_dir):
                            found.append((prefix + part, True))
                    elif is_dir:
                        deeper.append((path, prefix + part + "/"))
            folders = deeper
        return [PREFIX + n for n, _ in _sorted(found)]


def _matches(regex, text):
    return re.match(regex + r"\Z", text, re.DOTALL) is not None


def _parts_in(folder, literal):
    """``(part, path, is_dir)`` for the parts in ``folder``: only ``literal``, if there."""
    if literal is not None:
        path = os.path.join(folder, _encode(literal))
        if os.path.lexists(path):
            yield literal, path, os.path.isdir(path)
        return
    for entry in _scan(folder):
        yield _decode(entry.name), entry.path, entry.is_dir(follow_symlinks=False)


def _make_parents(name_key):
    """Creates the folders on disk that ``name_key`` lies in, as implicit directories; a file
    in the way moves into its new folder."""
    parts = name_key.split("/")
    for i in range(1, len(parts)):
        parent = "/".join(parts[:i])
        path = _parts_path(parts[:i])
        if os.path.isdir(path):
            continue
        if os.path.lexists(path):
            # A rename keeps the file's inode: open handles write on where it now is.
            moving = os.path.join(_root_dir(), _MOVING)
            os.rename(path, moving)
            os.mkdir(path)
            os.rename(moving, os.path.join(path, _OWN_FILE))
        else:
            os.mkdir(path)
        if parent:  # the folder of the part "" is never an entry (`_folder_entry`)
            _implicit.add(parent)


def _clear_implicit(name_key, path):
    """Removes the implicit folder ``name_key`` holding no entry and no file of its own."""
    shutil.rmtree(path)
    below = name_key + "/"
    _implicit.difference_update({d for d in _implicit if d == name_key or d.startswith(below)})


def _new_file_path(name_key):
    """Where a new file ``name_key`` (no entry of the map now) goes: its path, or into its
    folder when names lie below it."""
    path = local(name_key)
    if not os.path.isdir(path):
        return path
    if name_key and not _has_entries(name_key):
        _clear_implicit(name_key, path)
        return path
    return os.path.join(path, _OWN_FILE)


def _drop_dir_entry(name_key, path):
    """Ends the directory entry ``name_key``; the names below it stay, as in the map."""
    if name_key == "" or _has_entries(name_key):
        _implicit.add(name_key)
    else:
        _clear_implicit(name_key, path)


def _end_entry(name_key):
    """Ends the entry ``name_key`` (a file or a directory) if there is one."""
    file = _file_path(name_key)
    if file is not None:
        os.unlink(file)
    elif _is_entry_dir(name_key, local(name_key)):
        _drop_dir_entry(name_key, local(name_key))


def open_read(name):
    """The path on disk of the file ``name``, checked as RamFileSystem's
    `NewRandomAccessFile`."""
    name_key = key(name)
    with _lock:
        file = _file_path(name_key)
        if file is not None:
            return file
        if _is_entry_dir(name_key, local(name_key)):
            raise errors.InvalidArgumentError(None, None, f"{name} is a directory.")
        raise _not_found()


def open_write(name):
    """The path on disk of the file ``name``, created empty if it was not there (its missing
    parents too): RamFileSystem's `NewWritableFile`, whose files are appended to."""
    name_key = key(name)
    with _lock:
        file = _file_path(name_key)
        if file is not None:
            return file
        if _is_entry_dir(name_key, local(name_key)):
            raise errors.InvalidArgumentError(None, None, f"{name} is a directory.")
        _make_parents(name_key)
        path = _new_file_path(name_key)
        with open(path, "ab"):
            pass
        return path


def create_dir(name):
    """RamFileSystem's `CreateDir` (its parents need not exist)."""
    name_key = key(name)
    with _lock:
        path = local(name_key)
        if _file_path(name_key) is not None:
            raise errors.AlreadyExistsError(
                None, None, "cannot create directory with same name as an existing file"
            )
        if os.path.isdir(path):
            _implicit.discard(name_key)
            return
        _make_parents(name_key)
        os.mkdir(path)


def recursively_create_dir(name):
    """RamFileSystem's `RecursivelyCreateDir`: `create_dir` for each prefix ending at a '/',
    the last one's error raised."""
    parts = key(name).split("/")
    last = None
    for i in range(1, len(parts) + 1):
        try:
            create_dir("/".join(parts[:i]))
            last = None
        except errors.AlreadyExistsError as e:
            last = e
    if last is not None:
        raise last


def delete_file(name):
    """RamFileSystem's `DeleteFile`: ends the entry ``name``, a file or a directory."""
    name_key = key(name)
    with _lock:
        if _file_path(name_key) is None and not _is_entry_dir(name_key, local(name_key)):
            raise _not_found()
        _end_entry(name_key)


def delete_dir(name):
    """RamFileSystem's `DeleteDir`: ends the directory entry ``name`` (the names below it
    stay)."""
    name_key = key(name)
    with _lock:
        path = local(name_key)
        if _file_path(name_key) is not None:
            raise errors.InvalidArgumentError(None, None, "Not a directory")
        if not _is_entry_dir(name_key, path):
            raise _not_found()
        _drop_dir_entry(name_key, path)


def rename(src, dst):
    """RamFileSystem's `RenameFile`: the entry ``src`` (a file, or a directory mark without
    the names below it) becomes ``dst``, replacing what ``dst`` was."""
    source, target = key(src), key(dst)
    with _lock:
        is_file = _file_path(source) is not None
        if not is_file and not _is_entry_dir(source, local(source)):
            raise _not_found()
        if source == target:
            # The map assigns the entry to itself and then erases it.
            delete_file(src)
            return
        _make_parents(target)  # may move the source file, when it is one of them
        _end_entry(target)
        if is_file:
            os.replace(_file_path(source), _new_file_path(target))
            return
        dst_path = local(target)
        if os.path.isdir(dst_path):
            _implicit.discard(target)
        else:
            os.mkdir(dst_path)
        _drop_dir_entry(source, local(source))


def _is_directory(name):
    try:
        return stat(name)[0]
    except errors.NotFoundError:
        return False


def delete_recursively(name):
    """tsl's generic `FileSystem::DeleteRecursively` over RamFileSystem: a file is deleted;
    a directory's files are deleted breadth first, then its directories deepest first; the
    first error is raised, and PermissionDeniedError when anything was left."""
    from ferroflow.io._filesystem import join_path

    stat(name)  # NotFoundError for a missing name
    if not _is_directory(name):
        delete_file(name)
        return
    first, left, queue, found = None, 0, [name], []
    while queue:
        folder = queue.pop(0)
        found.append(folder)
        for child in children(folder):
            path = join_path(folder, child)
            if _is_directory(path):
                queue.append(path)
                continue
            try:
                delete_file(path)
            except errors.OpError as e:
                first, left = first or e, left + 1
    for folder in reversed(found):
        try:
            delete_dir(folder)
        except errors.OpError as e:
            first, left = first or e, left + 1
    if first is not None:
        raise first
    if left:
        raise errors.PermissionDeniedError(None, None, "could not fully delete dir")
