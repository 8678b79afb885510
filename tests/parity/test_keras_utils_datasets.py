"""`tf.keras.utils.image_dataset_from_directory`, `text_dataset_from_directory` and
`audio_dataset_from_directory` against Keras under TensorFlow 2.21 on one small directory
tree (PNG, JPEG, BMP, GIF, text and 16-bit WAV files) that both programs read: batches
(values, dtypes, shapes), class names, file order (incl. the seeded NumPy shuffle of the
paths), the "Found N files" messages, validation splits and argument errors."""

import os
import wave

import numpy as np
import pytest

from ._outcomes import error_classes
from .harness import assert_parity


def _image(path, array, mode):
    from PIL import Image

    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(array, mode).save(path)


def _make_tree(root):
    """img/ (mixed formats, nested, a hidden and a non-image file), png/ (PNG only, for the
    grayscale/rgba modes), text/ and audio/ (mono 16-bit WAV of different lengths)."""
    pytest.importorskip("PIL")
    rng = np.random.RandomState(0)

    def pixels(h, w, ch):
        return rng.randint(0, 256, (h, w, ch) if ch > 1 else (h, w)).astype("uint8")

    for sub, files in {
        "img": [
            ("cats/a.png", 5, 7, "RGB"),
            ("cats/b.jpg", 8, 6, "RGB"),
            ("cats/sub/c.png", 6, 6, "RGB"),
            ("dogs/d.png", 9, 4, "L"),
            ("dogs/e.bmp", 4, 4, "RGB"),
            ("dogs/f.gif", 6, 5, "L"),
            ("dogs/g.PNG", 3, 8, "RGB"),
            (".hidden/h.png", 3, 3, "RGB"),
        ],
        "png": [
            ("x/a.png", 5, 7, "RGBA"),
            ("x/b.png", 7, 3, "L"),
            ("y/c.png", 4, 4, "RGB"),
        ],
    }.items():
        for name, h, w, mode in files:
            _image(f"{root}/{sub}/{name}", pixels(h, w, {"RGB": 3, "RGBA": 4, "L": 1}[mode]), mode)
    with open(f"{root}/img/dogs/notes.txt", "w") as handle:
        handle.write("not an image")
    for cls, names in {"pos": ["1", "2", "deep/4"], "neg": ["3", "5"]}.items():
        for n in names:
            path = f"{root}/text/{cls}/{n}.txt"
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as handle:
                handle.write(f"text {cls} {n} " * (int(n[-1]) + 1))
    for cls, sizes in {"yes": [5, 7, 2], "no": [3, 6]}.items():
        os.makedirs(f"{root}/audio/{cls}")
        for i, n in enumerate(sizes):
            with wave.open(f"{root}/audio/{cls}/{i}.wav", "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(8000)
                w.writeframes(rng.randint(-32768, 32767, n).astype("<i2").tobytes())


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("keras_dirs"))
    _make_tree(root)
    return root


def _described(tf, root, make, shuffled=False):
    """The printed messages, class names, element specs, relative file paths and every batch
    of the dataset(s) ``make()`` returns (twice when ``shuffled``: Keras's NumPy-shuffled
    file order, then `Dataset.shuffle`'s order, new on each iteration, as TensorFlow's)."""
    import contextlib
    import io
    import os

    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        made = make()
    out = [text.getvalue()]
    for ds in made if isinstance(made, list | tuple) else [made]:
        paths = getattr(ds, "file_paths", None)
        out.append((ds.class_names, str(ds.element_spec)))
        out.append(None if paths is None else [os.path.relpath(p, root) for p in paths])
        out.append(list(ds))
        if shuffled:
            out.append(list(ds))
    return out


def _images(tf, root, device):
    U = tf.keras.utils
    img, png = root + "/img", root + "/png"
    cases = [
        lambda: U.image_dataset_from_directory(img, image_size=(4, 5), shuffle=False, batch_size=3),
        lambda: U.image_dataset_from_directory(
            img,
            image_size=(4, 5),
            shuffle=False,
            batch_size=None,
            label_mode="categorical",
            interpolation="nearest",
            crop_to_aspect_ratio=True,
        ),
        lambda: U.image_dataset_from_directory(
            png,
            image_size=(6, 3),
            shuffle=False,
            color_mode="rgba",
            label_mode="binary",
            pad_to_aspect_ratio=True,
            data_format="channels_first",
        ),
        lambda: U.image_dataset_from_directory(
            png, image_size=3, shuffle=False, color_mode="grayscale", interpolation="bicubic"
        ),
        lambda: U.image_dataset_from_directory(
            img, image_size=(2, 2), shuffle=False, validation_split=0.3, subset="both", batch_size=4
        ),
        lambda: U.image_dataset_from_directory(
            png, labels=[2, 0, 2], image_size=(2, 2), shuffle=False, class_names=None
        ),
        lambda: U.image_dataset_from_directory(
            img, labels=None, image_size=(2, 3), shuffle=False, class_names=None, batch_size=8
        ),
        lambda: U.image_dataset_from_directory(
            img, class_names=["dogs", "cats"], image_size=(2, 3), shuffle=False, batch_size=8
        ),
    ]
    with tf.device(device):  # TensorFlow runs its pipelines on the host whatever the scope
        out = [_described(tf, root, make) for make in cases]
    # Keras's order: the sorted walk shuffled by np.random.RandomState(seed); the validation
    # split is not shuffled again.
    shuffled = lambda: U.image_dataset_from_directory(  # noqa: E731
        img, image_size=(3, 3), seed=7, validation_split=0.3, subset="both", batch_size=2
    )
    out.append(_described(tf, root, shuffled, shuffled=True))
    return out


def _texts_and_audio(tf, root):
    U = tf.keras.utils
    text, audio = root + "/text", root + "/audio"
    cases = [
        lambda: U.text_dataset_from_directory(text, shuffle=False, batch_size=2, max_length=12),
        lambda: U.text_dataset_from_directory(
            text, shuffle=False, labels=[3, 1, 2, 1, 5], label_mode="categorical"
        ),
        lambda: U.text_dataset_from_directory(
            text, shuffle=False, label_mode="binary", batch_size=3
        ),
        lambda: U.audio_dataset_from_directory(audio, shuffle=False, batch_size=2),
        lambda: U.audio_dataset_from_directory(
            audio, shuffle=False, batch_size=2, output_sequence_length=4, label_mode="binary"
        ),
        lambda: U.audio_dataset_from_directory(audio, shuffle=False, batch_size=None, labels=None),
        lambda: U.audio_dataset_from_directory(
            audio, shuffle=False, validation_split=0.4, subset="both", batch_size=2
        ),
    ]
    out = [_described(tf, root, make) for make in cases]
    shuffled = [
        lambda: U.text_dataset_from_directory(text, seed=3, validation_split=0.4, subset="both"),
        lambda: U.audio_dataset_from_directory(audio, seed=5, batch_size=None),
    ]
    return out + [_described(tf, root, make, shuffled=True) for make in shuffled]


def _errors(tf, root):
    U = tf.keras.utils
    img = root + "/img"
    calls = [
        lambda: U.image_dataset_from_directory(img, labels="x"),
        lambda: U.image_dataset_from_directory(img, label_mode="sparse"),
        lambda: U.image_dataset_from_directory(img, color_mode="cmyk"),
        lambda: U.image_dataset_from_directory(img, image_size=(1, 2, 3)),
        lambda: U.image_dataset_from_directory(img, interpolation="cubic"),
        lambda: U.image_dataset_from_directory(img, validation_split=0.2),
        lambda: U.image_dataset_from_directory(img, validation_split=0.2, subset="training"),
        lambda: U.image_dataset_from_directory(
            img, validation_split=1.5, subset="training", seed=1
        ),
        lambda: U.image_dataset_from_directory(img, class_names=["cats", "birds"]),
        lambda: U.image_dataset_from_directory(img, labels=[0, 1], verbose=False),
        lambda: U.image_dataset_from_directory(
            img, label_mode="binary", labels=[0, 1, 2, 0, 1, 0, 1]
        ),
        lambda: U.image_dataset_from_directory(root + "/text", verbose=False),
        lambda: U.image_dataset_from_directory(img, format="grain"),
        lambda: U.text_dataset_from_directory(root + "/text", labels=None, class_names=["a"]),
        lambda: U.audio_dataset_from_directory(
            root + "/audio", ragged=True, output_sequence_length=3
        ),
        lambda: U.audio_dataset_from_directory(root + "/audio", sampling_rate=1.5),
        lambda: U.audio_dataset_from_directory(root + "/audio", sampling_rate=16000),
        lambda: list(
            U.image_dataset_from_directory(root + "/img", color_mode="grayscale", verbose=False)
        ),
    ]
    return error_classes(calls)


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_images(tf_oracle, tree, device):
    assert_parity(tf_oracle, _images, (tree, device), helpers=[_described], rtol=1e-5, atol=1e-4)


def test_texts_and_audio(tf_oracle, tree):
    assert_parity(tf_oracle, _texts_and_audio, (tree,), helpers=[_described], rtol=1e-6, atol=0)


def test_errors(tf_oracle, tree):
    assert_parity(tf_oracle, _errors, (tree,), helpers=[error_classes])
