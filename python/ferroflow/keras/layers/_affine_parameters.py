"""The ``gamma`` (scale) and ``beta`` (offset) weights the normalisation layers share: their
initializer, regularizer and constraint arguments, the weights themselves, and their part of
the config, in Keras's order."""

from ferroflow.keras.layers import _config

__all__ = ["add_gamma_beta", "affine_config", "resolve_affine_arguments"]


def resolve_affine_arguments(
    layer,
    beta_initializer,
    gamma_initializer,
    beta_regularizer,
    gamma_regularizer,
    beta_constraint,
    gamma_constraint,
):
    """Sets ``layer``'s six ``beta_*``/``gamma_*`` attributes from identifiers."""
    from ferroflow.keras import initializers, regularizers

    layer.beta_initializer = initializers.get(beta_initializer)
    layer.gamma_initializer = initializers.get(gamma_initializer)
    layer.beta_regularizer = regularizers.get(beta_regularizer)
    layer.gamma_regularizer = regularizers.get(gamma_regularizer)
    layer.beta_constraint = _config.get_constraint(beta_constraint)
    layer.gamma_constraint = _config.get_constraint(gamma_constraint)


def add_gamma_beta(layer, shape, with_gamma, with_beta):
    """``layer.gamma`` and ``layer.beta`` of ``shape`` (gamma first, as Keras makes them), or
    None for those not wanted."""
    layer.gamma = layer.beta = None
    if with_gamma:
        layer.gamma = layer.add_weight(
            name="gamma",
            shape=shape,
            initializer=layer.gamma_initializer,
            regularizer=layer.gamma_regularizer,
            constraint=layer.gamma_constraint,
        )
    if with_beta:
        layer.beta = layer.add_weight(
            name="beta",
            shape=shape,
            initializer=layer.beta_initializer,
            regularizer=layer.beta_regularizer,
            constraint=layer.beta_constraint,
        )


def affine_config(layer):
    """The six serialised ``beta_*``/``gamma_*`` arguments."""
    return {
        "beta_initializer": _config.serialize_initializer(layer.beta_initializer),
        "gamma_initializer": _config.serialize_initializer(layer.gamma_initializer),
        "beta_regularizer": _config.serialize_regularizer(layer.beta_regularizer),
        "gamma_regularizer": _config.serialize_regularizer(layer.gamma_regularizer),
        "beta_constraint": _config.serialize_constraint(layer.beta_constraint),
        "gamma_constraint": _config.serialize_constraint(layer.gamma_constraint),
    }
