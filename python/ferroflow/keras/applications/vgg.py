"""VGG16 and VGG19 (`keras.applications.vgg16` / `.vgg19`): stacks of 3x3 convolutions and
max pooling, with Keras's layer names, over one shared builder."""

from ferroflow.keras import layers
from ferroflow.keras.applications import _common, imagenet_utils
from ferroflow.keras.applications._builder import build, keras_builder

ORIGIN = "https://storage.googleapis.com/tensorflow/keras-applications/"


def _head(x, include_top, pooling, classes, classifier_activation, weights):
    if not include_top:
        return _common.pooled(x, pooling, avg_name=None, max_name=None)
    x = layers.Flatten(name="flatten")(x)
    x = layers.Dense(4096, activation="relu", name="fc1")(x)
    x = layers.Dense(4096, activation="relu", name="fc2")(x)
    return _common.predictions(x, classes, classifier_activation, weights)


def VGG(convs_per_block, model_name, **kwargs):
    """A VGG with ``convs_per_block[i]`` convolutions in block ``i + 1``."""

    def body(x):
        for block, (filters, count) in enumerate(zip((64, 128, 256, 512, 512), convs_per_block)):
            for conv in range(count):
                x = layers.Conv2D(
                    filters,
                    (3, 3),
                    activation="relu",
                    padding="same",
                    name=f"block{block + 1}_conv{conv + 1}",
                )(x)
            x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block + 1}_pool")(x)
        return x

    stem = f"{model_name}_weights_tf_dim_ordering_tf_kernels"
    return build(
        body,
        default_size=224,
        min_size=32,
        head=_head,
        file_names=(f"{stem}.h5", f"{stem}_notop.h5"),
        origin=f"{ORIGIN}{model_name}/",
        **kwargs,
    )


def vgg_builder(model_name, convs_per_block):
    """The public builder function of one VGG depth."""

    def make(**kwargs):
        return VGG(convs_per_block, model_name, **kwargs)

    return keras_builder(model_name.upper(), model_name, make)


def preprocess_input(x, data_format=None):
    """Caffe-mode ImageNet preprocessing (BGR, mean-centred)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


def decode_predictions(preds, top=5):
    """See `imagenet_utils.decode_predictions`."""
    return imagenet_utils.decode_predictions(preds, top=top)
