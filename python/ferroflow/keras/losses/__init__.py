"""`tf.keras.losses`: Keras 3's losses, as functions (per-sample values) and as `Loss`
classes (weighted and reduced), written with ferroflow ops so that they run eagerly, inside
`tf.function` and under `tf.GradientTape`."""

from ferroflow.keras.losses.circle_loss import Circle, circle
from ferroflow.keras.losses.hinge_losses import (
    CategoricalHinge,
    Hinge,
    SquaredHinge,
    categorical_hinge,
    hinge,
    squared_hinge,
)
from ferroflow.keras.losses.loss import Loss
from ferroflow.keras.losses.overlap_losses import Dice, Tversky, dice, tversky
from ferroflow.keras.losses.probabilistic_losses import (
    BinaryCrossentropy,
    BinaryFocalCrossentropy,
    CategoricalCrossentropy,
    CategoricalFocalCrossentropy,
    KLDivergence,
    Poisson,
    SparseCategoricalCrossentropy,
    binary_crossentropy,
    binary_focal_crossentropy,
    categorical_crossentropy,
    categorical_focal_crossentropy,
    kl_divergence,
    poisson,
    sparse_categorical_crossentropy,
)
from ferroflow.keras.losses.reduction import Reduction
from ferroflow.keras.losses.registry import deserialize, get, serialize
from ferroflow.keras.losses.regression_losses import (
    CosineSimilarity,
    Huber,
    LogCosh,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    cosine_similarity,
    huber,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)
from ferroflow.keras.losses.robust_losses import (
    CategoricalGeneralizedCrossEntropy,
    categorical_generalized_cross_entropy,
)
from ferroflow.keras.losses.sequence_losses import CTC, ctc
from ferroflow.keras.losses.wrapper import LossFunctionWrapper

# The short names tf.keras has always accepted.
bce = BCE = binary_crossentropy
kld = KLD = kullback_leibler_divergence = kl_divergence
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
mse = MSE = mean_squared_error
msle = MSLE = mean_squared_logarithmic_error
logcosh = log_cosh

__all__ = [
    "BCE",
    "BinaryCrossentropy",
    "BinaryFocalCrossentropy",
    "CTC",
    "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy",
    "CategoricalGeneralizedCrossEntropy",
    "CategoricalHinge",
    "Circle",
    "CosineSimilarity",
    "Dice",
    "Hinge",
    "Huber",
    "KLD",
    "KLDivergence",
    "LogCosh",
    "Loss",
    "LossFunctionWrapper",
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "Poisson",
    "Reduction",
    "SparseCategoricalCrossentropy",
    "SquaredHinge",
    "Tversky",
    "bce",
    "binary_crossentropy",
    "binary_focal_crossentropy",
    "categorical_crossentropy",
    "categorical_focal_crossentropy",
    "categorical_generalized_cross_entropy",
    "categorical_hinge",
    "circle",
    "cosine_similarity",
    "ctc",
    "deserialize",
    "dice",
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
    "sparse_categorical_crossentropy",
    "squared_hinge",
    "tversky",
]
