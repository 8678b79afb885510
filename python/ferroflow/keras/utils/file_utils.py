"""`tf.keras.utils.get_file`: a file from the Keras cache (``~/.keras/datasets`` or
``$KERAS_HOME``), copied there from a local path or a ``file://`` origin, optionally checked
against a hash and extracted. ferroflow does not download: an origin on the network whose file
is not cached is an error that says where to put the file."""

import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.parse
import warnings
import zipfile

from ferroflow.keras.utils.progbar import print_msg

__all__ = ["extract_archive", "get_file", "keras_home", "validate_file"]


def keras_home():
    """``$KERAS_HOME``, else ``~/.keras`` (``/tmp/.keras`` when home is not writable)."""
    if "KERAS_HOME" in os.environ:
        return os.environ["KERAS_HOME"]
    base = os.path.expanduser("~")
    if not os.access(base, os.W_OK):
        base = "/tmp"
    return os.path.join(base, ".keras")


def _hasher(algorithm, file_hash=None):
    if algorithm == "sha256" or (
        algorithm == "auto" and file_hash is not None and len(file_hash) == 64
    ):
        return hashlib.sha256()
    return hashlib.md5()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=65535):
    """Whether the file's sha256 (a 64-digit ``file_hash``) or md5 is ``file_hash``."""
    hasher = _hasher(algorithm, file_hash)
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest() == str(file_hash)


def extract_archive(file_path, path=".", archive_format="auto"):
    """Extracts a tar or zip archive into ``path``; False when it is neither."""
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else archive_format
    formats = [formats] if isinstance(formats, str) else formats
    for kind in formats:
        if kind == "tar":
            opener, matches = tarfile.open, tarfile.is_tarfile
        elif kind == "zip":
            opener, matches = zipfile.ZipFile, zipfile.is_zipfile
        else:
            raise NotImplementedError(kind)
        if matches(file_path):
            with opener(file_path) as archive:
                if kind == "tar":
                    archive.extractall(path, filter="data")
                else:
                    archive.extractall(path)
            return True
    return False


def _cache_dir(cache_dir, cache_subdir):
    base = os.path.expanduser(cache_dir or keras_home())
    if not os.access(base, os.W_OK):
        base = os.path.join("/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir(), ".keras")
    datadir = os.path.join(base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)
    return datadir


def _targets(datadir, fname, provided, extract):
    """(download target, extraction directory), named as Keras names them."""
    if not extract:
        return os.path.join(datadir, fname), None
    if provided and "." in fname:
        stem = fname[: fname.find(".")]
        return os.path.join(datadir, fname), os.path.join(datadir, f"{stem}_extracted")
    return os.path.join(datadir, f"{fname}_archive"), os.path.join(datadir, fname)


def _fetch(origin, target):
    """Copies a local or ``file://`` origin to ``target``; a network origin is an error."""
    parsed = urllib.parse.urlsplit(origin)
    if parsed.scheme in ("", "file"):
        source = urllib.parse.unquote(parsed.path) if parsed.scheme else origin
        try:
            shutil.copyfile(source, target)
        except OSError as e:
            raise Exception(f"URL fetch failure on {origin}: {e.errno} -- {e.strerror}") from e
        return
    raise Exception(  # noqa: TRY002 - Keras raises a bare Exception for fetch failures
        f"URL fetch failure on {origin}: None -- ferroflow does not download files; put the "
        f"file at {target} (the Keras cache) or pass a local path or file:// origin."
    )


def get_file(
    fname=None,
    origin=None,
    untar=False,
    md5_hash=None,
    file_hash=None,
    cache_subdir="datasets",
    hash_algorithm="auto",
    extract=False,
    archive_format="auto",
    cache_dir=None,
    force_download=False,
):
    """The path of ``fname`` in the Keras cache, fetched from ``origin`` unless it is already
    there (and matches ``file_hash``); with ``extract``/``untar``, the extraction directory."""
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    datadir = _cache_dir(cache_dir, cache_subdir)
    provided = fname
    fname = os.fspath(fname) if fname is not None else None
    if not fname:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(
                f"Can't parse the file name from the origin provided: '{origin}'."
                "Please specify the `fname` argument."
            )
    elif os.sep in fname:
        raise ValueError(
            "Paths are no longer accepted as the `fname` argument. To specify the file's parent "
            f"directory, use the `cache_dir` argument. Received: fname={fname}"
        )
    target, extraction_dir = _targets(datadir, fname, provided, extract or untar)
    download = force_download or not os.path.exists(target)
    if (
        not download
        and file_hash is not None
        and not validate_file(target, file_hash, hash_algorithm)
    ):
        print_msg(
            "A local file was found, but it seems to be incomplete or outdated because the "
            f"{hash_algorithm} file hash does not match the original value of {file_hash} so we "
            "will re-download the data."
        )
        download = True
    if download:
        print_msg(f"Downloading data from {origin}")
        _fetch(origin, target)
        if file_hash is not None and not validate_file(target, file_hash, hash_algorithm):
            raise ValueError(
                f"Incomplete or corrupted file detected. The {hash_algorithm} file hash does not "
                f"match the provided value of {file_hash}."
            )
    if extract or untar:
        if not extract_archive(target, extraction_dir, "tar" if untar else archive_format):
            warnings.warn("Could not extract archive.", stacklevel=2)
        return extraction_dir
    return target
