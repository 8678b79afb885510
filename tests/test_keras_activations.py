"""tf.keras.activations against Keras 3 (TensorFlow 2.21): values on a grid of inputs including
large negatives and positives, gradients, softmax-like functions along an axis, use inside
tf.function, and get / serialize / deserialize.

Expected values were produced by ``keras.activations`` in TensorFlow 2.21 on float32 inputs.
"""

import math

import ferroflow as tf
import numpy as np
import pytest
from ferroflow.keras import activations

# fmt: off
X = [
    -100.0, -20.0, -5.0, -3.0, -2.5, -1.0, -0.5, -0.001, 0.0, 0.001, 0.5, 1.0, 2.5, 3.0, 5.0,
    6.0, 7.0, 20.0, 100.0,
]
EXPECTED = {
    "relu": [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.001, 0.5, 1.0, 2.5, 3.0, 5.0, 6.0, 7.0,
        20.0, 100.0,
    ],
    "relu_slope": [
        -10.0, -2.0, -0.5, -0.3, -0.25, -0.1, -0.05, -0.000100000005, 0.0, 0.001, 0.5, 1.0, 2.5,
        3.0, 5.0, 6.0, 7.0, 20.0, 100.0,
    ],
    "relu_max": [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.001, 0.5, 1.0, 2.5, 3.0, 4.0, 4.0, 4.0,
        4.0, 4.0,
    ],
    "relu_max6": [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.001, 0.5, 1.0, 2.5, 3.0, 5.0, 6.0, 6.0,
        6.0, 6.0,
    ],
    "relu_thr": [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.5, 3.0, 5.0, 6.0, 7.0,
        20.0, 100.0,
    ],
    "relu_all": [
        -49.5, -9.5, -2.0, -1.0, -0.75, 0.0, 0.0, 0.0, 0.0, 0.001, 0.5, 1.0, 2.5, 3.0, 5.0, 5.0,
        5.0, 5.0, 5.0,
    ],
    "relu_slope_thr": [
        -20.4, -4.4, -1.4, -1.0, -0.90000004, -0.6, -0.5, -0.40019998, -0.4, -0.3998, -0.3,
        -0.2, 2.5, 3.0, 5.0, 6.0, 7.0, 20.0, 100.0,
    ],
    "relu_slope_max": [
        -30.000002, -6.0, -1.5, -0.90000004, -0.75, -0.3, -0.15, -0.0003, 0.0, 0.001, 0.5, 1.0,
        2.5, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0,
    ],
    "leaky_relu": [
        -20.0, -4.0, -1.0, -0.6, -0.5, -0.2, -0.1, -0.00020000001, 0.0, 0.001, 0.5, 1.0, 2.5,
        3.0, 5.0, 6.0, 7.0, 20.0, 100.0,
    ],
    "leaky_relu_05": [
        -50.0, -10.0, -2.5, -1.5, -1.25, -0.5, -0.25, -0.0005, 0.0, 0.001, 0.5, 1.0, 2.5, 3.0,
        5.0, 6.0, 7.0, 20.0, 100.0,
    ],
    "relu6": [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.001, 0.5, 1.0, 2.5, 3.0, 5.0, 6.0, 6.0,
        6.0, 6.0,
    ],
    "elu": [
        -1.0, -1.0, -0.99326205, -0.95021296, -0.917915, -0.63212055, -0.39346933,
        -0.0009995103, 0.0, 0.001, 0.5, 1.0, 2.5, 3.0, 5.0, 6.0, 7.0, 20.0, 100.0,
    ],
    "elu_05": [
        -0.5, -0.5, -0.49663103, -0.47510648, -0.4589575, -0.31606027, -0.19673467,
        -0.00049975514, 0.0, 0.001, 0.5, 1.0, 2.5, 3.0, 5.0, 6.0, 7.0, 20.0, 100.0,
    ],
    "selu": [
        -1.7580993, -1.7580993, -1.7462534, -1.6705687, -1.6137857, -1.1113307, -0.69175816,
        -0.0017572384, 0.0, 0.001050701, 0.5253505, 1.050701, 2.6267526, 3.152103, 5.253505,
        6.304206, 7.354907, 21.01402, 105.0701,
    ],
    "softplus": [
        0.0, 2.0611537e-09, 0.006715349, 0.048587356, 0.07888974, 0.3132617, 0.474077,
        0.6926473, 0.6931472, 0.6936473, 0.9740769, 1.3132616, 2.5788898, 3.048587, 5.0067153,
        6.0024757, 7.0009117, 20.0, 100.0,
    ],
    "softsign": [
        -0.990099, -0.95238096, -0.8333333, -0.75, -0.71428573, -0.5, -0.33333334, -0.000999001,
        0.0, 0.000999001, 0.33333334, 0.5, 0.71428573, 0.75, 0.8333333, 0.85714287, 0.875,
        0.95238096, 0.990099,
    ],
    "soft_shrink": [
        -99.5, -19.5, -4.5, -2.5, -2.0, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 2.0, 2.5, 4.5, 5.5,
        6.5, 19.5, 99.5,
    ],
    "sparse_plus": [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0625, 0.24950026, 0.25, 0.2505003, 0.5625, 1.0, 2.5,
        3.0, 5.0, 6.0, 7.0, 20.0, 100.0,
    ],
    "silu": [
        -0.0, -4.1223082e-08, -0.03346426, -0.1422776, -0.18964542, -0.2689414, -0.18877034,
        -0.00049975, 0.0, 0.00050025, 0.31122968, 0.73105854, 2.3103545, 2.8577223, 4.966536,
        5.985164, 6.993623, 20.0, 100.0,
    ],
    "squareplus": [
        0.0099983215, 0.04987526, 0.19258237, 0.30277562, 0.35078108, 0.618034, 0.7807764,
        0.9995001, 1.0, 1.0005001, 1.2807764, 1.618034, 2.850781, 3.3027756, 5.192582,
        6.1622777, 7.1400547, 20.049875, 100.009995,
    ],
    "gelu": [
        -0.0, -0.0, -1.4332578e-06, -0.0040496965, -0.015524164, -0.15865526, -0.15426877,
        -0.00049960107, 0.0, 0.000500399, 0.34573123, 0.8413447, 2.4844759, 2.9959502,
        4.9999986, 6.0, 7.0, 20.0, 100.0,
    ],
    "gelu_approx": [
        -0.0, -0.0, -0.0, -0.003637433, -0.015084222, -0.158808, -0.154286, -0.00049960107, 0.0,
        0.000500399, 0.345714, 0.841192, 2.4849157, 2.9963627, 5.0, 6.0, 7.0, 20.0, 100.0,
    ],
    "celu": [
        -1.0, -1.0, -0.99326205, -0.95021296, -0.917915, -0.63212055, -0.39346933,
        -0.0009995003, 0.0, 0.001, 0.5, 1.0, 2.5, 3.0, 5.0, 6.0, 7.0, 20.0, 100.0,
    ],
    "celu_2": [
        -2.0, -1.9999092, -1.83583, -1.5537397, -1.4269904, -0.78693867, -0.44239843,
        -0.0009997501, 0.0, 0.001, 0.5, 1.0, 2.5, 3.0, 5.0, 6.0, 7.0, 20.0, 100.0,
    ],
    "tanh": [
        -1.0, -1.0, -0.99990916, -0.9950547, -0.98661435, -0.7615942, -0.46211714,
        -0.0009999997, 0.0, 0.0009999997, 0.46211714, 0.7615942, 0.98661435, 0.9950547,
        0.99990916, 0.9999877, 0.99999833, 1.0, 1.0,
    ],
    "tanh_shrink": [
        -99.0, -19.0, -4.0000906, -2.0049453, -1.5133857, -0.23840582, -0.037882864,
        -3.4924597e-10, 0.0, 3.4924597e-10, 0.037882864, 0.23840582, 1.5133857, 2.0049453,
        4.0000906, 5.0000124, 6.000002, 19.0, 99.0,
    ],
    "hard_tanh": [
        -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -0.5, -0.001, 0.0, 0.001, 0.5, 1.0, 1.0, 1.0, 1.0,
        1.0, 1.0, 1.0, 1.0,
    ],
    "hard_shrink": [
        -100.0, -20.0, -5.0, -3.0, -2.5, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.5, 3.0, 5.0, 6.0,
        7.0, 20.0, 100.0,
    ],
    "threshold": [
        -7.0, -7.0, -7.0, -7.0, -7.0, -7.0, -7.0, -7.0, -7.0, -7.0, -7.0, 1.0, 2.5, 3.0, 5.0,
        6.0, 7.0, 20.0, 100.0,
    ],
    "sigmoid": [
        0.0, 2.0611541e-09, 0.0066928524, 0.047425866, 0.07585817, 0.2689414, 0.37754068,
        0.49975, 0.5, 0.50025, 0.62245935, 0.73105854, 0.9241418, 0.95257413, 0.9933072,
        0.99752736, 0.99908894, 1.0, 1.0,
    ],
    "sparse_sigmoid": [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.4995, 0.5, 0.5005, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0,
        1.0, 1.0, 1.0,
    ],
    "hard_sigmoid": [
        0.0, 0.0, 0.0, 0.0, 0.083333336, 0.33333334, 0.41666666, 0.49983335, 0.5, 0.50016665,
        0.5833333, 0.6666667, 0.9166667, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    ],
    "log_sigmoid": [
        -100.0, -20.0, -5.0067153, -3.048587, -2.5788898, -1.3132616, -0.9740769, -0.6936473,
        -0.6931472, -0.6926473, -0.474077, -0.3132617, -0.07888974, -0.048587356, -0.006715349,
        -0.0024756854, -0.0009114665, -2.0611537e-09, -0.0,
    ],
    "hard_silu": [
        -0.0, -0.0, -0.0, -0.0, -0.20833334, -0.33333334, -0.20833333, -0.0004998334, 0.0,
        0.0005001667, 0.29166666, 0.6666667, 2.2916667, 3.0, 5.0, 6.0, 7.0, 20.0, 100.0,
    ],
    "linear": [
        -100.0, -20.0, -5.0, -3.0, -2.5, -1.0, -0.5, -0.001, 0.0, 0.001, 0.5, 1.0, 2.5, 3.0,
        5.0, 6.0, 7.0, 20.0, 100.0,
    ],
    "mish": [
        -0.0, -4.1223075e-08, -0.03357624, -0.14564748, -0.1968162, -0.3034015, -0.22074378,
        -0.00059968, 0.0, 0.00060032, 0.37524518, 0.8650984, 2.4713924, 2.986535, 4.9995522,
        5.999927, 6.999989, 20.0, 100.0,
    ],
}
XE = [
    -20.0, -5.0, -1.0, 0.0, 0.001, 1.0, 5.0, 20.0, 80.0,
]
EXPONENTIAL = [
    2.0611537e-09, 0.006737947, 0.36787945, 1.0, 1.0010005, 2.7182817, 148.41316, 4.851652e+08,
    5.5406225e+34,
]
M = [
    [
        1.0, 2.0, 3.0, 4.0,
    ],
    [
        -1.0, 0.0, 50.0, -100.0,
    ],
    [
        0.5, 0.5, 0.5, 0.5,
    ],
]
SOFTMAX = [
    [
        0.0320586, 0.087144315, 0.23688284, 0.6439142,
    ],
    [
        7.0954757e-23, 1.92875e-22, 1.0, 0.0,
    ],
    [
        0.25, 0.25, 0.25, 0.25,
    ],
]
SOFTMAX_AXIS0 = [
    [
        0.574097, 0.73612475, 3.873998e-21, 0.97068775,
    ],
    [
        0.07769558, 0.09962365, 1.0, 0.0,
    ],
    [
        0.34820738, 0.16425163, 3.1799715e-22, 0.02931223,
    ],
]
LOG_SOFTMAX = [
    [
        -3.4401896, -2.4401896, -1.4401897, -0.4401897,
    ],
    [
        -51.0, -50.0, 0.0, -150.0,
    ],
    [
        -1.3862944, -1.3862944, -1.3862944, -1.3862944,
    ],
]
LOG_SOFTMAX_AXIS0 = [
    [
        -0.554957, -0.3063557, -47.0, -0.029750416,
    ],
    [
        -2.554957, -2.3063557, 0.0, -104.02975,
    ],
    [
        -1.0549569, -1.8063557, -49.5, -3.5297503,
    ],
]
GLU = [
    [
        0.95257413, 1.9640275,
    ],
    [
        -1.0, 0.0,
    ],
    [
        0.31122968, 0.31122968,
    ],
]
GLU_AXIS0 = [
    [
        0.26894143, 1.0, 3.0, 0.0,
    ],
]
SPARSEMAX = [
    [
        0.0, 0.0, 0.0, 1.0,
    ],
    [
        0.0, 0.0, 1.0, 0.0,
    ],
    [
        0.0, 0.0, 0.0, 0.0,
    ],
]
SPARSEMAX_AXIS0 = [
    [
        0.25, 1.0, 0.0, 1.0,
    ],
    [
        0.0, 0.0, 1.0, 0.0,
    ],
    [
        0.0, 0.0, 0.0, 0.0,
    ],
]
GRADIENTS = {
    "relu": [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
        1.0, 1.0,
    ],
    "sigmoid": [
        0.0, 2.0611541e-09, 0.006648058, 0.045176655, 0.070103705, 0.19661193, 0.23500371,
        0.24999993, 0.25, 0.24999994, 0.23500371, 0.19661196, 0.07010371, 0.045176655,
        0.006648033, 0.0024665252, 0.00091022695, 0.0, 0.0,
    ],
    "tanh": [
        0.0, 0.0, 0.00018167496, 0.009866118, 0.026592135, 0.41997433, 0.78644776, 0.999999,
        1.0, 0.999999, 0.78644776, 0.41997433, 0.026592135, 0.009866118, 0.00018167496,
        2.4557114e-05, 3.33786e-06, 0.0, 0.0,
    ],
    "elu": [
        0.0, 0.0, 0.0067379475, 0.049787045, 0.08208501, 0.36787945, 0.60653067, 0.9990005, 1.0,
        1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    ],
    "selu": [
        0.0, 0.0, 0.011845946, 0.08753061, 0.14431357, 0.64676857, 1.0663412, 1.756342,
        1.050701, 1.050701, 1.050701, 1.050701, 1.050701, 1.050701, 1.050701, 1.050701,
        1.050701, 1.050701, 1.050701,
    ],
    "softplus": [
        0.0, 2.0611541e-09, 0.0066928524, 0.047425866, 0.07585817, 0.2689414, 0.37754068,
        0.49975, 0.5, 0.50025, 0.62245935, 0.73105854, 0.9241418, 0.95257413, 0.9933072,
        0.99752736, 0.99908894, 1.0, 1.0,
    ],
    "softsign": [
        9.80296e-05, 0.0022675737, 0.027777778, 0.0625, 0.08163265, 0.25, 0.44444445,
        0.99800295, 1.0, 0.99800295, 0.44444445, 0.25, 0.08163265, 0.0625, 0.027777778,
        0.020408163, 0.015625, 0.0022675737, 9.80296e-05,
    ],
    "silu": [
        -0.0, -3.916193e-08, -0.02654744, -0.08810409, -0.09940109, 0.07232948, 0.26003882,
        0.49949998, 0.5, 0.50049996, 0.7399612, 0.9276704, 1.0994011, 1.0881041, 1.0265474,
        1.0123265, 1.0054606, 1.0, 1.0,
    ],
    "gelu": [
        0.0, 0.0, -7.1469467e-06, -0.011945652, -0.03761109, -0.08331549, 0.13250488,
        0.49920213, 0.5, 0.50079787, 0.8674951, 1.0833155, 1.0376111, 1.0119456, 1.0000072, 1.0,
        1.0, 1.0, 1.0,
    ],
    "mish": [
        0.0, -3.916193e-08, -0.026747504, -0.09339309, -0.10974355, 0.059216812, 0.28951067,
        0.5993599, 0.59999996, 0.60063994, 0.88642436, 1.0490363, 1.0411294, 1.021107,
        1.0007998, 1.0001334, 1.0000201, 1.0, 1.0,
    ],
    "hard_sigmoid": [
        0.0, 0.0, 0.0, 0.0, 0.16666667, 0.16666667, 0.16666667, 0.16666667, 0.16666667,
        0.16666667, 0.16666667, 0.16666667, 0.16666667, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    ],
    "leaky_relu": [
        0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
        1.0, 1.0,
    ],
    "relu6": [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0,
        0.0, 0.0,
    ],
    "log_sigmoid": [
        1.0, 1.0, 0.9933072, 0.95257413, 0.9241418, 0.73105854, 0.62245935, 0.50025, 0.5,
        0.49975, 0.37754068, 0.2689414, 0.07585817, 0.047425866, 0.0066928524, 0.002472623,
        0.00091105123, 2.0611537e-09, 0.0,
    ],
    "celu": [
        0.0, 2.0611537e-09, 0.006737947, 0.04978707, 0.082085, 0.36787945, 0.60653067,
        0.9990005, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    ],
}
GRAD_SOFTMAX = [
    [
        -0.07991096, -0.1300762, -0.116700955, 0.32668817,
    ],
    [
        -1.4190951e-22, -1.92875e-22, 0.0, 0.0,
    ],
    [
        -0.375, -0.125, 0.125, 0.375,
    ],
]
GRAD_LOG_SOFTMAX = [
    [
        0.6794139, 1.1285567, 0.6311717, -2.4391422,
    ],
    [
        1.0, 2.0, -7.0, 4.0,
    ],
    [
        -1.5, -0.5, 0.5, 1.5,
    ],
]
# fmt: on

A = activations
CASES = {
    "relu": lambda x: A.relu(x),
    "relu_slope": lambda x: A.relu(x, negative_slope=0.1),
    "relu_max": lambda x: A.relu(x, max_value=4.0),
    "relu_max6": lambda x: A.relu(x, max_value=6),
    "relu_thr": lambda x: A.relu(x, threshold=1.0),
    "relu_all": lambda x: A.relu(x, negative_slope=0.5, max_value=5.0, threshold=-1.0),
    "relu_slope_thr": lambda x: A.relu(x, negative_slope=0.2, threshold=2.0),
    "relu_slope_max": lambda x: A.relu(x, negative_slope=0.3, max_value=3.0),
    "leaky_relu": lambda x: A.leaky_relu(x),
    "leaky_relu_05": lambda x: A.leaky_relu(x, negative_slope=0.5),
    "relu6": A.relu6,
    "elu": A.elu,
    "elu_05": lambda x: A.elu(x, alpha=0.5),
    "selu": A.selu,
    "softplus": A.softplus,
    "softsign": A.softsign,
    "soft_shrink": A.soft_shrink,
    "sparse_plus": A.sparse_plus,
    "silu": A.silu,
    "squareplus": A.squareplus,
    "gelu": A.gelu,
    "gelu_approx": lambda x: A.gelu(x, approximate=True),
    "celu": A.celu,
    "celu_2": lambda x: A.celu(x, alpha=2.0),
    "tanh": A.tanh,
    "tanh_shrink": A.tanh_shrink,
    "hard_tanh": A.hard_tanh,
    "hard_shrink": A.hard_shrink,
    "threshold": lambda x: A.threshold(x, 0.5, -7.0),
    "sigmoid": A.sigmoid,
    "sparse_sigmoid": A.sparse_sigmoid,
    "hard_sigmoid": A.hard_sigmoid,
    "log_sigmoid": A.log_sigmoid,
    "hard_silu": A.hard_silu,
    "linear": A.linear,
    "mish": A.mish,
}

# float32 kernels differ from TensorFlow's in the last bits; the absolute slack also covers
# the GPU's tanh near 0 and gelu's erf cancellation in the far negative tail.
RTOL, ATOL = 1e-5, 1e-6


def close(actual, expected, rtol=RTOL, atol=ATOL):
    np.testing.assert_allclose(np.asarray(actual, np.float64), expected, rtol=rtol, atol=atol)


def grid():
    return tf.constant(np.array(X, np.float32))


def matrix():
    return tf.constant(np.array(M, np.float32))


def test_cases_cover_every_expected_value():
    assert set(CASES) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_keras(name, device):
    out = CASES[name](grid())
    assert out.shape == (len(X),) and out.dtype == tf.float32
    close(out, EXPECTED[name])


def test_exponential_matches_keras():
    close(A.exponential(tf.constant(np.array(XE, np.float32))), EXPONENTIAL, atol=0)


@pytest.mark.parametrize(
    "name, fn, expected",
    [
        ("softmax", lambda m: A.softmax(m), SOFTMAX),
        ("softmax_axis0", lambda m: A.softmax(m, axis=0), SOFTMAX_AXIS0),
        ("log_softmax", lambda m: A.log_softmax(m), LOG_SOFTMAX),
        ("log_softmax_axis0", lambda m: A.log_softmax(m, axis=0), LOG_SOFTMAX_AXIS0),
        ("glu", lambda m: A.glu(m), GLU),
        ("glu_axis0", lambda m: A.glu(m[:2], axis=0), GLU_AXIS0),
        ("sparsemax", lambda m: A.sparsemax(m), SPARSEMAX),
        ("sparsemax_axis0", lambda m: A.sparsemax(m, axis=0), SPARSEMAX_AXIS0),
    ],
)
def test_axis_functions_match_keras(name, fn, expected, device):
    close(fn(matrix()), expected, atol=1e-7)


def test_softmax_with_axis_none_normalizes_over_all_elements():
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    expected = np.exp(x) / np.exp(x).sum()
    close(A.softmax(tf.constant(x), axis=None), expected)
    close(A.log_softmax(tf.constant(x), axis=None), np.log(expected))


def test_softmax_rows_sum_to_one_and_survive_huge_logits():
    out = A.softmax(tf.constant([[1000.0, 0.0, -1000.0], [3.0, 3.0, 3.0]]))
    close(out, [[1.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3]])


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradients_match_keras(name):
    x = grid()
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = getattr(A, name)(x)
    close(tape.gradient(y, x), GRADIENTS[name])


@pytest.mark.parametrize(
    "fn, expected", [(A.softmax, GRAD_SOFTMAX), (A.log_softmax, GRAD_LOG_SOFTMAX)]
)
def test_softmax_gradients_match_keras(fn, expected):
    m = matrix()
    with tf.GradientTape() as tape:
        tape.watch(m)
        y = tf.reduce_sum(fn(m) * tf.constant([[1.0, 2.0, 3.0, 4.0]]))
    close(tape.gradient(y, m), expected, atol=1e-7)


@pytest.mark.parametrize("fn", [A.elu, A.selu, lambda x: A.elu(x, alpha=0.5), A.celu])
def test_exponential_units_have_finite_gradients_for_large_inputs(fn):
    x = tf.constant([-200.0, -100.0, 100.0, 200.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    grad = tape.gradient(y, x).numpy()
    assert np.all(np.isfinite(grad))
    assert grad[0] == 0.0 and grad[-1] > 0.99


def test_variable_inputs_are_differentiable():
    v = tf.Variable([[-1.0, 2.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(A.relu(v) + A.sigmoid(v))
    sig = 1 / (1 + np.exp(-np.array([-1.0, 2.0])))
    close(tape.gradient(y, v), [[0.0 + sig[0] * (1 - sig[0]), 1.0 + sig[1] * (1 - sig[1])]])


def test_functions_work_inside_tf_function():
    @tf.function
    def apply(x):
        return (
            A.relu(x, negative_slope=0.5, max_value=5.0, threshold=-1.0),
            A.softmax(x),
            A.gelu(x),
            A.selu(x),
            A.get("swish")(x),
        )

    x = grid()
    relu, soft, gelu, selu, swish = apply(x)
    close(relu, EXPECTED["relu_all"])
    close(soft, A.softmax(x).numpy())
    close(gelu, EXPECTED["gelu"])
    close(selu, EXPECTED["selu"])
    close(swish, EXPECTED["silu"])


@pytest.mark.parametrize("dtype", [tf.float64, tf.float16])
def test_dtype_is_preserved(dtype):
    x = tf.constant([-2.0, 0.5, 3.0], dtype=dtype)
    for name in ["relu", "elu", "selu", "gelu", "softsign", "hard_sigmoid", "mish", "softmax"]:
        out = A.get(name)(x)
        assert out.dtype == dtype, name
    assert A.relu(x, max_value=2.0, threshold=0.1, negative_slope=0.1).dtype == dtype


def test_accepts_python_lists_and_linear_is_the_identity():
    close(A.relu([-1.0, 2.0]), [0.0, 2.0])
    value = object()
    assert A.linear(value) is value


def test_glu_rejects_an_odd_axis():
    with pytest.raises(ValueError, match="divisible by 2"):
        A.glu(tf.ones([2, 3]))


# -- get / serialize / deserialize --------------------------------------------------------

NAMES = [
    "relu", "sigmoid", "tanh", "softmax", "linear", "elu", "selu", "softplus", "softsign",
    "swish", "silu", "gelu", "exponential", "leaky_relu", "relu6", "hard_sigmoid", "mish",
    "log_softmax", "celu", "glu", "squareplus", "soft_shrink", "sparse_plus", "tanh_shrink",
    "hard_tanh", "hard_shrink", "threshold", "sparse_sigmoid", "log_sigmoid", "hard_silu",
    "hard_swish", "sparsemax",
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_get_resolves_every_keras_name(name):
    fn = A.get(name)
    assert callable(fn)
    assert fn is getattr(A, name)


def test_get_aliases_none_callables_and_dicts():
    assert A.get("swish") is A.silu and A.swish is A.silu
    assert A.get("hard_swish") is A.hard_silu
    assert A.get(None) is A.linear
    assert A.get(tf.nn.relu) is tf.nn.relu

    def custom(x):
        return x * 2

    assert A.get(custom) is custom
    config = {"module": "keras.activations", "class_name": "function", "config": "relu"}
    assert A.get(config) is A.relu


def test_gelu_defaults_to_the_exact_form():
    x = grid()
    close(A.get("gelu")(x), EXPECTED["gelu"])
    assert not np.allclose(A.gelu(x).numpy(), A.gelu(x, approximate=True).numpy())


@pytest.mark.parametrize("bad", ["foo", "Relu", 3])
def test_get_rejects_unknown_identifiers(bad):
    with pytest.raises(
        ValueError, match=f"Could not interpret activation function identifier: {bad}"
    ):
        A.get(bad)


def test_serialize_gives_keras_names_and_round_trips():
    assert A.serialize(A.relu) == "relu"
    assert A.serialize(A.swish) == "silu"
    assert A.serialize(A.hard_swish) == "hard_silu"
    for name in NAMES:
        fn = A.get(name)
        assert A.deserialize(A.serialize(fn)) is fn


def test_serialize_rejects_unknown_functions():
    with pytest.raises(ValueError, match="Unknown activation function"):
        A.serialize(lambda x: x)


def test_deserialize_errors_and_custom_objects():
    with pytest.raises(ValueError, match="Could not interpret activation function identifier"):
        A.deserialize("nope")

    def custom(x):
        return x

    assert A.deserialize("custom", custom_objects={"custom": custom}) is custom


def test_float64_constants_round_like_keras():
    x = tf.constant([-1.0, 10.0], dtype=tf.float64)
    # Keras casts max_value through float32 (`ops.cast` of a Python float)...
    relu = A.relu(x, negative_slope=0.1, max_value=3.7).numpy().tolist()
    assert relu == [-0.1, 3.700000047683716]
    # ...but Python scalars combined with the tensor keep full precision.
    assert A.threshold(x, 0.5, -3.7).numpy().tolist() == [-3.7, 10.0]
    np.testing.assert_allclose(
        A.elu(x[:1], alpha=0.3).numpy(), [0.3 * math.expm1(-1.0)], rtol=1e-15
    )
    np.testing.assert_allclose(
        A.squareplus(x, b=0.3).numpy(), (x.numpy() + np.sqrt(x.numpy() ** 2 + 0.3)) / 2, rtol=1e-15
    )
