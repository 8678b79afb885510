"""`keras.wrappers`: Keras 3's scikit-learn estimators around a Keras model. They need
scikit-learn; without it (as in ferroflow's environments) constructing one raises Keras's
``ImportError``. With scikit-learn present they raise ``NotImplementedError``: ferroflow does
not carry the estimator logic."""

__all__ = ["SKLearnClassifier", "SKLearnRegressor", "SKLearnTransformer"]


def _sklearn_available():
    try:
        import sklearn  # noqa: F401
    except ImportError:
        return False
    return True


class _SKLBase:
    """Base of the scikit-learn wrappers: checks that scikit-learn is installed."""

    def __init__(self, model, warm_start=False, model_kwargs=None, fit_kwargs=None):
        name = type(self).__name__
        if not _sklearn_available():
            raise ImportError(
                f"{name} requires `scikit-learn` to be installed. Run `pip install "
                "scikit-learn` to install it."
            )
        raise NotImplementedError(f"keras.wrappers.{name} is not implemented in ferroflow.")


class SKLearnClassifier(_SKLBase):
    """scikit-learn classifier around a Keras model (needs scikit-learn)."""


class SKLearnRegressor(_SKLBase):
    """scikit-learn regressor around a Keras model (needs scikit-learn)."""


class SKLearnTransformer(_SKLBase):
    """scikit-learn transformer around a Keras model (needs scikit-learn)."""
