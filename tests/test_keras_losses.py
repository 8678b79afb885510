"""`tf.keras.losses` against Keras 3.15 (TensorFlow 2.21).

Every expected number below was produced by running Keras itself (``keras.losses``, TensorFlow
backend, float32 on the CPU) on the same inputs; TensorFlow is not needed to run these tests.
``test_parity_with_installed_keras`` recomputes them when TensorFlow happens to be importable.

On the CPU ferroflow matches Keras to 1e-6 relative. WGSL's ``log``/``exp`` are only specified to
an absolute error of 2**-21 near 1, so GPU runs compare at 1e-5 relative / 1e-6 absolute.
"""

import warnings

import ferroflow as tf
import numpy as np
import pytest
from ferroflow.keras import losses
from ferroflow.keras.losses._tensor_notes import sigmoid, softmax

# --- inputs ------------------------------------------------------------------------------------

P2x3_T = [[0.0, 1.0, 0.5], [1.0, 0.0, 0.25]]
P2x3_P = [[0.2, 0.7, 0.4], [0.9, 0.3, 0.1]]
B1_T = [1.0, 0.0, 1.0, 0.0]
B1_P = [0.9, 0.2, 0.6, 0.4]
B41_T = [[1.0], [0.0], [1.0], [0.0]]
B_LOGITS = [[-18.6, 0.51], [2.94, -12.8]]
B_LOGITS_T = [[0.0, 1.0], [0.0, 0.0]]
P3_T = [[[0.0, 1.0, 0.5], [1.0, 0.0, 0.0]], [[0.5, 0.5, 1.0], [0.0, 0.0, 1.0]]]
P3_P = [[[0.1, 0.8, 0.3], [0.7, 0.2, 0.05]], [[0.4, 0.6, 0.9], [0.2, 0.1, 0.95]]]
BIN3_T = [[[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], [[1.0, 1.0, 1.0], [0.0, 0.0, 1.0]]]
C_T = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
C_P = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1], [0.6, 0.3, 0.1]]
C_P_UNNORM = [[0.1, 1.9, 0.0], [0.3, 2.4, 0.3], [1.2, 0.6, 0.2]]
C_L = [[1.0, 2.0, 0.5], [-1.0, 0.3, 2.0], [0.2, -0.4, 1.1]]
C3_T = [[[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]]
C3_L = [[[0.5, 1.5, -0.2], [2.0, 0.1, 0.3]], [[-1.0, 0.0, 1.0], [0.3, 0.2, 0.1]]]
S_T = [1, 2, 0]
S_T_COL = [[1], [2], [0]]
S_T_IGN = [1, -1, 0]
S3_T = [[1, 0], [2, 1]]
S3_T_IGN = [[1, 255], [2, 255]]
R_T = [[1.0, 2.5, -0.5], [0.0, 3.0, 1.0]]
R_P = [[1.5, 0.5, -0.4], [0.3, 4.5, 1.0]]
H_T = [[-1.0, 1.0, 1.0], [1.0, -1.0, 1.0]]
H_P = [[0.3, -0.8, 1.2], [0.6, 0.4, -0.1]]

LOSS_CASES = [
    # (id, class, kwargs, y_true, y_pred, sample_weight)
    ("mse", "MeanSquaredError", {}, R_T, R_P, None),
    ("mse_sum", "MeanSquaredError", {"reduction": "sum"}, R_T, R_P, None),
    ("mse_none", "MeanSquaredError", {"reduction": None}, R_T, R_P, None),
    ("mse_none_str", "MeanSquaredError", {"reduction": "none"}, R_T, R_P, None),
    ("mse_mean", "MeanSquaredError", {"reduction": "mean"}, R_T, R_P, None),
    ("mse_sw_scalar", "MeanSquaredError", {}, R_T, R_P, 2.5),
    ("mse_sw_batch", "MeanSquaredError", {}, R_T, R_P, [0.3, 0.7]),
    ("mse_sw_col", "MeanSquaredError", {"reduction": None}, R_T, R_P, [[0.3], [0.7]]),
    ("mse_sw_zero", "MeanSquaredError", {}, R_T, R_P, [0.0, 0.0]),
    ("mse_mws", "MeanSquaredError", {"reduction": "mean_with_sample_weight"}, R_T, R_P, [0.3, 1.2]),
    ("mse_mws_nosw", "MeanSquaredError", {"reduction": "mean_with_sample_weight"}, R_T, R_P, None),
    ("mse_3d", "MeanSquaredError", {}, P3_T, P3_P, None),
    ("mse_3d_none", "MeanSquaredError", {"reduction": None}, P3_T, P3_P, None),
    (
        "mse_3d_sw_elem",
        "MeanSquaredError",
        {"reduction": "sum"},
        P3_T,
        P3_P,
        [[1.0, 0.5], [0.0, 2.0]],
    ),
    ("mse_3d_sw_batch", "MeanSquaredError", {}, P3_T, P3_P, [0.25, 2.0]),
    ("mse_1d", "MeanSquaredError", {}, B1_T, B1_P, None),
    ("mse_rank_expand", "MeanSquaredError", {"reduction": None}, B1_T, B41_T, None),
    (
        "mse_rank_squeeze",
        "MeanSquaredError",
        {"reduction": None},
        [[1.0, 2.0], [3.0, 4.0]],
        [[[1.5], [2.5]], [[2.0], [4.5]]],
        None,
    ),
    ("mae", "MeanAbsoluteError", {}, R_T, R_P, None),
    ("mae_sum_sw", "MeanAbsoluteError", {"reduction": "sum"}, R_T, R_P, [2.0, 0.5]),
    ("mae_none", "MeanAbsoluteError", {"reduction": None}, P3_T, P3_P, None),
    ("mape", "MeanAbsolutePercentageError", {}, R_T, R_P, None),
    ("msle", "MeanSquaredLogarithmicError", {"reduction": None}, R_T, R_P, None),
    ("cosine", "CosineSimilarity", {"reduction": None}, R_T, R_P, None),
    ("cosine_axis0", "CosineSimilarity", {"axis": 0}, R_T, R_P, None),
    (
        "cosine_zero",
        "CosineSimilarity",
        {"reduction": None},
        [[0.0, 0.0], [1.0, 2.0]],
        [[1.0, 2.0], [2.0, 4.0]],
        None,
    ),
    ("huber", "Huber", {}, R_T, R_P, None),
    ("huber_delta", "Huber", {"delta": 0.4, "reduction": None}, R_T, R_P, None),
    ("huber_sw", "Huber", {"reduction": "sum"}, R_T, R_P, [1.5, 0.25]),
    ("logcosh", "LogCosh", {"reduction": None}, R_T, R_P, None),
    (
        "kld",
        "KLDivergence",
        {"reduction": None},
        C_P,
        [[0.1, 0.8, 0.1], [0.2, 0.5, 0.3], [0.5, 0.25, 0.25]],
        None,
    ),
    ("poisson", "Poisson", {"reduction": None}, R_T, [[1.5, 0.5, 0.4], [0.3, 4.5, 1.0]], None),
    ("hinge", "Hinge", {"reduction": None}, H_T, H_P, None),
    ("hinge_binary", "Hinge", {"reduction": None}, [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]], H_P, None),
    ("sq_hinge", "SquaredHinge", {}, H_T, H_P, None),
    (
        "sq_hinge_binary",
        "SquaredHinge",
        {"reduction": None},
        [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]],
        H_P,
        None,
    ),
    ("cat_hinge", "CategoricalHinge", {"reduction": None}, C_T, C_L, None),
    ("bce", "BinaryCrossentropy", {}, P2x3_T, P2x3_P, None),
    ("bce_none", "BinaryCrossentropy", {"reduction": None}, P2x3_T, P2x3_P, None),
    ("bce_sum", "BinaryCrossentropy", {"reduction": "sum"}, P2x3_T, P2x3_P, None),
    ("bce_sw", "BinaryCrossentropy", {}, P2x3_T, P2x3_P, [0.8, 0.2]),
    (
        "bce_clip",
        "BinaryCrossentropy",
        {"reduction": None},
        [[0.0, 1.0], [1.0, 0.0]],
        [[0.0, 1.0], [0.0, 1.0]],
        None,
    ),
    ("bce_1d", "BinaryCrossentropy", {}, B1_T, B1_P, None),
    (
        "bce_col",
        "BinaryCrossentropy",
        {"reduction": None},
        B41_T,
        [[0.9], [0.2], [0.6], [0.4]],
        None,
    ),
    (
        "bce_col_vs_1d",
        "BinaryCrossentropy",
        {"reduction": None},
        B1_T,
        [[0.9], [0.2], [0.6], [0.4]],
        None,
    ),
    ("bce_logits", "BinaryCrossentropy", {"from_logits": True}, B_LOGITS_T, B_LOGITS, None),
    (
        "bce_logits_sw",
        "BinaryCrossentropy",
        {"from_logits": True},
        B_LOGITS_T,
        B_LOGITS,
        [0.8, 0.2],
    ),
    (
        "bce_logits_none",
        "BinaryCrossentropy",
        {"from_logits": True, "reduction": None},
        B_LOGITS_T,
        B_LOGITS,
        None,
    ),
    (
        "bce_ls",
        "BinaryCrossentropy",
        {"label_smoothing": 0.2, "reduction": None},
        P2x3_T,
        P2x3_P,
        None,
    ),
    (
        "bce_logits_ls",
        "BinaryCrossentropy",
        {"from_logits": True, "label_smoothing": 0.1},
        B_LOGITS_T,
        B_LOGITS,
        None,
    ),
    ("bce_axis0", "BinaryCrossentropy", {"axis": 0, "reduction": None}, P2x3_T, P2x3_P, None),
    ("bce_3d", "BinaryCrossentropy", {"reduction": None}, BIN3_T, P3_P, None),
    ("bce_3d_sw", "BinaryCrossentropy", {}, BIN3_T, P3_P, [[1.0, 0.0], [0.5, 2.0]]),
    ("bfce", "BinaryFocalCrossentropy", {"reduction": None}, P2x3_T, P2x3_P, None),
    (
        "bfce_bal",
        "BinaryFocalCrossentropy",
        {"apply_class_balancing": True, "gamma": 3.0, "from_logits": True, "label_smoothing": 0.1},
        B_LOGITS_T,
        B_LOGITS,
        None,
    ),
    ("cce", "CategoricalCrossentropy", {}, C_T, C_P, None),
    ("cce_none", "CategoricalCrossentropy", {"reduction": None}, C_T, C_P, None),
    ("cce_sum", "CategoricalCrossentropy", {"reduction": "sum"}, C_T, C_P, None),
    ("cce_sw", "CategoricalCrossentropy", {}, C_T, C_P, [0.3, 0.7, 1.5]),
    ("cce_unnorm", "CategoricalCrossentropy", {"reduction": None}, C_T, C_P_UNNORM, None),
    (
        "cce_logits",
        "CategoricalCrossentropy",
        {"from_logits": True, "reduction": None},
        C_T,
        C_L,
        None,
    ),
    (
        "cce_logits_mean",
        "CategoricalCrossentropy",
        {"from_logits": True},
        C_T,
        C_L,
        [1.0, 0.5, 2.0],
    ),
    (
        "cce_ls",
        "CategoricalCrossentropy",
        {"label_smoothing": 0.1, "reduction": None},
        C_T,
        C_P,
        None,
    ),
    (
        "cce_logits_ls",
        "CategoricalCrossentropy",
        {"from_logits": True, "label_smoothing": 0.3},
        C_T,
        C_L,
        None,
    ),
    ("cce_axis0", "CategoricalCrossentropy", {"axis": 0, "reduction": None}, C_T, C_P, None),
    (
        "cce_logits_axis0",
        "CategoricalCrossentropy",
        {"axis": 0, "from_logits": True, "reduction": None},
        C_T,
        C_L,
        None,
    ),
    (
        "cce_3d",
        "CategoricalCrossentropy",
        {"from_logits": True, "reduction": None},
        C3_T,
        C3_L,
        None,
    ),
    (
        "cce_3d_sw",
        "CategoricalCrossentropy",
        {"from_logits": True},
        C3_T,
        C3_L,
        [[1.0, 0.5], [0.0, 2.0]],
    ),
    ("cfce", "CategoricalFocalCrossentropy", {"reduction": None}, C_T, C_P, None),
    (
        "cfce_logits",
        "CategoricalFocalCrossentropy",
        {"from_logits": True, "alpha": 0.5, "gamma": 1.5, "label_smoothing": 0.1},
        C_T,
        C_L,
        None,
    ),
    ("scce", "SparseCategoricalCrossentropy", {}, S_T, C_P, None),
    ("scce_none", "SparseCategoricalCrossentropy", {"reduction": None}, S_T, C_P, None),
    (
        "scce_sum_sw",
        "SparseCategoricalCrossentropy",
        {"reduction": "sum"},
        S_T,
        C_P,
        [0.3, 0.7, 1.5],
    ),
    ("scce_col", "SparseCategoricalCrossentropy", {"reduction": None}, S_T_COL, C_P, None),
    ("scce_unnorm", "SparseCategoricalCrossentropy", {"reduction": None}, S_T, C_P_UNNORM, None),
    (
        "scce_logits",
        "SparseCategoricalCrossentropy",
        {"from_logits": True, "reduction": None},
        S_T,
        C_L,
        None,
    ),
    ("scce_logits_mean", "SparseCategoricalCrossentropy", {"from_logits": True}, S_T, C_L, None),
    (
        "scce_3d",
        "SparseCategoricalCrossentropy",
        {"from_logits": True, "reduction": None},
        S3_T,
        C3_L,
        None,
    ),
    ("scce_3d_sw", "SparseCategoricalCrossentropy", {"from_logits": True}, S3_T, C3_L, [0.5, 2.0]),
    ("scce_ignore", "SparseCategoricalCrossentropy", {"ignore_class": -1}, S_T_IGN, C_P, None),
    (
        "scce_ignore_none",
        "SparseCategoricalCrossentropy",
        {"ignore_class": -1, "reduction": None},
        S_T_IGN,
        C_P,
        None,
    ),
    (
        "scce_ignore_sum",
        "SparseCategoricalCrossentropy",
        {"ignore_class": -1, "reduction": "sum"},
        S_T_IGN,
        C_P,
        None,
    ),
    (
        "scce_ignore_sw",
        "SparseCategoricalCrossentropy",
        {"ignore_class": -1, "from_logits": True},
        S_T_IGN,
        C_L,
        [0.5, 3.0, 2.0],
    ),
    (
        "scce_ignore_3d",
        "SparseCategoricalCrossentropy",
        {"ignore_class": 255, "from_logits": True},
        S3_T_IGN,
        C3_L,
        None,
    ),
]

FUNCTION_CASES = [
    # (id, function, kwargs, y_true, y_pred)
    ("f_mse", "mean_squared_error", {}, R_T, R_P),
    ("f_mae", "mean_absolute_error", {}, P3_T, P3_P),
    ("f_mape", "mean_absolute_percentage_error", {}, R_T, R_P),
    ("f_msle", "mean_squared_logarithmic_error", {}, R_T, R_P),
    ("f_huber", "huber", {"delta": 2.0}, R_T, R_P),
    ("f_log_cosh", "log_cosh", {}, R_T, R_P),
    ("f_cosine", "cosine_similarity", {"axis": -1}, R_T, R_P),
    ("f_kld", "kl_divergence", {}, C_P, C_T),
    ("f_poisson", "poisson", {}, P2x3_T, P2x3_P),
    ("f_hinge", "hinge", {}, H_T, H_P),
    ("f_squared_hinge", "squared_hinge", {}, H_T, H_P),
    ("f_categorical_hinge", "categorical_hinge", {}, C_T, C_L),
    ("f_bce", "binary_crossentropy", {}, P2x3_T, P2x3_P),
    (
        "f_bce_logits_ls",
        "binary_crossentropy",
        {"from_logits": True, "label_smoothing": 0.2},
        B_LOGITS_T,
        B_LOGITS,
    ),
    ("f_bfce", "binary_focal_crossentropy", {"gamma": 1.0}, P2x3_T, P2x3_P),
    ("f_cce", "categorical_crossentropy", {}, C_T, C_P),
    (
        "f_cce_logits",
        "categorical_crossentropy",
        {"from_logits": True, "label_smoothing": 0.2},
        C_T,
        C_L,
    ),
    ("f_cfce", "categorical_focal_crossentropy", {}, C_T, C_P),
    ("f_scce", "sparse_categorical_crossentropy", {}, S_T, C_P),
    ("f_scce_logits", "sparse_categorical_crossentropy", {"from_logits": True}, S3_T, C3_L),
]

GRADIENT_CASES = [
    # (id, class, kwargs, y_true, y_pred, sample_weight): d loss / d y_pred
    ("g_mse", "MeanSquaredError", {}, R_T, R_P, None),
    ("g_mse_sw", "MeanSquaredError", {"reduction": "sum"}, R_T, R_P, [0.3, 0.7]),
    ("g_mae", "MeanAbsoluteError", {}, R_T, R_P, None),
    ("g_huber", "Huber", {"delta": 0.5}, R_T, R_P, None),
    ("g_bce", "BinaryCrossentropy", {}, P2x3_T, P2x3_P, None),
    (
        "g_bce_clip",
        "BinaryCrossentropy",
        {},
        [[0.0, 1.0], [1.0, 0.0]],
        [[0.0, 0.5], [0.25, 1.0]],
        None,
    ),
    (
        "g_bce_logits",
        "BinaryCrossentropy",
        {"from_logits": True, "label_smoothing": 0.1},
        B_LOGITS_T,
        B_LOGITS,
        None,
    ),
    (
        "g_cce",
        "CategoricalCrossentropy",
        {},
        C_T,
        [[0.05, 0.9, 0.05], [0.1, 0.8, 0.1], [0.6, 0.3, 0.1]],
        None,
    ),
    ("g_cce_logits", "CategoricalCrossentropy", {"from_logits": True}, C_T, C_L, [1.0, 0.5, 2.0]),
    (
        "g_cce_logits_ls",
        "CategoricalCrossentropy",
        {"from_logits": True, "label_smoothing": 0.2},
        C_T,
        C_L,
        None,
    ),
    (
        "g_scce",
        "SparseCategoricalCrossentropy",
        {},
        S_T,
        [[0.05, 0.9, 0.05], [0.1, 0.8, 0.1], [0.6, 0.3, 0.1]],
        None,
    ),
    ("g_scce_logits", "SparseCategoricalCrossentropy", {"from_logits": True}, S_T, C_L, None),
    (
        "g_scce_ignore",
        "SparseCategoricalCrossentropy",
        {"from_logits": True, "ignore_class": -1},
        S_T_IGN,
        C_L,
        None,
    ),
]

FLOAT64_CASES = [
    # (id, class, kwargs, y_true, y_pred, sample_weight): computed in float64 (dtype="float64")
    ("d_mse", "MeanSquaredError", {"dtype": "float64"}, R_T, R_P, [0.3, 0.7]),
    ("d_bce", "BinaryCrossentropy", {"dtype": "float64"}, P2x3_T, P2x3_P, None),
    (
        "d_cce_logits",
        "CategoricalCrossentropy",
        {"dtype": "float64", "from_logits": True, "reduction": None},
        C_T,
        C_L,
        None,
    ),
    (
        "d_scce",
        "SparseCategoricalCrossentropy",
        {"dtype": "float64", "reduction": "sum"},
        S_T,
        C_P,
        None,
    ),
]

# --- what Keras 3.15 computes for them -----------------------------------------------------------

LOSS_EXPECTED = {
    "mse": 1.1,
    "mse_sum": 2.2,
    "mse_none": [1.4200001, 0.78],
    "mse_none_str": [1.4200001, 0.78],
    "mse_mean": 1.1,
    "mse_sw_scalar": 2.75,
    "mse_sw_batch": 0.486,
    "mse_sw_col": [[0.42600003], [0.54599994]],
    "mse_sw_zero": 0.0,
    "mse_mws": 0.908,
    "mse_mws_nosw": 1.1,
    "mse_3d": 0.025416669,
    "mse_3d_none": [[0.029999996, 0.04416667], [0.010000003, 0.017500002]],
    "mse_3d_sw_elem": 0.08708333,
    "mse_3d_sw_batch": 0.033333335,
    "mse_1d": 0.0925,
    "mse_rank_expand": [0.0, 0.0, 0.0, 0.0],
    "mse_rank_squeeze": [0.25, 0.625],
    "mae": 0.7333333,
    "mae_sum_sw": 2.0333333,
    "mae_none": [[0.16666666, 0.18333334], [0.10000002, 0.116666675]],
    "mape": 50000030.0,
    "msle": [0.2559022, 0.056749225],
    "cosine": [-0.66046613, -0.992592],
    "cosine_axis0": -0.9371152,
    "cosine_zero": [-0.0, -0.99999994],
    "huber": 0.44583333,
    "huber_delta": [0.28166667, 0.18833335],
    "huber_sw": 0.9020834,
    "logcosh": [0.48336962, 0.29992697],
    "kld": [0.128599, 0.19682696, 0.07246037],
    "poisson": [1.0897523, 0.42925587],
    "hinge": [1.0333333, 0.9666667],
    "hinge_binary": [1.0333333, 0.9666667],
    "sq_hinge": 1.3766665,
    "sq_hinge_binary": [1.6433331, 1.11],
    "cat_hinge": [0.0, 0.0, 1.9000001],
    "bce": 0.4016798,
    "bce_none": [0.43112555, 0.37223408],
    "bce_sum": 0.8033596,
    "bce_sw": 0.20967364,
    "bce_clip": [0.00000011920929, 16.03024],
    "bce_1d": 0.3375388,
    "bce_col": [0.105360545, 0.22314353, 0.5108256, 0.5108256],
    "bce_col_vs_1d": [0.105360545, 0.22314353, 0.5108256, 0.5108256],
    "bce_logits": 0.865458,
    "bce_logits_sw": 0.2436386,
    "bce_logits_none": [0.23515666, 1.4957594],
    "bce_ls": [0.5055786, 0.51033854],
    "bce_logits_ls": 1.2275829,
    "bce_axis0": [0.16425204, 0.35667497, 0.6841124],
    "bce_3d": [[0.51082563, 0.2103706], [0.51082563, 0.12659913]],
    "bce_3d_sw": 0.25485918,
    "bfce": [0.07313868, 0.03069146],
    "bfce_bal": 0.3839293,
    "cce": 0.9549014,
    "cce_none": [0.051293306, 2.3025851, 0.5108256],
    "cce_sum": 2.8647041,
    "cce_sw": 0.797812,
    "cce_unnorm": [0.051293306, 2.3025851, 0.5108256],
    "cce_logits": [0.4643688, 0.2090207, 1.3883959],
    "cce_logits_mean": 1.1152236,
    "cce_ls": [0.6850014, 2.2332704, 0.5936558],
    "cce_logits_ls": 0.9172618,
    "cce_axis0": [0.22314355, 0.7691331, 0.6931472],
    "cce_logits_axis0": [1.2603726, 0.24169157, 0.48839593],
    "cce_3d": [[0.438618, 0.28687078], [0.40760595, 1.1019428]],
    "cce_3d_sw": 0.69648474,
    "cfce": [0.00003205833, 0.46627346, 0.02043302],
    "cfce_logits": 0.20823221,
    "scce": 0.9549014,
    "scce_none": [0.051293444, 2.3025851, 0.5108256],
    "scce_sum_sw": 2.393436,
    "scce_col": [0.051293444, 2.3025851, 0.5108256],
    "scce_unnorm": [0.09531031, 1.6739764, 0.5877868],
    "scce_logits": [0.4643688, 0.2090207, 1.3883959],
    "scce_logits_mean": 0.6872618,
    "scce_3d": [[0.438618, 0.28687078], [0.40760595, 1.1019428]],
    "scce_3d_sw": 0.8001847,
    "scce_ignore": 0.2810595,
    "scce_ignore_none": [0.051293444, 0.0, 0.5108256],
    "scce_ignore_sum": 0.562119,
    "scce_ignore_sw": 1.5044881,
    "scce_ignore_3d": 0.42311198,
}
FUNCTION_EXPECTED = {
    "f_mse": [1.4200001, 0.78],
    "f_mae": [[0.16666666, 0.18333334], [0.10000002, 0.116666675]],
    "f_mape": [50.0, 100000020.0],
    "f_msle": [0.2559022, 0.056749225],
    "f_huber": [0.71000004, 0.39],
    "f_log_cosh": [0.48336962, 0.29992697],
    "f_cosine": [-0.66046613, -0.992592],
    "f_kld": [0.6073895, 13.867253, 5.549293],
    "f_poisson": [0.70494, 0.6603355],
    "f_hinge": [1.0333333, 0.9666667],
    "f_squared_hinge": [1.6433331, 1.11],
    "f_categorical_hinge": [0.0, 0.0, 1.9000001],
    "f_bce": [0.43112555, 0.37223408],
    "f_bce_logits_ls": [1.1906567, 1.9887594],
    "f_bfce": [0.16947009, 0.104646206],
    "f_cce": [0.051293306, 2.3025851, 0.5108256],
    "f_cce_logits": [0.63103545, 0.52235407, 1.368396],
    "f_cfce": [0.00003205833, 0.46627346, 0.02043302],
    "f_scce": [0.051293444, 2.3025851, 0.5108256],
    "f_scce_logits": [[0.438618, 0.28687078], [0.40760595, 1.1019428]],
}
GRADIENT_EXPECTED = {
    "g_mse": (1.1, [[0.16666667, -0.6666667, 0.03333333], [0.10000001, 0.5, -0.0]]),
    "g_mse_sw": (0.972, [[0.1, -0.4, 0.02], [0.14, 0.7, -0.0]]),
    "g_mae": (0.7333333, [[0.16666667, -0.16666667, 0.16666667], [0.16666667, 0.16666667, -0.0]]),
    "g_huber": (
        0.27916667,
        [[0.083333336, -0.083333336, 0.016666666], [0.050000004, 0.083333336, 0.0]],
    ),
    "g_bce": (
        0.4016798,
        [[0.20833334, -0.23809525, -0.06944445], [-0.1851852, 0.23809525, -0.2777778]],
    ),
    "g_bce_clip": (4.5054564, [[0.0, -0.5], [-1.0, 0.0]]),
    "g_bce_logits": (1.2275829, [[-0.012499998, -0.08129837], [0.22494718, -0.01249931]]),
    "g_cce": (
        0.97292376,
        [
            [0.33333334, -0.037037045, 0.33333334],
            [0.33333334, 0.33333334, -3.0000002],
            [-0.22222221, 0.33333337, 0.33333337],
        ],
    ),
    "g_cce_logits": (
        1.1152236,
        [
            [0.07707463, -0.12382277, 0.046748128],
            [0.0067326925, 0.024704244, -0.03143693],
            [-0.5003499, 0.091276586, 0.4090733],
        ],
    ),
    "g_cce_logits_ls": (
        0.8405952,
        [
            [0.054852407, -0.07937833, 0.024525903],
            [-0.008756839, 0.027186263, -0.018429419],
            [-0.2057305, 0.02341607, 0.18231443],
        ],
    ),
    "g_scce": (
        0.97292376,
        [
            [0.3333333, -0.03703705, 0.3333333],
            [0.33333334, 0.33333334, -3.0],
            [-0.22222221, 0.3333333, 0.3333333],
        ],
    ),
    "g_scce_logits": (
        0.6872618,
        [
            [0.07707463, -0.12382277, 0.046748128],
            [0.013465385, 0.049408488, -0.06287386],
            [-0.25017494, 0.045638293, 0.20453665],
        ],
    ),
    "g_scce_ignore": (
        0.92638236,
        [
            [0.11561195, -0.18573415, 0.07012219],
            [0.0, 0.0, 0.0],
            [-0.3752624, 0.06845744, 0.30680496],
        ],
    ),
}
FLOAT64_EXPECTED = {
    "d_mse": ("float64", 0.486),
    "d_bce": ("float64", 0.4016797987769091),
    "d_cce_logits": ("float64", [0.4643687841079449, 0.20902076654506024, 1.388395838281931]),
    "d_scce": ("float64", 2.8647041111475815),
}


# --- helpers ---------------------------------------------------------------------------------


def _tolerance(device):
    return dict(rtol=1e-5, atol=1e-6) if device.startswith("GPU") else dict(rtol=1e-6, atol=0)


def _close(got, expected, rtol=1e-6, atol=0.0):
    got = np.asarray(got)
    expected = np.asarray(expected, dtype=got.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def _tensor(value):
    return None if value is None else tf.constant(value)


def _ids(cases):
    return [case[0] for case in cases]


@pytest.fixture
def cpu():
    """Runs the test on the CPU, where the 1e-6 comparison holds."""
    with tf.device("CPU:0"):
        yield


# --- values against Keras --------------------------------------------------------------------


@pytest.mark.parametrize("case", LOSS_CASES, ids=_ids(LOSS_CASES))
def test_loss_classes_match_keras(case, device):
    cid, cls, kwargs, y_true, y_pred, sample_weight = case
    loss = getattr(losses, cls)(**kwargs)
    value = loss(_tensor(y_true), _tensor(y_pred), sample_weight=_tensor(sample_weight))
    assert value.dtype == tf.float32
    _close(value.numpy(), LOSS_EXPECTED[cid], **_tolerance(device))


@pytest.mark.parametrize("case", FUNCTION_CASES, ids=_ids(FUNCTION_CASES))
def test_loss_functions_match_keras(case, device):
    cid, fn, kwargs, y_true, y_pred = case
    value = getattr(losses, fn)(_tensor(y_true), _tensor(y_pred), **kwargs)
    _close(value.numpy(), FUNCTION_EXPECTED[cid], **_tolerance(device))


@pytest.mark.parametrize("case", GRADIENT_CASES, ids=_ids(GRADIENT_CASES))
def test_loss_gradients_match_keras(case, device):
    cid, cls, kwargs, y_true, y_pred, sample_weight = case
    expected_value, expected_gradient = GRADIENT_EXPECTED[cid]
    y_pred = tf.constant(y_pred)
    with tf.GradientTape() as tape:
        tape.watch(y_pred)
        value = getattr(losses, cls)(**kwargs)(
            _tensor(y_true), y_pred, sample_weight=_tensor(sample_weight)
        )
    gradient = tape.gradient(value, y_pred)
    tolerance = _tolerance(device)
    _close(value.numpy(), expected_value, **tolerance)
    # Gradients near 0 come out of cancellations (softmax - label): compare them absolutely too.
    _close(gradient.numpy(), expected_gradient, rtol=tolerance["rtol"], atol=2e-7)


@pytest.mark.parametrize("case", FLOAT64_CASES, ids=_ids(FLOAT64_CASES))
def test_float64_losses_match_keras(case):
    cid, cls, kwargs, y_true, y_pred, sample_weight = case
    y_true = np.asarray(y_true)
    if y_true.dtype.kind == "f":
        y_true = y_true.astype(np.float64)
    weights = None if sample_weight is None else np.asarray(sample_weight, np.float64)
    with tf.device("CPU:0"):
        loss = getattr(losses, cls)(**kwargs)
        value = loss(y_true, np.asarray(y_pred, np.float64), sample_weight=weights)
    dtype, expected = FLOAT64_EXPECTED[cid]
    assert value.dtype.name == dtype == loss.dtype
    _close(value.numpy(), expected, rtol=1e-12)


def test_python_lists_and_numpy_inputs(cpu):
    loss = losses.MeanSquaredError()
    _close(loss(R_T, R_P).numpy(), LOSS_EXPECTED["mse"])
    _close(loss(np.asarray(R_T), np.asarray(R_P)).numpy(), LOSS_EXPECTED["mse"])
    scce = losses.SparseCategoricalCrossentropy()
    _close(scce(np.asarray(S_T, np.int64), C_P).numpy(), LOSS_EXPECTED["scce"])


def test_variables_are_accepted_and_differentiable():
    y_pred = tf.Variable(P2x3_P)
    with tf.device("CPU:0"), tf.GradientTape() as tape:
        value = losses.BinaryCrossentropy()(tf.constant(P2x3_T), y_pred)
    _close(value.numpy(), LOSS_EXPECTED["bce"])
    _close(tape.gradient(value, y_pred).numpy(), GRADIENT_EXPECTED["g_bce"][1], atol=2e-7)


# --- inside tf.function ----------------------------------------------------------------------

_TRACED = ["mse", "mse_sw_batch", "mse_3d_sw_elem", "mse_rank_expand", "huber", "bce_logits",
           "bce_col_vs_1d", "cce_sw", "cce_logits_ls", "scce", "scce_col", "scce_ignore",
           "scce_ignore_3d", "hinge_binary", "cosine_zero"]  # fmt: skip
_CASES_BY_ID = {case[0]: case for case in LOSS_CASES}


@pytest.mark.parametrize("cid", _TRACED)
def test_losses_inside_tf_function(cid):
    _, cls, kwargs, y_true, y_pred, sample_weight = _CASES_BY_ID[cid]
    loss = getattr(losses, cls)(**kwargs)

    @tf.function
    def outside(y_true, y_pred, sample_weight):
        return loss(y_true, y_pred, sample_weight=sample_weight)

    @tf.function
    def inside(y_true, y_pred, sample_weight):
        return getattr(losses, cls)(**kwargs)(y_true, y_pred, sample_weight=sample_weight)

    with tf.device("CPU:0"):
        args = (_tensor(y_true), _tensor(y_pred), _tensor(sample_weight))
        for fn in (outside, inside):
            _close(fn(*args).numpy(), LOSS_EXPECTED[cid])
            _close(fn(*args).numpy(), LOSS_EXPECTED[cid])  # the traced graph, run again


# Losses whose ops all accept an unknown batch size while tracing (see the report on
# expand_dims/squeeze and the sparse kernel for the others).
_SIGNATURE = ["mse", "mse_sw_batch", "mae_sum_sw", "huber", "bce", "bce_sw", "bce_logits",
              "bce_ls", "cce", "cce_sw", "cce_logits", "cce_ls", "kld", "hinge", "cosine",
              "logcosh"]  # fmt: skip


@pytest.mark.parametrize("cid", _SIGNATURE)
def test_losses_with_an_unknown_batch_size(cid):
    _, cls, kwargs, y_true, y_pred, sample_weight = _CASES_BY_ID[cid]
    loss = getattr(losses, cls)(**kwargs)
    y_true, y_pred = np.asarray(y_true, np.float32), np.asarray(y_pred, np.float32)
    specs = [
        tf.TensorSpec([None, *y_true.shape[1:]], tf.float32),
        tf.TensorSpec([None, *y_pred.shape[1:]], tf.float32),
    ]
    if sample_weight is None:

        def body(y_true, y_pred):
            return loss(y_true, y_pred)

        args = [y_true, y_pred]
    else:
        specs.append(tf.TensorSpec([None], tf.float32))

        def body(y_true, y_pred, sample_weight):
            return loss(y_true, y_pred, sample_weight=sample_weight)

        args = [y_true, y_pred, np.asarray(sample_weight, np.float32)]
    fn = tf.function(body, input_signature=specs)
    with tf.device("CPU:0"):
        _close(fn(*[tf.constant(a) for a in args]).numpy(), LOSS_EXPECTED[cid])
        # One sample: the same graph, a batch size it was not traced with.
        one = fn(*[tf.constant(a[:1]) for a in args]).numpy()
        eager = (loss(args[0][:1], args[1][:1]) if sample_weight is None
                 else loss(args[0][:1], args[1][:1], sample_weight=args[2][:1]))  # fmt: skip
        _close(one, eager.numpy())
    assert fn.experimental_get_tracing_count() == 1


def test_gradients_inside_tf_function():
    y_pred = tf.Variable(C_L)

    @tf.function
    def step(y_true, sample_weight):
        with tf.GradientTape() as tape:
            value = losses.CategoricalCrossentropy(from_logits=True)(
                y_true, y_pred, sample_weight=sample_weight
            )
        return value, tape.gradient(value, y_pred)

    with tf.device("CPU:0"):
        value, gradient = step(tf.constant(C_T), tf.constant([1.0, 0.5, 2.0]))
    expected_value, expected_gradient = GRADIENT_EXPECTED["g_cce_logits"]
    _close(value.numpy(), expected_value)
    _close(gradient.numpy(), expected_gradient, atol=2e-7)


# --- reductions, sample weights and masks ----------------------------------------------------


def test_reduction_values_and_validation():
    for reduction in ("sum_over_batch_size", "sum", "mean", "mean_with_sample_weight", "none"):
        assert losses.MeanSquaredError(reduction=reduction).reduction == reduction
    assert losses.MeanSquaredError(reduction=None).reduction is None
    for bad in ("auto", "max", "SUM"):
        with pytest.raises(ValueError, match="Invalid value for argument `reduction`"):
            losses.MeanSquaredError(reduction=bad)
    assert losses.Reduction.AUTO == "auto" and "sum" in losses.Reduction.all()
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        losses.Reduction.validate("max")


def test_scalar_losses_are_not_reduced_and_empty_batches_give_zero(cpu):
    class Constant(losses.Loss):
        def call(self, y_true, y_pred):
            return tf.reduce_sum(y_pred)

    value = Constant(reduction="sum_over_batch_size")([1.0, 2.0], [3.0, 4.0], sample_weight=2.0)
    _close(value.numpy(), 14.0)
    empty = losses.MeanSquaredError()(tf.zeros([0, 3]), tf.zeros([0, 3]))
    assert empty.shape == (0,)


def test_mask_from_ignore_class_averages_over_kept_entries(cpu):
    # Keras divides by the number of entries that are not ignored, not by the batch size.
    _close(LOSS_EXPECTED["scce_ignore"], np.mean([0.051293444, 0.5108256]), rtol=1e-6)
    value = losses.SparseCategoricalCrossentropy(ignore_class=-1)(S_T_IGN, C_P)
    _close(value.numpy(), LOSS_EXPECTED["scce_ignore"])


def test_custom_loss_subclass(cpu):
    class Cubed(losses.Loss):
        def call(self, y_true, y_pred):
            return tf.reduce_mean(tf.abs(y_true - y_pred) ** 3, axis=-1)

    loss = Cubed(reduction="sum", name="cubed")
    assert loss.name == "cubed" and loss.dtype == "float32"
    value = loss([[1.0, 2.0], [0.0, 0.0]], [[2.0, 4.0], [1.0, 0.0]], sample_weight=[1.0, 2.0])
    _close(value.numpy(), (1 + 8) / 2 + 2 * (1 / 2))
    assert loss.get_config() == {"name": "cubed", "reduction": "sum"}
    with pytest.raises(NotImplementedError):
        losses.Loss()([1.0], [1.0])


def test_wrapper_around_a_custom_function(cpu):
    def scaled_error(y_true, y_pred, scale=1.0):
        return scale * tf.reduce_mean(y_pred - y_true, axis=-1)

    loss = losses.LossFunctionWrapper(scaled_error, reduction="sum", name="scaled", scale=3.0)
    # y_true (2,) and y_pred (2, 1): the wrapper expands y_true to (2, 1) first.
    _close(loss([1.0, 2.0], [[2.0], [4.0]]).numpy(), 3.0 * (1.0 + 2.0))
    config = loss.get_config()
    assert config["fn"] == "scaled_error" and config["scale"] == 3.0
    assert "LossFunctionWrapper" in repr(loss)


# --- the logits behind sigmoid / softmax outputs ---------------------------------------------


def test_crossentropy_uses_the_logits_behind_keras_activations(cpu):
    y_true, logits = tf.constant([[1.0, 0.0]]), tf.constant([[-20.0, 0.5]])
    from_logits = losses.binary_crossentropy(y_true, logits, from_logits=True)
    _close(from_logits.numpy(), [(20.0 + np.log1p(np.exp(0.5))) / 2])
    # Keras' sigmoid output remembers its logits: no clipping to [1e-7, 1 - 1e-7] then.
    _close(losses.binary_crossentropy(y_true, sigmoid(logits)).numpy(), from_logits.numpy())
    plain = losses.binary_crossentropy(y_true, tf.math.sigmoid(logits))
    _close(plain.numpy(), [(-np.log(np.float32(1e-7)) + np.log1p(np.exp(0.5))) / 2], rtol=1e-5)
    with pytest.warns(UserWarning, match="does not represent logits"):
        losses.categorical_crossentropy(
            tf.constant(C_T), softmax(tf.constant(C_L)), from_logits=True
        )


# --- errors ----------------------------------------------------------------------------------


def test_mismatched_shapes_raise_like_keras():
    with pytest.raises(tf.errors.InvalidArgumentError):
        losses.MeanSquaredError()(tf.ones([2, 3]), tf.ones([2, 4]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        losses.mean_absolute_error(tf.ones([3]), tf.ones([2]))
    with pytest.raises(ValueError, match="must have the same shape"):
        losses.BinaryCrossentropy()(tf.ones([1, 3]), tf.ones([1, 4]))
    with pytest.raises(ValueError, match="must have the same rank"):
        losses.binary_crossentropy(tf.ones([1, 1, 2]), tf.ones([2]))
    with pytest.raises(ValueError, match="must have the same shape"):
        losses.CategoricalCrossentropy()(tf.ones([1, 3]), tf.ones([1, 2]))
    with pytest.raises(ValueError, match="up until the last dimension"):
        losses.SparseCategoricalCrossentropy()([1, 0], tf.ones([3, 2]))
    with pytest.raises(ValueError, match="Only axis=-1"):
        losses.sparse_categorical_crossentropy(tf.constant([1, 0]), tf.ones([2, 2]), axis=0)
    with pytest.raises(ValueError, match="`axis` must be of type `int`"):
        losses.categorical_crossentropy(tf.ones([1, 2]), tf.ones([1, 2]), axis=True)
    with pytest.raises(tf.errors.InvalidArgumentError):
        losses.MeanSquaredError()(tf.ones([2, 2]), tf.ones([2, 2]), sample_weight=[1.0, 2.0, 3.0])


def test_out_of_range_sparse_labels_raise():
    with tf.device("CPU:0"), pytest.raises(tf.errors.InvalidArgumentError, match="valid range"):
        losses.SparseCategoricalCrossentropy()([1, 5], [[0.5, 0.5], [0.3, 0.7]])


def test_single_class_categorical_crossentropy_warns():
    with pytest.warns(SyntaxWarning, match="num_classes > 1"):
        losses.categorical_crossentropy(tf.ones([2, 1]), tf.ones([2, 1]))


# --- names, configs and lookup ---------------------------------------------------------------


def test_default_names_and_configs():
    assert losses.MeanSquaredError().name == "mean_squared_error"
    assert losses.Huber().name == "huber_loss"
    assert losses.Huber(delta=2.0).get_config() == {
        "name": "huber_loss",
        "reduction": "sum_over_batch_size",
    }
    assert losses.BinaryCrossentropy(label_smoothing=0.1).get_config() == {
        "name": "binary_crossentropy",
        "reduction": "sum_over_batch_size",
        "from_logits": False,
        "label_smoothing": 0.1,
        "axis": -1,
    }
    assert losses.SparseCategoricalCrossentropy(from_logits=True).get_config() == {
        "name": "sparse_categorical_crossentropy",
        "reduction": "sum_over_batch_size",
        "from_logits": True,
        "ignore_class": None,
    }
    config = losses.CategoricalCrossentropy(from_logits=True, axis=0, reduction="sum").get_config()
    clone = losses.CategoricalCrossentropy.from_config(config)
    assert clone.get_config() == config


def test_automatic_names_are_unique():
    class MyLoss(losses.Loss):
        def call(self, y_true, y_pred):
            return y_pred

    first, second = MyLoss().name, MyLoss().name
    assert first.startswith("my_loss") and second.startswith("my_loss") and first != second


def test_aliases():
    assert losses.mse is losses.MSE is losses.mean_squared_error
    assert losses.mae is losses.MAE is losses.mean_absolute_error
    assert losses.mape is losses.MAPE is losses.mean_absolute_percentage_error
    assert losses.msle is losses.MSLE is losses.mean_squared_logarithmic_error
    assert losses.kld is losses.KLD is losses.kl_divergence
    assert losses.kullback_leibler_divergence is losses.kl_divergence
    assert losses.logcosh is losses.log_cosh


def test_get():
    assert losses.get("mse") is losses.mean_squared_error
    assert losses.get("MSE") is losses.mean_squared_error
    assert losses.get("mean_squared_error") is losses.mean_squared_error
    assert losses.get("binary_crossentropy") is losses.binary_crossentropy
    assert losses.get("bce") is losses.binary_crossentropy
    assert losses.get("sparse_categorical_crossentropy") is losses.sparse_categorical_crossentropy
    assert isinstance(losses.get("CategoricalCrossentropy"), losses.CategoricalCrossentropy)
    instance = losses.Huber()
    assert losses.get(instance) is instance
    assert losses.get(losses.hinge) is losses.hinge
    assert losses.get(None) is None
    from_dict = losses.get(
        {"class_name": "CategoricalCrossentropy", "config": {"from_logits": True}}
    )
    assert isinstance(from_dict, losses.CategoricalCrossentropy) and from_dict.from_logits
    for bad in ("nope", 42, "Reduction"):
        with pytest.raises(ValueError, match="Could not interpret loss identifier"):
            losses.get(bad)


def test_serialize_and_deserialize():
    config = losses.serialize(losses.BinaryCrossentropy(from_logits=True))
    assert config["class_name"] == "BinaryCrossentropy"
    restored = losses.deserialize(config)
    assert isinstance(restored, losses.BinaryCrossentropy) and restored.from_logits
    function_config = losses.serialize(losses.mean_squared_error)
    assert function_config["config"] == "mean_squared_error"
    assert losses.deserialize(function_config) is losses.mean_squared_error


# --- optional: recompute against an installed Keras ------------------------------------------


def test_parity_with_installed_keras(cpu):
    keras_tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _cid, cls, kwargs, y_true, y_pred, sample_weight in LOSS_CASES:
            weights = None if sample_weight is None else keras_tf.constant(sample_weight)
            expected = getattr(keras.losses, cls)(**kwargs)(
                keras_tf.constant(y_true), keras_tf.constant(y_pred), sample_weight=weights
            )
            got = getattr(losses, cls)(**kwargs)(y_true, y_pred, sample_weight=sample_weight)
            _close(got.numpy(), np.asarray(expected), rtol=1e-6)
