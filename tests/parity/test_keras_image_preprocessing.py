"""Keras 3's image preprocessing layers against Keras under TensorFlow 2.21 on both devices:
the deterministic layers (Resizing with every interpolation and aspect-ratio mode,
CenterCrop, AutoContrast), the random layers with their random parameters pinned (a factor
``(a, a)``, or the transformation dict passed to `transform_images`) in every fill mode and
interpolation, inference-mode identities, dtypes, statistics of the random draws (new
numbers per call of a traced function and per element of `tf.data.Dataset.map`), configs,
argument errors, symbolic shapes and a small `fit`."""

import pytest

from ._optional_modules import require_modules
from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _deterministic(tf, device):
    import numpy as np

    L = tf.keras.layers
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, (2, 7, 9, 3)).astype("float32")
    x_first = x.transpose(0, 3, 1, 2)
    out = []
    with tf.device(device):
        t = tf.constant(x)
        sizes = [(4, 5), (10, 4), (3, 12)]
        for i, interpolation in enumerate(
            ["bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5"]
        ):
            for j, kwargs in enumerate(
                [{}, {"crop_to_aspect_ratio": True}, {"pad_to_aspect_ratio": True}]
            ):
                size = sizes[(i + j) % 3]
                out.append(L.Resizing(*size, interpolation=interpolation, **kwargs)(t))
        out.append(L.Resizing(4, 5, pad_to_aspect_ratio=True, fill_value=2.0)(t[0]))
        out.append(L.Resizing(4, 5, antialias=True)(t))
        out.append(L.Resizing(4, 5)(tf.constant((x * 255).astype("uint8"))))
        out.append(
            L.Resizing(4, 5, crop_to_aspect_ratio=True, data_format="channels_first")(x_first)
        )
        for size in [(3, 4), (7, 9), (8, 4), (10, 12)]:
            out.append(L.CenterCrop(*size)(t))
        out.append(L.CenterCrop(3, 4, data_format="channels_first")(x_first[0]))
        out.append(L.AutoContrast(value_range=(0, 1))(t))
        out.append(L.AutoContrast()(tf.constant(np.full((1, 2, 2, 1), 7.0, "float32"))))
        angles = [0.13, -0.4, 0.7]
        zooms = [(-0.5, 0.3), (0.6, -0.2), (0.9, 0.9)]
        shifts = [(0.3, -0.45), (-0.9, 0.77), (1.0, 0.5)]
        case = 0
        for fill_mode in ["reflect", "wrap", "constant", "nearest"]:
            for interpolation in ["bilinear", "nearest"]:
                # One rotation, zoom and shift per fill mode and interpolation, cycling
                # through the parameters (enough to reach every folding branch).
                warp = {"fill_mode": fill_mode, "interpolation": interpolation}
                a, (zh, zw), (th, tw) = angles[case % 3], zooms[case % 3], shifts[case % 3]
                case += 1
                out.append(L.RandomRotation((a, a), fill_value=0.5, **warp)(t))
                out.append(L.RandomZoom((zh, zh), (zw, zw), **warp)(t))
                out.append(L.RandomTranslation((th, th), (tw, tw), **warp)(t))
        out.append(L.RandomRotation((0.2, 0.2), data_format="channels_first")(x_first))
        out.append(L.RandomZoom((0.5, 0.5))(t[1]))
        out.append(L.RandomBrightness((0.2, 0.2), value_range=(0, 1))(t))
        out.append(L.RandomGrayscale(1.0)(t))
        out.append(L.RandomInvert((1.0, 1.0), value_range=(0, 1))(t))
        flips = tf.constant([True, False], shape=(2, 1, 1, 1))
        for mode in ["horizontal", "vertical", "horizontal_and_vertical"]:
            out.append(L.RandomFlip(mode).transform_images(t, {"flips": flips}))
        factors = tf.constant([1.3, 0.6], shape=(2, 1, 1, 1))
        out.append(
            L.RandomContrast(0.5, value_range=(0, 1)).transform_images(
                t, {"contrast_factor": factors}
            )
        )
        solarize = {
            "additions": tf.constant([0.1, 30.0], shape=(2, 1, 1, 1)),
            "thresholds": tf.constant([120.0, 200.0], shape=(2, 1, 1, 1)),
        }
        out.append(L.Solarization(value_range=(0, 1)).transform_images(t, solarize))
        # Inference: every random layer is the identity (some cast to float32).
        u8 = tf.constant((x * 255).astype("uint8"))
        for layer in [
            L.RandomFlip(),
            L.RandomRotation(0.3),
            L.RandomZoom(0.3),
            L.RandomTranslation(0.2, 0.2),
            L.RandomContrast(0.5),
            L.RandomBrightness(0.5),
            L.RandomCrop(4, 5),
            L.RandomInvert(),
            L.Solarization(0.5, 0.5),
            L.RandomGrayscale(),
        ]:
            out.append(layer(u8, training=False))
        out.append(L.RandomCrop(10, 5)(t))
        out.append(L.RandomCrop(7, 9)(t))
        # A factor of 0 draws nothing that changes the image.
        out.append(L.RandomRotation(0.0)(t))
        out.append(L.RandomTranslation(0.0, 0.0)(t))
        out.append(L.RandomContrast(0.0, value_range=(0, 1))(t))
        # Dict inputs: images transformed, labels untouched, masks by nearest.
        masks = tf.constant(rng.integers(0, 3, (2, 7, 9, 1)).astype("float32"))
        result = L.RandomZoom((0.4, 0.4))(
            {"images": t, "labels": tf.constant([[1.0], [2.0]]), "segmentation_masks": masks}
        )
        out.append(result)
        out.append(L.Resizing(4, 5)({"images": t[0], "segmentation_masks": masks[0]}))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_deterministic_transforms(tf_oracle, device):
    assert_parity(tf_oracle, _deterministic, (device,), rtol=1e-5, atol=2e-6)


def _random_statistics(tf):
    """Properties of the draws that hold for TensorFlow's Keras and ferroflow alike."""
    import numpy as np

    L = tf.keras.layers
    x = np.arange(64 * 4 * 4, dtype="float32").reshape(64, 4, 4, 1)
    out = []
    flipped = L.RandomFlip("horizontal", seed=3)(x).numpy()
    changed = np.any(flipped != x, axis=(1, 2, 3))
    mirrored = np.all(flipped == x[:, :, ::-1], axis=(1, 2, 3))
    out.append((bool(np.all(changed == mirrored)), 10 < changed.sum() < 54))
    layer = L.RandomRotation(0.25, fill_mode="constant", seed=1)
    one = tf.constant(np.ones((64, 5, 5, 1), "float32"))
    step = tf.function(lambda v: layer(v, training=True))
    first, second = step(one).numpy(), step(one).numpy()
    out.append(bool(np.any(first != second)))
    bright = L.RandomBrightness(0.2, value_range=(0, 1), seed=2)
    ds = tf.data.Dataset.from_tensor_slices(np.full((64, 2, 2, 1), 0.5, "float32")).map(bright)
    values = np.array([float(v[0, 0, 0]) for v in ds.as_numpy_iterator()])
    out.append((bool(np.all((values >= 0.3) & (values <= 0.7))), len(set(values.tolist())) > 32))
    contrast = L.RandomContrast((0.2, 0.2), value_range=(-10, 10), seed=4)
    ramp = tf.constant(np.tile(np.array([-1.0, 1.0], "float32"), (256, 1, 1)).reshape(256, 1, 2, 1))
    scale = contrast(ramp).numpy()[:, 0, 1, 0]
    out.append((bool(scale.min() >= 0.8 and scale.max() <= 1.2), bool(scale.std() > 0.05)))
    # Inside Dataset.map each element draws its own flip; a traced zoom draws per call.
    flip = L.RandomFlip("horizontal", seed=6)
    ramp = np.arange(4, dtype="float32").reshape(1, 4, 1)
    flips = tf.data.Dataset.from_tensor_slices(np.tile(ramp[None], (40, 1, 1, 1))).map(flip)
    firsts = [float(v[0, 0, 0]) for v in flips.as_numpy_iterator()]
    out.append(sorted(set(firsts)) == [0.0, 3.0])
    zoom = L.RandomZoom(0.5, seed=7)
    traced = tf.function(lambda v: zoom(v, training=True))
    image = tf.constant(x[:2])
    out.append(bool(np.any(traced(image).numpy() != traced(image).numpy())))
    crop = L.RandomCrop(2, 2, seed=5)
    crops = np.stack([crop(x[:1]).numpy()[0, 0, 0, 0] for _ in range(40)])
    out.append(set(crops.tolist()) <= {0.0, 1.0, 2.0, 4.0, 5.0, 6.0, 8.0, 9.0, 10.0})
    out.append(len(set(crops.tolist())) > 3)
    return out


def test_random_draws(tf_oracle):
    assert_parity(tf_oracle, _random_statistics, ())


def _configs_and_errors(tf):
    import numpy as np

    L = tf.keras.layers
    out = []
    for layer in (
        L.Resizing(3, 4, interpolation="nearest", crop_to_aspect_ratio=True),
        L.CenterCrop(2, 3, data_format="channels_first"),
        L.RandomFlip("vertical", seed=1),
        L.RandomRotation((-0.1, 0.3), fill_mode="wrap", seed=2),
        L.RandomZoom(0.2, (-0.1, 0.1), interpolation="nearest"),
        L.RandomTranslation(0.1, 0.2, fill_mode="constant", fill_value=1.0),
        L.RandomContrast(0.4),
        L.RandomBrightness((-0.2, 0.1), value_range=(1, 0)),
        L.RandomCrop(3, 3, seed=4),
        L.AutoContrast(value_range=(1, 0)),
        L.Solarization(0.3, (0.2, 0.5)),
        L.RandomGrayscale(0.3),
        L.RandomInvert(0.4),
    ):
        config = layer.get_config()
        back = type(layer).from_config(config)
        out.append((type(layer).__name__, layer.name, config, back.get_config() == config))
    out += error_classes(
        [
            lambda: L.Resizing(3, 4, interpolation="cubic")(tf.ones((1, 5, 5, 1))),
            lambda: L.Resizing(3, 4, fill_mode="reflect")(tf.ones((1, 5, 5, 1))),
            lambda: L.Resizing(3, 4, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)(
                tf.ones((1, 5, 5, 1))
            ),
            lambda: L.Resizing(3, 4)(tf.ones((5, 5))),
            lambda: L.RandomRotation(1.5),
            lambda: L.RandomRotation(0.2, fill_mode="mirror"),
            lambda: L.RandomRotation(0.2, interpolation="bicubic"),
            lambda: L.RandomZoom(-1.0),
            lambda: L.RandomZoom((0.1, 0.2, 0.3)),
            lambda: L.RandomTranslation(1.2, 0.1),
            lambda: L.RandomTranslation(0.1, "a"),
            lambda: L.RandomContrast(1.5),
            lambda: L.RandomBrightness(0.2, value_range=(0, 1, 2)),
            lambda: L.RandomFlip()(tf.ones((2, 2))),
            lambda: L.Solarization(1.5),
            lambda: L.RandomGrayscale(2.0),
            lambda: L.CenterCrop(2, 2, data_format="nchw"),
            lambda: L.RandomFlip()({"images": tf.ones((1, 3, 3, 1)), "bounding_boxes": {}}),
        ]
    )
    t = tf.constant(np.random.default_rng(3).uniform(0, 255, (2, 7, 9, 3)).astype("float32"))
    out.append(L.RandAugment()(t, training=False))
    out.append(L.AugMix()(t, training=False))
    for layer in (
        L.RandAugment(seed=1),
        L.AugMix(seed=1),
        L.RandomErasing(),
        L.MixUp(),
        L.CutMix(),
        L.RandomPerspective(),
        L.RandomShear(0.2),
        L.RandomGaussianBlur(),
    ):
        y = layer(t)
        config = layer.get_config()
        config.pop("name")
        out.append((y.shape, y.dtype, config))
    out.append(L.Pipeline([L.Resizing(4, 4), L.CenterCrop(3, 3)], name="p").get_config())
    # The deprecated RandomHeight/RandomWidth with a pinned factor.
    out.append(L.RandomHeight((0.5, 0.5))(t))
    out.append(L.RandomWidth((-0.4, -0.4), interpolation="nearest")(t))
    out.append(L.RandomHeight((0.3, 0.3))(t[0]))
    out.append(L.RandomHeight(0.3)(t, training=False))
    out.append(L.RandomHeight(0.2, seed=3).get_config())
    out.append(L.RandomWidth(0.2).compute_output_shape((None, 7, 9, 3)))
    out += error_classes([lambda: L.RandomHeight((0.5, 0.2)), lambda: L.RandomWidth(-1.5)])
    inputs = tf.keras.Input((8, 6, 3))
    shapes = []
    for layer in (L.Resizing(4, 5), L.CenterCrop(3, 2), L.RandomCrop(5, 5), L.RandomFlip()):
        shapes.append(tuple(layer(inputs).shape))
    images = tf.keras.Input((8, 6, 3), dtype="uint8")
    for layer in (
        L.Resizing(4, 5),
        L.Equalization(),
        L.RandomGrayscale(),
        L.RandomHeight(0.2),
        L.Pipeline([L.Resizing(4, 4), L.RandomFlip()]),
    ):
        y = layer(images)
        shapes.append((tuple(y.shape), str(y.dtype)))
    out.append(shapes)
    return out


def test_configs_errors_and_shapes(tf_oracle):
    assert_parity(tf_oracle, _configs_and_errors, (), helpers=[error_classes])


def _in_models(tf):
    import numpy as np

    L = tf.keras.layers
    model = tf.keras.Sequential(
        [
            tf.keras.Input((6, 6, 1)),
            L.Resizing(4, 4),
            L.RandomFlip(seed=1),
            L.RandomRotation(0.1, seed=2),
            L.RandomZoom(0.1, seed=3),
            L.Flatten(),
            L.Dense(1, kernel_initializer="ones"),
        ]
    )
    model.compile(optimizer="sgd", loss="mse")
    x = np.linspace(0, 1, 8 * 36, dtype="float32").reshape(8, 6, 6, 1)
    history = model.fit(x, np.zeros((8, 1), "float32"), epochs=1, verbose=0)
    # Inference skips the random layers: only Resizing and the (trained) Dense act.
    predicted = model.predict(x, verbose=0)
    expected = model.layers[-1](L.Flatten()(L.Resizing(4, 4)(x)))
    ds = tf.data.Dataset.from_tensor_slices(x).batch(4).map(L.Resizing(3, 3))
    return [
        sorted(history.history),
        np.allclose(predicted, expected, atol=1e-5),
        [b.shape for b in ds],
    ]


def test_in_models_and_datasets(tf_oracle):
    assert_parity(tf_oracle, _in_models, ())


def _color_and_audio(tf, device):
    import numpy as np

    L = tf.keras.layers
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 255, (2, 7, 9, 3)).astype("float32")
    audio = rng.normal(size=(2, 3000)).astype("float32")
    out = []
    with tf.device(device):
        t = tf.constant(x)
        first = tf.transpose(t, [0, 3, 1, 2])
        out.append(L.Equalization()(t))
        out.append(L.Equalization(value_range=(0, 1), bins=16)(t / 255))
        out.append(L.Equalization()(tf.ones((1, 3, 3, 2))))
        out.append(L.Equalization(data_format="channels_first")(first))
        out.append(L.Equalization()(t, training=False))
        out.append(L.RandomHue(0.5).transform_images(t, {"factor": tf.constant([0.2, -0.3])}))
        out.append(L.RandomSaturation(0.5).transform_images(t, {"factor": tf.constant([0.2, 3.0])}))
        factor = tf.constant([0.2, 0.7], shape=(2, 1, 1, 1))
        out.append(L.RandomColorDegeneration(0.5).transform_images(t, {"factor": factor}))
        out.append(L.RandomPosterization((3, 3))(t))
        shifts = {"shift_factor": tf.constant([2, 5], "uint8")}
        out.append(L.RandomPosterization(6).transform_images(t, shifts))
        sharpness = {"factor": tf.constant([0.2, 0.9])}
        out.append(L.RandomSharpness(0.5).transform_images(t, sharpness))
        out.append(
            L.RandomSharpness(0.5, data_format="channels_first").transform_images(first, sharpness)
        )
        out.append(L.RandomColorJitter(brightness_factor=0.2, hue_factor=0.2)(t, training=False))
        out.append(L.RandomColorJitter(brightness_factor=(0.1, 0.1))(t))
        out.append(
            L.MelSpectrogram(
                fft_length=256, sequence_stride=128, num_mel_bins=20, sampling_rate=8000
            )(audio)
        )
        out.append(
            L.MelSpectrogram(
                fft_length=512,
                sequence_length=400,
                sequence_stride=160,
                num_mel_bins=40,
                power_to_db=False,
                window="hamming",
                mag_exp=1.0,
            )(audio)
        )
        out.append(
            L.MelSpectrogram(
                fft_length=256,
                sequence_stride=100,
                num_mel_bins=16,
                window=None,
                ref_power=2.0,
                top_db=20.0,
            )(audio[0])
        )
        signal = rng.normal(size=(2, 300, 2)).astype("float32")
        stft = L.STFTSpectrogram
        for mode in ["log", "magnitude", "psd", "real", "imag", "angle", "stft"]:
            layer = stft(mode=mode, frame_length=48, frame_step=16, fft_length=64, window=None)
            out.append(layer(signal))
        layer = stft(
            mode="magnitude",
            frame_length=30,
            padding="same",
            window=None,
            scaling="spectrum",
            data_format="channels_first",
            expand_dims=True,
        )
        out.append(layer(np.transpose(signal, (0, 2, 1))))
    mel = L.MelSpectrogram(fft_length=64, sequence_stride=16)
    out.append(mel.compute_output_shape((None, 200)))
    layer = L.STFTSpectrogram(window=None, frame_length=16, frame_step=10, padding="same")
    layer.build((None, 100, 1))
    out.append([(w.path, tuple(w.shape), w.trainable) for w in layer.weights])
    out.append(layer.compute_output_shape((None, 101, 3)))
    config = layer.get_config()
    config.pop("name")
    out.append(config)
    out += error_classes(
        [
            lambda: L.STFTSpectrogram(frame_step=300, window=None),
            lambda: L.STFTSpectrogram(fft_length=16, window=None),
            lambda: L.STFTSpectrogram(mode="x", window=None),
            lambda: L.STFTSpectrogram(padding="x", window=None),
            lambda: L.STFTSpectrogram(window=None)(np.ones((1, 300, 1), "int32")),
            lambda: L.STFTSpectrogram(window=None)(np.ones((300, 1), "float32")),
        ]
    )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_color_and_audio(tf_oracle, device):
    assert_parity(
        tf_oracle, _color_and_audio, (device,), rtol=1e-5, atol=1e-4, helpers=[error_classes]
    )


def _stft_named_windows(tf, device):
    # Keras builds a named window with SciPy's get_window (SciPy is a test dependency of both
    # environments); ferroflow computes the cosine windows itself and asks SciPy for the others.
    import numpy as np

    stft = tf.keras.layers.STFTSpectrogram
    rng = np.random.default_rng(2)
    signal = rng.normal(size=(2, 300, 2)).astype("float32")
    out = []
    with tf.device(device):
        cases = [
            dict(mode="real"),
            dict(mode="imag", window="hamming", periodic=True),
            dict(mode="magnitude", window="hann", periodic=True, scaling="spectrum"),
            dict(mode="psd", window="boxcar", scaling=None),
            dict(mode="angle", window="blackman", periodic=True),
            dict(mode="log", window="hamming", padding="same", expand_dims=True),
        ]
        for kwargs in cases:
            layer = stft(frame_length=48, frame_step=16, fft_length=64, **kwargs)
            out.append(layer(signal))
        layer = stft(frame_length=32, frame_step=20)
        layer.build((None, 100, 1))
        out.append([w.numpy() for w in layer.weights])
    # SciPy refuses an unknown window name.
    out += error_classes([lambda: stft(window="no-such-window")])
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_stft_named_windows(tf_oracle, device):
    require_modules(tf_oracle, "scipy")
    assert_parity(
        tf_oracle, _stft_named_windows, (device,), rtol=1e-5, atol=1e-4, helpers=[error_classes]
    )


def _warps_mixes_and_composites(tf, device):
    import numpy as np

    L = tf.keras.layers
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 255, (2, 7, 9, 3)).astype("float32")
    labels = tf.constant([[1.0, 0.0], [0.0, 1.0]])
    out = []
    with tf.device(device):
        t = tf.constant(x)
        shear = {"shear_factor": tf.constant([[0.3, -0.2], [-0.6, 0.1]])}
        for fill_mode in ["reflect", "constant"]:
            for interpolation in ["bilinear", "nearest"]:
                layer = L.RandomShear(0.5, 0.5, fill_mode=fill_mode, interpolation=interpolation)
                out.append(layer.transform_images(t, shear))
        corners = np.array([[[0.0, 0.0], [8.0, 0.0], [0.0, 6.0], [8.0, 6.0]]] * 2, "float32")
        moves = np.array(
            [
                [[0.1, -0.2], [0.05, 0.1], [-0.1, 0.2], [0.2, -0.1]],
                [[-0.1, 0.1], [0.15, -0.05], [0.1, 0.0], [-0.2, 0.1]],
            ],
            "float32",
        )
        perspective = {
            "apply_perspective": tf.constant([True, False]),
            "start_points": tf.constant(corners),
            "end_points": tf.constant(corners + corners * moves),
        }
        for interpolation in ["bilinear", "nearest"]:
            layer = L.RandomPerspective(interpolation=interpolation, fill_value=3.0)
            out.append(layer.transform_images(t, perspective))
        blur = {
            "should_apply_blur": tf.constant([True, False]),
            "blur_factor": tf.constant([0.8, 1.5]),
        }
        out.append(L.RandomGaussianBlur(kernel_size=3).transform_images(t, blur))
        out.append(
            L.RandomGaussianBlur(kernel_size=(5, 3), value_range=(0, 100)).transform_images(t, blur)
        )
        masks = np.zeros((2, 7, 9, 3), bool)
        masks[0, 2:5, 3:7] = True
        masks[1, 0:2, :] = True
        erase = {
            "apply_erasing": tf.constant([True, True]),
            "batch_masks": tf.constant(masks),
            "fill_value": tf.fill([2, 7, 9, 3], 7.0),
        }
        out.append(L.RandomErasing(fill_value=7.0).transform_images(t, erase))
        mix = {"mix_weight": tf.constant([0.3, 0.8]), "permutation_order": tf.constant([1, 0])}
        out.append(L.MixUp().transform_images(t, mix))
        out.append(L.MixUp().transform_labels(labels, mix))
        cut = {**mix, "batch_masks": tf.constant(masks)}
        out.append(L.CutMix().transform_images(t, cut))
        out.append(L.CutMix().transform_labels(labels, cut))
        pipeline = L.Pipeline([L.Resizing(4, 4), L.RandomFlip(), L.CenterCrop(3, 3)])
        out.append(pipeline(t, training=False))
        boxes = {"boxes": tf.ones((2, 5, 4)), "labels": tf.ones((2, 5))}
        for count in (3, 6):
            layer = L.MaxNumBoundingBoxes(count, bounding_box_format="xyxy")
            out.append(layer({"images": t, "bounding_boxes": boxes}))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_warps_mixes_and_composites(tf_oracle, device):
    assert_parity(tf_oracle, _warps_mixes_and_composites, (device,), rtol=1e-5, atol=1e-4)


def _clahe_and_elastic(tf, device):
    import numpy as np

    L = tf.keras.layers
    x = np.random.default_rng(4).uniform(0, 255, (2, 13, 17, 3)).astype("float32")
    out = []
    with tf.device(device):
        t = tf.constant(x)
        clahe = L.ContrastLimitedAdaptiveHistogramEqualization
        out.append(clahe()(t))
        out.append(clahe(clip_limit=2.0, tile_grid_size=(3, 4))(t))
        out.append(clahe(clip_limit=0, tile_grid_size=(2, 2))(t))
        out.append(clahe(value_range=(0, 1), tile_grid_size=(4, 4))(t / 255))
        out.append(clahe(tile_grid_size=(4, 4))(tf.constant(x.astype("uint8"))))
        out.append(
            clahe(tile_grid_size=(3, 3), data_format="channels_first")(
                tf.transpose(t, [0, 3, 1, 2])
            )
        )
        out.append(clahe(tile_grid_size=(3, 3))(t[0], training=False))
        # The elastic warp given the same noise seed, in every fill mode and interpolation.
        case = 0
        for fill_mode in ["reflect", "wrap", "constant", "nearest"]:
            for interpolation in ["bilinear", "nearest"]:
                layer = L.RandomElasticTransform(
                    fill_mode=fill_mode, interpolation=interpolation, fill_value=9.0
                )
                transformation = {
                    "apply_transform": tf.constant([True, False]),
                    "distortion_factor": tf.constant([0.5, 1.0][case % 2]),
                    "seed": 5,
                }
                case += 1
                out.append(layer.transform_images(t, transformation))
        out.append(L.RandomElasticTransform()(t, training=False))
        out.append(L.RandomElasticTransform(factor=0.0)(t))
        out.append(L.RandomElasticTransform(seed=1)(t).shape)
    config = L.RandomElasticTransform(scale=(0.2, 0.5)).get_config()
    config.pop("name")
    out.append(config)
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_clahe_and_elastic(tf_oracle, device):
    assert_parity(tf_oracle, _clahe_and_elastic, (device,), rtol=1e-5, atol=1e-3)


def _bounding_boxes(tf):
    import numpy as np

    L = tf.keras.layers
    x = np.random.default_rng(5).uniform(0, 255, (2, 7, 9, 3)).astype("float32")
    corners = np.array(
        [
            [[1, 2, 5, 6], [0, 0, 9, 7], [-1, -1, -1, -1]],
            [[3, 1, 8, 4], [2, 2, 2, 5], [0, 0, 0, 0]],
        ],
        "float32",
    )
    labels = np.array([[1, 2, -1], [3, 4, 0]], "int32")
    boxes = {"boxes": tf.constant(corners), "labels": tf.constant(labels)}
    scale = np.array([9, 7, 9, 7], "float32")
    relative = {"boxes": tf.constant(corners / scale), "labels": tf.constant(labels)}
    out = []
    images = tf.constant(x)
    cases = [{}, {"crop_to_aspect_ratio": True}, {"pad_to_aspect_ratio": True}]
    for i, fmt in enumerate(["xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw"]):
        for j, kwargs in enumerate(cases):
            size = [(4, 5), (10, 4)][(i + j) % 2]
            layer = L.Resizing(*size, bounding_box_format=fmt, **kwargs)
            out.append(layer({"images": images, "bounding_boxes": boxes}))
    for fmt in ["rel_xyxy", "rel_yxyx", "rel_xywh", "rel_center_xywh"]:
        layer = L.Resizing(4, 5, bounding_box_format=fmt)
        out.append(layer({"images": images, "bounding_boxes": relative}))
    one = {"boxes": boxes["boxes"][0], "labels": boxes["labels"][0]}
    out.append(
        L.Resizing(4, 5, bounding_box_format="xyxy")({"images": images[0], "bounding_boxes": one})
    )
    flips = {"flips": tf.constant([True, False], shape=(2, 1, 1, 1)), "input_shape": (2, 7, 9, 3)}
    for mode in ["horizontal", "vertical", "horizontal_and_vertical"]:
        for fmt, source in [("xyxy", boxes), ("rel_xyxy", relative), ("center_yxhw", boxes)]:
            layer = L.RandomFlip(mode, bounding_box_format=fmt)
            out.append(layer.transform_bounding_boxes(dict(source), flips))
    flip = L.RandomFlip(bounding_box_format="xyxy")
    out.append(flip({"images": images, "bounding_boxes": boxes}, training=False))
    out.append(
        L.MaxNumBoundingBoxes(2, bounding_box_format="xyxy")(
            {"images": images[0], "bounding_boxes": one}
        )
    )
    out += error_classes(
        [
            lambda: L.RandomFlip()({"images": images, "bounding_boxes": boxes}),
            lambda: L.Resizing(4, 5, bounding_box_format="xyxy")(
                {"images": images, "bounding_boxes": {"boxes": boxes["boxes"]}}
            ),
            lambda: L.Resizing(4, 5, bounding_box_format="xyz")(
                {"images": images, "bounding_boxes": boxes}
            ),
        ]
    )
    return out


def test_bounding_boxes(tf_oracle):
    assert_parity(tf_oracle, _bounding_boxes, (), rtol=1e-5, atol=1e-5, helpers=[error_classes])
