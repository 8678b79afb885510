"""`tf.keras.metrics`: Keras 3's stateful metrics (state in non-trainable `tf.Variable`s made
when the metric is constructed) and the per-sample metric functions, written with ferroflow ops
so that they update eagerly and inside `tf.function`."""

from ferroflow.keras.losses.hinge_losses import categorical_hinge, hinge, squared_hinge
from ferroflow.keras.losses.probabilistic_losses import (
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    kl_divergence,
    poisson,
    sparse_categorical_crossentropy,
)
from ferroflow.keras.losses.regression_losses import (
    huber,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)
from ferroflow.keras.metrics.accuracy_metrics import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from ferroflow.keras.metrics.hinge_metrics import CategoricalHinge, Hinge, SquaredHinge
from ferroflow.keras.metrics.metric import Metric
from ferroflow.keras.metrics.probabilistic_metrics import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    KLDivergence,
    Poisson,
    SparseCategoricalCrossentropy,
)
from ferroflow.keras.metrics.reduction_metrics import Mean, MeanMetricWrapper, Sum
from ferroflow.keras.metrics.registry import deserialize, get, serialize
from ferroflow.keras.metrics.regression_metrics import (
    CosineSimilarity,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    RootMeanSquaredError,
)

# tf.keras.metrics' short names are the per-sample functions.
kld = KLD = kullback_leibler_divergence = kl_divergence
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
mse = MSE = mean_squared_error
msle = MSLE = mean_squared_logarithmic_error
logcosh = log_cosh

__all__ = [
    "Accuracy",
    "BinaryAccuracy",
    "BinaryCrossentropy",
    "CategoricalAccuracy",
    "CategoricalCrossentropy",
    "CategoricalHinge",
    "CosineSimilarity",
    "Hinge",
    "KLD",
    "KLDivergence",
    "LogCoshError",
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "Mean",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "Metric",
    "Poisson",
    "RootMeanSquaredError",
    "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy",
    "SparseTopKCategoricalAccuracy",
    "SquaredHinge",
    "Sum",
    "TopKCategoricalAccuracy",
    "binary_accuracy",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_accuracy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_hinge",
    "deserialize",
    "get",
    "hinge",
    "huber",
    "kl_divergence",
    "kld",
    "kullback_leibler_divergence",
    "log_cosh",
    "logcosh",
    "mae",
    "mape",
    "mean_absolute_error",
    "mean_absolute_percentage_error",
    "mean_squared_error",
    "mean_squared_logarithmic_error",
    "mse",
    "msle",
    "poisson",
    "serialize",
    "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy",
    "sparse_top_k_categorical_accuracy",
    "squared_hinge",
    "top_k_categorical_accuracy",
]
