"""Bounding boxes through Keras 3's image preprocessing layers against Keras under TensorFlow
2.21, on both devices: seeded random layers draw Keras's numbers, so the boxes (and the
labels of boxes clipped away) must be Keras's, in every box format, batched and single
images, ``channels_first``, at inference, inside a traced function and `tf.data.Dataset.map`;
the layers Keras leaves boxes alone in, and those that raise."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _layers(tf):
    """The box-moving layers, each made fresh (seeded) by calling its maker."""
    L = tf.keras.layers
    return {
        "center_crop": lambda f: L.CenterCrop(5, 6, bounding_box_format=f),
        "center_crop_up": lambda f: L.CenterCrop(9, 8, bounding_box_format=f),
        "random_crop": lambda f: L.RandomCrop(5, 6, seed=3, bounding_box_format=f),
        "random_crop_up": lambda f: L.RandomCrop(9, 6, seed=3, bounding_box_format=f),
        "translation": lambda f: L.RandomTranslation(0.3, 0.4, seed=1, bounding_box_format=f),
        "zoom": lambda f: L.RandomZoom(0.4, seed=2, bounding_box_format=f),
        "zoom_xy": lambda f: L.RandomZoom((-0.5, 0.3), 0.4, seed=2, bounding_box_format=f),
        "rotation": lambda f: L.RandomRotation(0.2, seed=4, bounding_box_format=f),
        "shear": lambda f: L.RandomShear(0.3, 0.4, seed=5, bounding_box_format=f),
        "perspective": lambda f: L.RandomPerspective(0.8, seed=6, bounding_box_format=f),
        "mix_up": lambda f: L.MixUp(seed=7, bounding_box_format=f),
        "rand_augment": lambda f: L.RandAugment(num_ops=3, seed=8, bounding_box_format=f),
        "flip": lambda f: L.RandomFlip(seed=9, bounding_box_format=f),
    }


def _data(tf):
    import numpy as np

    x = np.random.default_rng(5).uniform(0, 255, (3, 7, 9, 3)).astype("float32")
    corners = np.array(
        [
            [[1, 2, 5, 6], [0, 0, 9, 7], [6, 1, 8, 3]],
            [[3, 1, 8, 4], [2, 2, 2.5, 5], [7.5, 5.5, 9, 7]],
            [[0.5, 0.5, 1.5, 6], [4, 3, 5, 4], [0, 6, 3, 7]],
        ],
        "float32",
    )
    labels = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], "int32")
    return x, corners, labels


def _boxes_in(tf, corners, labels, fmt):
    convert = tf.keras.utils.bounding_boxes.convert_format
    boxes = convert(tf.constant(corners), "xyxy", fmt, height=7, width=9)
    return {"boxes": boxes, "labels": tf.constant(labels)}


def _every_layer_and_format(tf, device):
    x, corners, labels = _data(tf)
    makers = _layers(tf)
    out = []
    with tf.device(device):
        images = tf.constant(x)
        for name, make in makers.items():
            for fmt in ["xyxy", "center_yxhw", "rel_xywh"]:
                boxes = _boxes_in(tf, corners, labels, fmt)
                result = make(fmt)({"images": images, "bounding_boxes": boxes})
                out.append((name, fmt, result["bounding_boxes"]))
        # Inference leaves the boxes (as float32) where they are, except CenterCrop's.
        for name in ["center_crop", "random_crop", "zoom", "rotation", "perspective", "mix_up"]:
            boxes = _boxes_in(tf, corners, labels, "xyxy")
            layer = makers[name]("xyxy")
            result = layer({"images": images, "bounding_boxes": boxes}, training=False)
            out.append((name, result["bounding_boxes"]))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_every_layer_and_format(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _every_layer_and_format,
        (device,),
        rtol=1e-5,
        atol=1e-4,
        helpers=[_layers, _data, _boxes_in],
    )


def _single_images_channels_first_and_traces(tf, device):
    import numpy as np

    x, corners, labels = _data(tf)
    makers = _layers(tf)
    L = tf.keras.layers
    names = ["center_crop", "translation", "zoom", "rotation", "shear", "perspective", "flip"]
    out = []
    with tf.device(device):
        images = tf.constant(x)
        boxes = _boxes_in(tf, corners, labels, "xyxy")
        for name in names + ["random_crop", "rand_augment", "mix_up"]:
            layer = makers[name]("xyxy")
            one = {"boxes": boxes["boxes"][1], "labels": boxes["labels"][1]}
            try:  # MixUp's labels come back twice as long: Keras cannot squeeze them
                out.append(layer({"images": images[1], "bounding_boxes": one})["bounding_boxes"])
            except ValueError as e:
                out.append(type(e).__name__)
        first = tf.transpose(images, [0, 3, 1, 2])
        for make in [
            lambda: L.RandomZoom(0.4, seed=2, data_format="channels_first"),
            lambda: L.RandomTranslation(0.3, 0.4, seed=1, data_format="channels_first"),
            lambda: L.RandomShear(0.3, 0.4, seed=5, data_format="channels_first"),
            lambda: L.CenterCrop(5, 6, data_format="channels_first"),
            lambda: L.RandomRotation(0.2, seed=1, data_format="channels_first"),
            lambda: L.RandomPerspective(seed=1, data_format="channels_first"),
            lambda: L.RandomCrop(4, 5, seed=1, data_format="channels_first"),
        ]:
            layer = make()
            layer.bounding_box_format = "xyxy"
            out.append(layer({"images": first, "bounding_boxes": boxes})["bounding_boxes"])
        # A traced call draws on each call, as an eager one does.
        for name in names + ["random_crop", "rand_augment", "mix_up"]:
            layer = makers[name]("xyxy")
            step = tf.function(lambda d, layer=layer: layer(d, training=True))
            data = {"images": images, "bounding_boxes": boxes}
            try:  # Keras's MixUp moves boxes only eagerly
                out.append([step(data)["bounding_boxes"] for _ in range(2)])
            except NotImplementedError as e:
                out.append(type(e).__name__)
    # Dataset.map: one image (and its boxes) per element.
    for name in ["zoom", "rotation", "translation"]:
        layer = makers[name]("xyxy")
        ds = tf.data.Dataset.from_tensor_slices(
            {"images": x, "bounding_boxes": {"boxes": corners, "labels": labels}}
        ).map(layer)
        out.append([np.asarray(e["bounding_boxes"]["boxes"]) for e in ds.as_numpy_iterator()])
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_single_images_channels_first_and_traces(tf_oracle, device):
    assert_parity(
        tf_oracle,
        _single_images_channels_first_and_traces,
        (device,),
        rtol=1e-5,
        atol=1e-4,
        helpers=[_layers, _data, _boxes_in],
    )


def _unchanged_and_refused(tf):
    x, corners, labels = _data(tf)
    L = tf.keras.layers
    images = tf.constant(x)
    boxes = _boxes_in(tf, corners, labels, "xyxy")
    data = {"images": images, "bounding_boxes": boxes}
    out = []
    for layer in [
        L.AugMix(seed=1),
        L.RandomColorJitter(brightness_factor=0.2, seed=1),
        L.RandomErasing(seed=1),
        L.RandomBrightness(0.2, seed=1),
        L.Solarization(0.5, seed=1),
        L.Equalization(),
        L.RandomHue(0.2, seed=1),
    ]:
        layer.bounding_box_format = "xyxy"
        out.append(layer(dict(data))["bounding_boxes"])
    out += error_classes(
        [
            lambda: L.CutMix(seed=1, bounding_box_format="xyxy")(dict(data)),
            lambda: L.RandomElasticTransform(seed=1, bounding_box_format="xyxy")(dict(data)),
            lambda: L.ContrastLimitedAdaptiveHistogramEqualization(bounding_box_format="xyxy")(
                dict(data)
            ),
            lambda: L.RandomZoom(0.2)(dict(data)),
            lambda: L.RandomGrayscale(bounding_box_format="xyxy")(dict(data)),
        ]
    )
    return out


def _inputs_as_given(tf):
    """Boxes as NumPy arrays (labels keep their dtype), RaggedTensors (padded with zero
    boxes and -1 labels) and Python lists (which Keras 3 refuses), and Keras's checks."""
    import numpy as np

    L = tf.keras.layers
    x = np.zeros((2, 7, 9, 3), "float32")
    ragged = tf.ragged.constant([[[1.0, 2, 5, 6]], [[0, 0, 9, 7], [1, 1, 2, 2]]], ragged_rank=1)
    cases = [
        (np.array([[[1, 2, 5, 6]], [[0, 0, 9, 7]]]), np.array([[1], [2]])),
        (np.array([[[1, 2, 5, 6]], [[0, 0, 9, 7]]], "float64"), np.array([[1.0], [2.0]])),
        (np.zeros((2, 1, 4)), np.zeros((2, 1, 3))),
        ([[[1, 2, 5, 6]], [[0, 0, 9, 7]]], [[1], [2]]),
        ([[[1, 2, 5, 6]], [[0, 0, 9, 7]]], [[1.0], [2.0]]),
        ([[1, 2, 5, 6]], [1]),
        ([[1, 2, 5, 6]], np.array([1])),
        ([[[1, 2, 5, 6]], [[0, 0, 9, 7]]], [[1], [2], [3]]),
        (np.zeros((2, 1, 1, 4)), np.zeros((2, 1))),
        (np.zeros((2, 1, 4)), np.zeros((2,))),
        (np.zeros((1, 4)), np.zeros((1, 1, 1))),
    ]
    out = []
    for boxes, labels in cases:
        for training in (False, True):
            layer = L.RandomFlip(bounding_box_format="xyxy", seed=1)
            data = {"images": x, "bounding_boxes": {"boxes": boxes, "labels": labels}}
            try:
                out.append(layer(data, training=training)["bounding_boxes"])
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
    images = tf.constant(x)
    for labels in [tf.ragged.constant([[1], [2, 3]]), tf.ragged.constant([[1.0], [2.0, 3]])]:
        layer = L.RandomZoom(0.3, bounding_box_format="xyxy", seed=1)
        data = {"images": images, "bounding_boxes": {"boxes": ragged, "labels": labels}}
        out.append(layer(data)["bounding_boxes"])
    layer = L.RandomZoom(0.3, bounding_box_format="xyxy", seed=1)
    data = {"images": images, "bounding_boxes": {"boxes": ragged, "labels": tf.constant([1])}}
    out += error_classes([lambda: layer(data)])
    # Tensors mixed with arrays or lists: arrays count as tensors where the layer converts.
    nested = {"boxes": [[[1.0, 2, 5, 6]]], "labels": [[1]]}
    ragged_labels = tf.ragged.constant([[1], [2, 3]])
    for given in [{"boxes": ragged, "labels": ragged_labels}, nested]:
        for make in [
            lambda: L.RandomZoom(0.2, bounding_box_format="xyxy"),
            lambda: L.RandomFlip(bounding_box_format="xyxy"),
            lambda: L.RandomCrop(3, 3, bounding_box_format="xyxy"),
        ]:
            for pictures in [x, images]:
                data = {"images": pictures, "bounding_boxes": given}
                out += error_classes([lambda make=make, data=data: make()(data)])
    # Last: after this call Keras's traced CenterCrop loses its boxes (state it leaves).
    flip = L.RandomFlip(seed=1, data_format="channels_first", bounding_box_format="xyxy")
    first = tf.transpose(tf.constant(x), [0, 3, 1, 2])
    boxes = {"boxes": tf.constant([[[1.0, 2, 5, 6]], [[0, 1, 4, 7]]]), "labels": tf.ones([2, 1])}
    out.append(flip({"images": first, "bounding_boxes": boxes})["bounding_boxes"])
    return out


def test_inputs_as_given(tf_oracle):
    assert_parity(tf_oracle, _inputs_as_given, (), rtol=1e-5, atol=1e-5, helpers=[error_classes])


def test_unchanged_and_refused(tf_oracle):
    assert_parity(
        tf_oracle,
        _unchanged_and_refused,
        (),
        rtol=1e-5,
        atol=1e-5,
        helpers=[_data, _boxes_in, error_classes],
    )


def _input_dtypes(tf):
    """What each layer returns for float64 and integer images: Keras casts floating inputs
    (labels and boxes too) to the compute dtype, except in RandomFlip and RandomCrop."""
    import numpy as np

    L = tf.keras.layers
    sized = {"CenterCrop": (4, 4), "RandomCrop": (4, 4), "Resizing": (4, 4)}
    factored = ["RandomBrightness", "RandomContrast", "RandomColorDegeneration", "RandomHue"]
    factored += ["RandomSaturation", "RandomSharpness", "RandomRotation", "RandomZoom"]
    names = ["AutoContrast", "Equalization", "MixUp", "RandAugment", "RandomColorJitter"]
    names += ["RandomErasing", "RandomFlip", "RandomGaussianBlur", "RandomGrayscale"]
    names += ["RandomInvert", "RandomPerspective", "RandomShear", "Solarization", "CutMix"]
    makers = {name: (lambda name=name: getattr(L, name)()) for name in names}
    makers.update({n: (lambda n=n: getattr(L, n)(*sized[n])) for n in sized})
    makers.update({n: (lambda n=n: getattr(L, n)(0.2)) for n in factored})
    makers["RandomTranslation"] = lambda: L.RandomTranslation(0.2, 0.2)
    makers["RandomPosterization"] = lambda: L.RandomPosterization((1, 4))
    x = np.random.RandomState(0).uniform(0, 200, (2, 6, 6, 3))
    out = []
    for make in makers.values():
        for dtype in ["float64", "uint8"]:
            for training in (False, True):
                try:
                    out.append(make()(tf.constant(x.astype(dtype)), training=training).dtype.name)
                except Exception as e:  # noqa: BLE001 - the class is what is compared
                    out.append(type(e).__name__)
    boxes = {"boxes": tf.zeros((2, 1, 4), "float64"), "labels": tf.zeros((2, 1), "float64")}
    data = {
        "images": tf.constant(x),
        "bounding_boxes": boxes,
        "labels": tf.zeros((2, 1), "float64"),
    }
    for layer in [
        L.RandomFlip(bounding_box_format="xyxy"),
        L.RandomCrop(4, 4, bounding_box_format="xyxy"),
        L.RandomZoom(0.2, bounding_box_format="xyxy"),
        L.MaxNumBoundingBoxes(3, bounding_box_format="xyxy"),
        L.Pipeline([L.RandomFlip(bounding_box_format="xyxy")]),
        L.Pipeline([L.RandomZoom(0.2, bounding_box_format="xyxy")]),
    ]:
        result = layer(dict(data), training=False)
        out.append(tf.nest.map_structure(lambda t: t.dtype.name, result))
    out += error_classes([lambda: L.Pipeline([])(dict(data))])
    return out


def test_input_dtypes(tf_oracle):
    assert_parity(tf_oracle, _input_dtypes, (), helpers=[error_classes])


def _policies_and_run_time_sizes(tf):
    """Boxes under float16 and float64 dtype policies, and in a function traced for images
    of any size (some of Keras's box transforms fail there, and must fail alike)."""
    L = tf.keras.layers
    x, corners, labels = _data(tf)
    boxes = {"boxes": tf.constant(corners), "labels": tf.constant(labels)}
    data = {"images": tf.constant(x), "bounding_boxes": boxes}
    spec = {
        "images": tf.TensorSpec([None, None, None, 3]),
        "bounding_boxes": {
            "boxes": tf.TensorSpec([None, None, 4]),
            "labels": tf.TensorSpec([None, None], tf.int32),
        },
    }
    out = []
    for make in [
        lambda **k: L.RandomShear(0.3, 0.4, seed=5, bounding_box_format="rel_xyxy", **k),
        lambda **k: L.RandomZoom(0.3, seed=5, bounding_box_format="xyxy", **k),
        lambda **k: L.RandomRotation(0.3, seed=5, bounding_box_format="xyxy", **k),
        lambda **k: L.RandomPerspective(seed=5, bounding_box_format="xyxy", **k),
        lambda **k: L.RandomTranslation(0.3, 0.3, seed=5, bounding_box_format="xyxy", **k),
        lambda **k: L.CenterCrop(5, 5, bounding_box_format="xyxy", **k),
        lambda **k: L.RandAugment(seed=5, bounding_box_format="xyxy", **k),
    ]:
        for policy in ["mixed_float16", "float64"]:
            try:
                result = make(dtype=policy)(dict(data))
                out.append((result["images"].dtype.name, result["bounding_boxes"]))
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
        layer = make()
        traced = tf.function(lambda d, layer=layer: layer(d), input_signature=[spec])
        try:
            out.append(traced(dict(data))["bounding_boxes"])
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_policies_and_run_time_sizes(tf_oracle):
    assert_parity(
        tf_oracle, _policies_and_run_time_sizes, (), rtol=1e-3, atol=1e-2, helpers=[_data]
    )
