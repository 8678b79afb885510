"""The frame of every application builder: checks, input, body, head, weights."""

from ferroflow.keras.applications import _common
from ferroflow.keras.models import Model


def build(
    body,
    *,
    name,
    include_top,
    weights,
    input_tensor,
    input_shape,
    pooling,
    classes,
    classifier_activation,
    default_size,
    min_size,
    file_names=None,
    origin=None,
    head=None,
    pass_shape=False,
):
    """Builds ``body`` (image tensor -> features; ``body(image, shape)`` with ``pass_shape``,
    for bodies that read the validated input shape as Keras does) with Keras's checks, the
    classifier ``head`` (default: average pooling + ``predictions``), and ``weights``.
    ``file_names`` is (with top, without top) for ``weights="imagenet"``; it and ``name``
    may be functions of the input shape."""
    _common.check_weights(weights, include_top, classes)
    shape = _common.obtain_input_shape(
        input_shape, default_size, min_size, require_flatten=include_top, weights=weights
    )
    image, inputs = _common.model_input(input_tensor, shape)
    x = body(image, shape) if pass_shape else body(image)
    head = head or _common.average_head
    x = head(x, include_top, pooling, classes, classifier_activation, weights)
    model = Model(inputs, x, name=name(shape) if callable(name) else name)
    if callable(file_names):
        file_names = file_names(shape)
    file_name = None
    if file_names is not None:
        file_name = file_names[0] if include_top else file_names[1]
    return _common.finish(model, weights, file_name, origin)


def keras_builder(title, default_name, make):
    """The public builder ``title`` with Keras's usual signature, building with
    ``make(name=..., include_top=..., weights=..., ...)``."""

    def builder(
        include_top=True,
        weights="imagenet",
        input_tensor=None,
        input_shape=None,
        pooling=None,
        classes=1000,
        classifier_activation="softmax",
        name=default_name,
    ):
        return make(
            name=name,
            include_top=include_top,
            weights=weights,
            input_tensor=input_tensor,
            input_shape=input_shape,
            pooling=pooling,
            classes=classes,
            classifier_activation=classifier_activation,
        )

    builder.__name__ = builder.__qualname__ = title
    builder.__doc__ = (
        f"{title} as Keras builds it (layer names included). ``weights``: None, 'imagenet' "
        "(Keras's file, read from the Keras cache; never downloaded) or a weight file's path."
    )
    return builder


def imagenet_build(body, stem, default_size, min_size, origin, head=None):
    """A ``make`` for `keras_builder`: ``body`` built by `build` with the weight files
    ``{stem}.h5`` / ``{stem}_notop.h5``."""

    def make(**kwargs):
        return build(
            body,
            default_size=default_size,
            min_size=min_size,
            head=head,
            file_names=(f"{stem}.h5", f"{stem}_notop.h5"),
            origin=origin,
            **kwargs,
        )

    return make
