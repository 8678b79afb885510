"""`saveable_state`'s ``{path: array}`` as bytes in Keras 3's HDF5 layout (groups
``<path>/vars`` holding datasets ``"0"``, ``"1"``..., with the saveable's name as the group's
``name`` attribute), and read back from those bytes or from the ``.npz`` member of archives
older ferroflow releases wrote."""

import io
import zipfile

import ml_dtypes
import numpy as np

__all__ = ["decode_h5", "decode_npz", "encode_h5", "import_h5py"]


def import_h5py(purpose):
    """The h5py module, or ImportError saying what needed it."""
    try:
        import h5py
    except ImportError:
        raise ImportError(
            f"{purpose} requires the h5py package, which is not installed. You can install it "
            "via `pip install h5py`, or save the weights as a TensorFlow checkpoint instead by "
            "passing a path without the `.h5` suffix (e.g. `model.save_weights('ckpt/weights')`)."
        ) from None
    return h5py


def _corrupt(where, why):
    return ValueError(f"Could not read the weights in {where}: {why}")


def decode_npz(data, where):
    """The arrays of an ``.npz`` payload; no pickled objects are ever loaded."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as contents:
            return {key: contents[key] for key in contents.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError) as e:
        raise _corrupt(where, f"the .npz data is corrupt ({e})") from None


def encode_h5(arrays, names):
    """HDF5 bytes in Keras 3's layout; ``names`` maps a saveable's path to its name."""
    h5py = import_h5py("Saving weights in the HDF5 format")
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        for path, name in names.items():
            group = f.require_group(f"{path}/vars" if path else "vars")
            group.attrs["name"] = name
        for key, value in arrays.items():
            value = np.asarray(value)
            if value.dtype == ml_dtypes.bfloat16:
                # HDF5 has no bfloat16: Keras stores the raw 2-byte values and says so.
                f.create_dataset(key, data=value.view(np.void))
                f[key].attrs["dtype"] = "bfloat16"
            else:
                f[key] = value
    return buffer.getvalue()


def decode_h5(data, where):
    """The arrays of an HDF5 weights file, by path (``layers/dense/vars/0``)."""
    h5py = import_h5py("Loading weights from an HDF5 file")
    arrays = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            value = np.asarray(obj[()])
            if obj.attrs.get("dtype") == "bfloat16":
                value = value.view(ml_dtypes.bfloat16)
            arrays[name] = value

    try:
        with h5py.File(io.BytesIO(data), "r") as f:
            f.visititems(visit)
    except OSError as e:
        raise _corrupt(where, f"it is not a readable HDF5 file ({e})") from None
    return arrays
