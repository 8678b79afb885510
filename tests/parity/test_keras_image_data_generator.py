"""Keras's legacy `tf.keras.preprocessing.image.ImageDataGenerator` and its iterators against
Keras under TensorFlow 2.21: NumPy-seeded batches of ``flow`` (standardization fitted with
``fit``, ZCA, flips, channel shifts, subsets, shuffling, ``next`` across epochs), of
``flow_from_directory`` over a folder of PNGs (class modes, subsets, unshuffled order),
``model.fit`` on an iterator on both devices, and errors and warnings.

The affine and brightness augmentations need SciPy and PIL (test dependencies that `make test`
installs into both environments); each program is told which of them both interpreters have,
and runs those paths only then. The errors without them are compared by a program that hides
both modules while it runs."""

import os

import numpy as np
import pytest

from . import _optional_modules
from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


@pytest.fixture(scope="module")
def shared_modules(tf_oracle):
    """The optional modules (SciPy, PIL, pandas) that TensorFlow's and ferroflow's interpreters both
    have; under CI all three must be there."""
    if os.environ.get("CI", "").lower() == "true":
        return _optional_modules.require_modules(tf_oracle, *_optional_modules.OPTIONAL)
    return _optional_modules.shared_modules(tf_oracle)


def _flow_arrays(tf, modules):
    import warnings

    import numpy as np

    pim = tf.keras.preprocessing.image
    rng = np.random.RandomState(0)
    x = (rng.rand(10, 4, 5, 3) * 255).astype("float32")
    y = np.arange(10) % 3
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gens = [
            pim.ImageDataGenerator(featurewise_center=True, featurewise_std_normalization=True),
            pim.ImageDataGenerator(zca_whitening=True, rescale=1 / 255.0, zca_epsilon=1e-3),
            pim.ImageDataGenerator(
                samplewise_center=True,
                samplewise_std_normalization=True,
                horizontal_flip=True,
                vertical_flip=True,
                channel_shift_range=30.0,
                preprocessing_function=lambda im: im * 0.5 + 1.0,
            ),
            pim.ImageDataGenerator(
                featurewise_center=True, horizontal_flip=True, data_format="channels_first"
            ),
        ]
        gens[0].fit(x)
        gens[1].fit(x)
        gens[3].fit(x.transpose(0, 3, 1, 2), augment=True, rounds=2, seed=4)
        out.append([(g.mean, g.std, g.zca_whitening_matrix) for g in gens])
        for g in gens[:3]:
            it = g.flow(x, y, batch_size=4, seed=3)
            out.append((len(it), [next(it) for _ in range(5)], it[2], it.total_batches_seen))
        it = gens[3].flow(x.transpose(0, 3, 1, 2), batch_size=3, shuffle=False)
        out.append([it[i] for i in range(len(it))])
        # Unfitted feature-wise statistics only warn.
        out.append(pim.ImageDataGenerator(zca_whitening=True).standardize(x[:2].copy()))
        out.append([str(w.message) for w in caught])
    # Subsets, extra inputs and sample weights.
    g = pim.ImageDataGenerator(validation_split=0.3, horizontal_flip=True)
    w = np.linspace(0.1, 1.0, 10)
    np.random.seed(7)
    for subset in ("training", "validation"):
        it = g.flow((x, [y * 2.0, y + 5]), y, sample_weight=w, subset=subset, batch_size=3)
        out.append((it.n, it[0], next(it)))
    np.random.seed(1)
    out.append([g.get_random_transform((4, 5, 3)) for _ in range(3)])
    shifts = pim.ImageDataGenerator(width_shift_range=[1, 2], height_shift_range=3, zoom_range=1)
    out.append(shifts.get_random_transform((4, 5, 3), seed=2))
    # The affine part: SciPy's, or ImportError where neither interpreter has SciPy.
    affine = pim.ImageDataGenerator(
        rotation_range=40,
        width_shift_range=0.2,
        height_shift_range=0.1,
        shear_range=15,
        zoom_range=(0.7, 1.2),
        fill_mode="reflect",
    )
    try:
        it = affine.flow(x, batch_size=4, seed=11)
        out.append([next(it) for _ in range(3)])
        out.append(affine.random_transform(x[0], seed=5))
    except ImportError as e:  # only where neither interpreter has SciPy
        out.append(type(e).__name__)
    if "PIL" in modules:
        bright = pim.ImageDataGenerator(brightness_range=(0.4, 1.6), channel_shift_range=10.0)
        out.append(next(bright.flow(x, batch_size=5, seed=2)))
    return out


def test_flow_from_arrays(tf_oracle, shared_modules):
    if "PIL" not in shared_modules and "scipy" in shared_modules:
        pytest.skip("one interpreter has SciPy without PIL")
    result = assert_parity(tf_oracle, _flow_arrays, (shared_modules,))
    assert result[0] != "raised", result


def _errors(tf):
    import numpy as np

    pim = tf.keras.preprocessing.image
    G = pim.ImageDataGenerator
    x = np.zeros((6, 4, 4, 3), "float32")
    y = np.array([0, 1, 0, 1, 1, 1])
    calls = [
        lambda: G(data_format="channels_middle"),
        lambda: G(validation_split=1.5),
        lambda: G(zoom_range=(1, 2, 3)),
        lambda: G(brightness_range=0.5),
        lambda: G().fit(x[0]),
        lambda: G().flow(x[0]),
        lambda: G().flow(x, y[:4]),
        lambda: G().flow(x, y, sample_weight=np.ones(2)),
        lambda: G().flow((x, np.ones(3)), y),
        lambda: G(validation_split=0.5).flow(x, y, subset="test"),
        lambda: G(validation_split=0.2).flow(x, np.arange(6), subset="training"),
        lambda: G(validation_split=0.2).flow(
            x, np.arange(6), subset="training", ignore_class_split=True
        ),
        lambda: G().flow(x, batch_size=4)[2],
        lambda: G().flow(x)[0].shape,
        lambda: G().flow_from_directory("/nonexistent-ferroflow-dir"),
        lambda: G().flow_from_directory("/", color_mode="cmyk"),
        lambda: G().flow_from_directory("/", subset="test"),
    ]
    return error_classes(calls, messages=True)


def test_errors(tf_oracle):
    assert_parity(tf_oracle, _errors, helpers=[error_classes])


def _png_tree(root):
    """class folders ``cats`` (5 images), ``dogs`` (4, one in a subfolder) and an empty
    ``zebras``, plus a text file that is skipped."""
    from PIL import Image

    rng = np.random.RandomState(3)
    for name, count in (("cats", 5), ("dogs", 4)):
        folder = root / name
        (folder / "inner").mkdir(parents=True)
        for i in range(count):
            size = (6 + i, 5) if i % 2 else (5, 4)
            pixels = (rng.rand(size[1], size[0], 3) * 255).astype("uint8")
            where = folder / "inner" if (name == "dogs" and i == 3) else folder
            Image.fromarray(pixels).save(where / f"{name}{i}.png")
    (root / "zebras").mkdir()
    (root / "cats" / "notes.txt").write_text("not an image")


def _flow_directory(tf, directory, modules):
    import numpy as np

    pim = tf.keras.preprocessing.image
    g = pim.ImageDataGenerator(rescale=1 / 255.0, horizontal_flip=True, validation_split=0.4)
    out = []
    for kwargs in (
        dict(class_mode="categorical"),
        dict(class_mode="binary", classes=["dogs", "cats"]),
        dict(class_mode="sparse", subset="training"),
        dict(class_mode=None, subset="validation", color_mode="grayscale"),
        dict(class_mode="input", color_mode="rgba", target_size=(3, 4)),
    ):
        kwargs = {"target_size": (4, 5), **kwargs}
        it = g.flow_from_directory(directory, batch_size=3, shuffle=False, **kwargs)
        listing = (
            it.filenames,
            it.classes,
            it.class_indices,
            it.samples,
            len(it),
            it.image_shape,
            it.num_classes,
        )
        if "PIL" not in modules:
            out.append(listing)
            continue
        np.random.seed(0)
        out.append((listing, [it[i] for i in range(len(it))]))
    if "PIL" in modules:
        it = pim.ImageDataGenerator().flow_from_directory(
            directory,
            target_size=(4, 4),
            batch_size=4,
            seed=9,
            interpolation="bilinear",
            keep_aspect_ratio=True,
        )
        out.append([next(it) for _ in range(4)])
    return out


def test_flow_from_directory(tf_oracle, shared_modules, tmp_path, capfd):
    pytest.importorskip("PIL")
    _png_tree(tmp_path)
    result = assert_parity(tf_oracle, _flow_directory, (str(tmp_path), shared_modules))
    assert result[0] != "raised", result
    assert "Found 9 images belonging to 3 classes." in capfd.readouterr().out


def _fit(tf, device):
    import numpy as np

    rng = np.random.RandomState(1)
    x = rng.rand(12, 4, 4, 1).astype("float32")
    y = rng.rand(12, 2).astype("float32")
    with tf.device(device):
        model = tf.keras.Sequential(
            [tf.keras.Input((4, 4, 1)), tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)]
        )
        model.set_weights(
            [np.linspace(-1, 1, 32).reshape(16, 2).astype("float32"), np.zeros(2, "float32")]
        )
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        gen = tf.keras.preprocessing.image.ImageDataGenerator(
            featurewise_center=True, vertical_flip=True
        )
        gen.fit(x)
        history = model.fit(
            gen.flow(x, y, batch_size=5, seed=2),
            validation_data=gen.flow(x[:7], y[:7], batch_size=3, seed=6),
            epochs=3,
            shuffle=False,
            verbose=0,
        )
        loss = model.evaluate(gen.flow(x, y, batch_size=4, shuffle=False), verbose=0)
        predicted = model.predict(gen.flow(x, batch_size=5, shuffle=False), verbose=0)
        # The usual program: one global seed, shuffled batches and shuffled epochs (Python's
        # `random` orders the batches, NumPy's the samples and the flips).
        tf.keras.utils.set_random_seed(0)
        again = model.fit(gen.flow(x, y, batch_size=5), epochs=2, verbose=0)
    return history.history, loss, predicted, again.history, model.get_weights()


@pytest.mark.parametrize("device", DEVICES)
def test_model_fit_on_a_generator(tf_oracle, device):
    result = assert_parity(tf_oracle, _fit, (device,), rtol=1e-5, atol=1e-5)
    assert result[0] != "raised", result


def _flow_dataframe(tf, directory):
    import numpy as np
    import pandas as pd

    pim = tf.keras.preprocessing.image
    df = pd.DataFrame(
        {
            "filename": [
                "cats/cats0.png",
                "dogs/dogs1.png",
                "cats/cats3.png",
                "missing.png",
                "dogs/inner/dogs3.png",
                "cats/notes.txt",
            ],
            "class": ["cat", "dog", "cat", "dog", "dog", "cat"],
            "tags": [["a"], ["b", "a"], ["c"], ["a"], ["b"], ["a"]],
            "weight": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0],
            "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        }
    )
    g = pim.ImageDataGenerator(rescale=0.5, vertical_flip=True, validation_split=0.25)
    out = []
    for kwargs in (
        dict(class_mode="categorical", weight_col="weight"),
        dict(class_mode="binary", subset="training"),
        dict(class_mode="sparse", classes=["dog"]),
        dict(class_mode="categorical", y_col="tags", classes=["a", "b"]),
        dict(class_mode="raw", y_col="score", subset="validation"),
        dict(class_mode="multi_output", y_col=["score", "weight"]),
        dict(class_mode=None, validate_filenames=False, x_col="filename"),
    ):
        if kwargs.get("validate_filenames") is False:
            frame = df.iloc[[0, 1, 2]]
        else:
            frame = df
        it = g.flow_from_dataframe(
            frame, directory, target_size=(3, 4), batch_size=2, shuffle=False, **kwargs
        )
        np.random.seed(4)
        out.append(
            (
                it.filenames,
                getattr(it, "class_indices", None),
                it.samples,
                [it[i] for i in range(len(it))],
            )
        )
    return out


def _dataframe_errors(tf, directory):
    import pandas as pd

    flow = tf.keras.preprocessing.image.ImageDataGenerator().flow_from_dataframe
    df = pd.DataFrame(
        {"filename": ["cats/cats0.png", 3, "x.png"], "class": ["a", "b", "c"], "w": ["1", "2", "3"]}
    )
    named = df.iloc[[0, 2]]
    calls = [
        lambda: flow(named, directory, class_mode="multi_output"),
        lambda: flow(df, directory),
        lambda: flow(named, directory, class_mode="binary"),
        lambda: flow(named, directory, class_mode="binary", classes=["a", "b", "c"]),
        lambda: flow(named, directory, weight_col="w"),
        lambda: flow(named.assign(**{"class": [1, 2]}), directory, class_mode="sparse"),
        lambda: flow(named, directory, color_mode="hsv"),
    ]
    out = error_classes(calls, messages=True)
    try:
        flow(named, directory, class_mode="softmax")
    except ValueError as e:
        out.append(str(e).split(";")[0])  # the allowed modes follow, in set order
    return out


def test_flow_from_dataframe(tf_oracle, shared_modules, tmp_path):
    if not {"PIL", "pandas"} <= set(shared_modules):
        pytest.skip("pandas and PIL are not in both interpreters")
    _png_tree(tmp_path)
    result = assert_parity(tf_oracle, _flow_dataframe, (str(tmp_path),))
    assert result[0] != "raised", result
    assert_parity(tf_oracle, _dataframe_errors, (str(tmp_path),), helpers=[error_classes])


def _options(tf, directory, save_dir, modules):
    import os

    import numpy as np

    pim = tf.keras.preprocessing.image
    rng = np.random.RandomState(2)
    x = (rng.rand(5, 3, 4, 1) * 255).astype("float64")
    out = []

    class Squares(pim.Iterator):
        def _get_batches_of_transformed_samples(self, index_array):
            return np.asarray(index_array) ** 2

    it = Squares(7, 3, shuffle=True, seed=1)
    out.append(([next(it) for _ in range(5)], it.batch_index, it.total_batches_seen))
    it.reset()
    out.append((next(it), it[2], len(it), it.index_array))
    g = pim.ImageDataGenerator(dtype="float64", vertical_flip=True, samplewise_center=True)
    out.append(next(g.flow(x, np.arange(5), batch_size=2, seed=0, save_to_dir=None)))
    if "PIL" in modules:
        save_dir = os.path.join(save_dir, tf.__name__)  # one folder per framework
        os.makedirs(save_dir)
        np.random.seed(3)
        it = g.flow(
            x * 0 + 100,
            batch_size=5,
            shuffle=False,
            save_to_dir=save_dir,
            save_prefix="aug",
            save_format="png",
        )
        it[0]
        out.append(sorted(os.listdir(save_dir)))
        cf = pim.ImageDataGenerator(data_format="channels_first", horizontal_flip=True)
        it = cf.flow_from_directory(directory, target_size=(3, 2), batch_size=4, seed=1)
        out.append((it.image_shape, next(it), next(it)))
        bare = pim.DirectoryIterator(
            directory,
            None,
            target_size=(2, 2),
            class_mode="binary",
            classes=["cats", "dogs"],
            shuffle=False,
            batch_size=20,
        )
        out.append(bare[0])
    if "scipy" in modules:
        const = pim.ImageDataGenerator(
            rotation_range=90,
            fill_mode="constant",
            cval=-1.0,
            interpolation_order=0,
            zoom_range=[0.5, 0.5],
        )
        out.append(next(const.flow(x, batch_size=5, seed=8)))
    return out


def test_options(tf_oracle, shared_modules, tmp_path):
    pytest.importorskip("PIL")
    _png_tree(tmp_path / "tree")
    program_args = (str(tmp_path / "tree"), str(tmp_path / "saved"), shared_modules)
    result = assert_parity(tf_oracle, _options, program_args)
    assert result[0] != "raised", result


def _augment_functions(tf, modules):
    import numpy as np

    pim = tf.keras.preprocessing.image
    rng = np.random.RandomState(5)
    first = rng.rand(3, 5, 6).astype("float32") * 100  # channels first (the default axes)
    last = np.moveaxis(first, 0, -1)
    axes = dict(row_axis=0, col_axis=1, channel_axis=2)
    np.random.seed(12)
    out = [pim.random_channel_shift(first, 20.0), pim.random_channel_shift(last, 5.0, 2)]
    if "scipy" in modules:
        out += [
            pim.random_rotation(first, 45),
            pim.random_rotation(last, 30, fill_mode="wrap", **axes),
            pim.random_shift(first, 0.2, 0.3, fill_mode="constant", cval=7.0),
            pim.random_shear(last, 20, interpolation_order=3, **axes),
            pim.random_zoom(first, (0.6, 1.4), fill_mode="mirror"),
            pim.apply_affine_transform(
                last, theta=15, tx=1, ty=-2, shear=5, zx=0.9, zy=1.1, **axes
            ),
        ]
    else:
        try:
            pim.random_rotation(first, 45)
        except ImportError as e:
            out.append(str(e))
    if "PIL" in modules:
        out += [
            pim.random_brightness(last, (0.3, 1.7)),
            pim.apply_brightness_shift(last * 4 - 50, 0.8, scale=False),
        ]
    return out


def test_augment_functions(tf_oracle, shared_modules):
    result = assert_parity(tf_oracle, _augment_functions, (shared_modules,))
    assert result[0] != "raised", result


def _image_files(tf, directory):
    import os

    import numpy as np

    pim = tf.keras.preprocessing.image
    path = os.path.join(directory, "cats", "cats1.png")
    out = []
    for kwargs in (
        {},
        dict(color_mode="grayscale"),
        dict(color_mode="rgba", target_size=(3, 5)),
        dict(target_size=(4, 4), interpolation="bilinear"),
        dict(target_size=(3, 2), interpolation="bicubic", keep_aspect_ratio=True),
        dict(target_size=(7, 9), interpolation="lanczos"),
    ):
        img = pim.load_img(path, **kwargs)
        out.append(
            (
                img.size,
                img.mode,
                pim.img_to_array(img),
                pim.img_to_array(img, "channels_first", "float64"),
            )
        )
    rng = np.random.RandomState(0)
    arr = rng.rand(4, 3, 3).astype("float32") * 3 - 1
    out.append(pim.img_to_array(pim.array_to_img(arr)))
    out.append(pim.img_to_array(pim.array_to_img(arr * 0 + 100, scale=False)))
    target = os.path.join(directory, f"saved_{tf.__name__}.png")
    pim.save_img(target, arr[..., :1], scale=True)
    out.append(pim.img_to_array(pim.load_img(target, color_mode="grayscale")))
    try:
        pim.load_img(path, color_mode="cmyk")
    except Exception as e:  # noqa: BLE001 - the class and message are compared
        out.append((type(e).__name__, str(e)))
    return out


def test_image_files(tf_oracle, shared_modules, tmp_path):
    if "PIL" not in shared_modules:
        pytest.skip("PIL is not in both interpreters")
    _png_tree(tmp_path)
    result = assert_parity(tf_oracle, _image_files, (str(tmp_path),))
    assert result[0] != "raised", result


def _without_scipy_and_pil(tf):
    """What the functions that need SciPy or PIL raise in an interpreter without them: the
    program hides both modules, and each framework's reference to them, while it runs."""
    import importlib
    import sys

    import numpy as np

    if tf.__name__ == "tensorflow":
        images = importlib.import_module("keras.src.utils.image_utils")
        lazy = importlib.import_module("keras.src.utils.module_utils").scipy
    else:
        images = importlib.import_module("ferroflow.keras.utils.image_utils")
        lazy = None
    names = ["scipy", "scipy.ndimage", "scipy.signal", "PIL", "PIL.Image", "PIL.ImageEnhance"]
    saved = {name: sys.modules.get(name) for name in names}
    saved_pil = images.pil_image
    saved_lazy = lazy and (lazy.module, lazy._available)
    pim = tf.keras.preprocessing.image
    G = pim.ImageDataGenerator
    x = np.random.RandomState(0).rand(3, 4, 5, 3).astype("float32") * 255
    calls = [
        lambda: pim.random_rotation(x[0], 30),
        lambda: pim.apply_affine_transform(x[0], theta=10),
        lambda: next(G(rotation_range=30, zoom_range=0.2).flow(x, batch_size=2, seed=0)),
        lambda: pim.apply_brightness_shift(x[0], 0.5),
        lambda: next(G(brightness_range=(0.5, 1.5)).flow(x, batch_size=2, seed=0)),
        lambda: pim.load_img("/nonexistent-ferroflow.png"),
        lambda: pim.array_to_img(x[0]),
        lambda: pim.save_img("/nonexistent-ferroflow/x.png", x[0]),
        lambda: tf.keras.layers.STFTSpectrogram(window="blackman"),
    ]
    try:
        for name in names:
            sys.modules[name] = None
        images.pil_image = None
        if lazy is not None:
            lazy.module, lazy._available = None, None
        return error_classes(calls, messages=True)
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
        images.pil_image = saved_pil
        if lazy is not None:
            lazy.module, lazy._available = saved_lazy


def test_errors_without_scipy_and_pil(tf_oracle):
    assert_parity(tf_oracle, _without_scipy_and_pil, helpers=[error_classes])
