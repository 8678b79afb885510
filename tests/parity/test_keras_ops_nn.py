"""`keras.ops` nn, math, linalg, image and einops ops against Keras 3 under TensorFlow 2.21:
one table of cases per device (activations, convolutions, pooling, normalizations, losses,
attention, CTC, segment ops, FFTs, decompositions), plus gradients of a few."""

import numpy as np
import pytest

from ._keras_ops_cases import run_cases
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]

rng = np.random.default_rng(0)
X = np.linspace(-3.0, 3.0, 24, dtype=np.float32).reshape(2, 3, 4)
N = np.array([[1, -2, 3], [4, 0, -6]], np.int32)
IMG = rng.uniform(-1, 1, (2, 5, 6, 3)).astype(np.float32)
IMG1 = rng.uniform(-1, 1, (2, 7, 3)).astype(np.float32)
IMG3 = rng.uniform(-1, 1, (1, 4, 4, 4, 2)).astype(np.float32)
K2 = rng.uniform(-1, 1, (3, 3, 3, 4)).astype(np.float32)
K1 = rng.uniform(-1, 1, (3, 3, 2)).astype(np.float32)
K3 = rng.uniform(-1, 1, (2, 2, 2, 2, 3)).astype(np.float32)
DW = rng.uniform(-1, 1, (3, 3, 3, 2)).astype(np.float32)
DW1 = rng.uniform(-1, 1, (3, 3, 2)).astype(np.float32)
PW = rng.uniform(-1, 1, (1, 1, 6, 4)).astype(np.float32)
KT = rng.uniform(-1, 1, (3, 3, 4, 3)).astype(np.float32)
PROB = np.array([[0.2, 0.5, 0.3], [0.7, 0.1, 0.2]], np.float32)
ONEHOT = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], np.float32)
SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], np.float32)
A = np.array([[3.0, 1.0, 2.0], [1.0, -2.0, 0.5], [0.0, 1.0, 4.0]], np.float32)
RECT = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], np.float32)
SIG = np.sin(np.arange(32, dtype=np.float32) * 0.3)
Q = rng.uniform(-1, 1, (2, 4, 2, 3)).astype(np.float32)
KV = rng.uniform(-1, 1, (2, 5, 2, 3)).astype(np.float32)
COORDS = np.array(
    [[[-1.2, 0.4], [1.5, 2.9]], [[0.0, 3.7], [-0.6, 2.5]]], np.float32
)  # 2 x (2, 2) sample positions
LOGITS = rng.uniform(-1, 1, (2, 6, 4)).astype(np.float32)

ACTIVATIONS = [
    "relu", "relu6", "sigmoid", "sparse_sigmoid", "softplus", "softsign", "soft_shrink",
    "sparse_plus", "silu", "swish", "squareplus", "log_sigmoid", "leaky_relu", "hard_sigmoid",
    "hard_silu", "hard_swish", "elu", "selu", "gelu", "celu", "glu", "tanh", "tanh_shrink",
    "hard_tanh", "hard_shrink", "softmax", "log_softmax", "sparsemax",
]  # fmt: skip


def _cases():
    cases = [(name, (X,), {}) for name in ACTIVATIONS]
    cases += [
        ("glu", (X,), {"axis": 0}),
        ("gelu", (X,), {"approximate": False}),
        ("elu", (X,), {"alpha": 0.5}),
        ("celu", (X,), {"alpha": 2.0}),
        ("leaky_relu", (X,), {"negative_slope": 0.1}),
        ("soft_shrink", (X,), {"threshold": 1.0}),
        ("hard_shrink", (X,), {"threshold": 1.0}),
        ("squareplus", (X,), {"b": 1}),
        ("threshold", (X, 0.5, -1.0), {}),
        ("softmax", (X,), {"axis": 1}),
        ("softmax", (X,), {"axis": (1, 2)}),
        ("softmax", (X,), {"axis": None}),
        ("log_softmax", (X,), {"axis": (0, 2)}),
        ("log_softmax", (X,), {"axis": None}),
        ("sparsemax", (X,), {"axis": 1}),
        ("relu", (N,), {}),
        ("conv", (IMG, K2), {}),
        ("conv", (IMG, K2), {"strides": 2, "padding": "same"}),
        ("conv", (IMG, K2), {"dilation_rate": 2, "padding": "same"}),
        ("conv", (IMG.transpose(0, 3, 1, 2), K2), {"data_format": "channels_first"}),
        ("conv", (IMG1, K1), {"strides": 2}),
        ("conv", (IMG3, K3), {"padding": "same"}),
        ("conv", (IMG, K2[:, :, :2]), {}),
        ("depthwise_conv", (IMG, DW), {}),
        ("depthwise_conv", (IMG, DW), {"strides": 2, "dilation_rate": 2, "padding": "same"}),
        ("depthwise_conv", (IMG1, DW1[:, :, :1].repeat(3, axis=1)), {"padding": "same"}),
        ("depthwise_conv", (IMG.transpose(0, 3, 1, 2), DW), {"data_format": "channels_first"}),
        ("separable_conv", (IMG, DW, PW), {}),
        ("separable_conv", (IMG, DW, PW), {"strides": (1, 2), "padding": "same"}),
        ("conv_transpose", (IMG[..., :3], KT[..., :3, :3]), {}),
        ("conv_transpose", (IMG[..., :3], KT[..., :3]), {"strides": 2, "padding": "same"}),
        (
            "conv_transpose",
            (IMG[..., :3], KT[..., :3]),
            {"strides": 2, "padding": "valid", "output_padding": 1},
        ),
        ("max_pool", (IMG, 2), {}),
        ("max_pool", (IMG, (3, 2)), {"strides": 1, "padding": "same"}),
        ("average_pool", (IMG1, 2), {"strides": 1}),
        ("average_pool", (IMG.transpose(0, 3, 1, 2), 2), {"data_format": "channels_first"}),
        ("adaptive_average_pool", (IMG, (2, 4)), {}),
        ("adaptive_max_pool", (IMG1, 3), {}),
        ("adaptive_max_pool", (IMG.transpose(0, 3, 1, 2), 2), {"data_format": "channels_first"}),
        ("depth_to_space", (np.arange(32, dtype=np.float32).reshape(1, 2, 2, 8), 2), {}),
        ("space_to_depth", (IMG[:, :4, :4], 2), {}),
        (
            "space_to_depth",
            (IMG[:, :4, :4].transpose(0, 3, 1, 2), 2),
            {"data_format": "channels_first"},
        ),
        ("space_to_depth", (IMG, 1), {}),
        ("unfold", (IMG.transpose(0, 3, 1, 2), 2), {}),
        ("unfold", (IMG.transpose(0, 3, 1, 2), (2, 3)), {"padding": 1, "stride": 2}),
        ("fold", (np.arange(48, dtype=np.float32).reshape(1, 12, 4), (3, 3), 2), {}),
        ("one_hot", (N % 3, 4), {}),
        ("one_hot", (np.array([0, 2, -1], np.int32), 3), {"axis": 0, "dtype": "int32"}),
        ("one_hot", (np.array([1, 2], np.int32), 3), {"dtype": "bool"}),
        ("multi_hot", (np.array([[0, 2], [1, 1]], np.int32), 4), {}),
        ("multi_hot", (np.array([0, 3], np.int32), 5), {"dtype": "bool"}),
        ("multi_hot", (np.array([[0, 2]], np.int32),), {"num_tokens": 3}),
        ("binary_crossentropy", (ONEHOT, PROB), {}),
        ("binary_crossentropy", (ONEHOT, X[0, :2, :3]), {"from_logits": True}),
        ("categorical_crossentropy", (ONEHOT, PROB), {}),
        ("categorical_crossentropy", (ONEHOT, X[0, :2, :3]), {"from_logits": True}),
        ("categorical_crossentropy", (ONEHOT, PROB[:, :2]), {}),
        ("sparse_categorical_crossentropy", (np.array([1, 0], np.int32), PROB), {}),
        (
            "sparse_categorical_crossentropy",
            (np.array([[2], [0]], np.int32), X[0, :2, :3]),
            {"from_logits": True},
        ),
        ("moments", (X, [0, 2]), {}),
        ("moments", (X, 1), {"keepdims": True}),
        ("moments", (X.astype(np.float16), [1]), {}),
        (
            "batch_normalization",
            (X, np.array([0.5, 0.0, -1.0], np.float32), np.array([1.0, 2.0, 0.5], np.float32), 1),
            {"offset": np.array([0.1, 0.2, 0.3], np.float32), "epsilon": 0.01},
        ),
        (
            "batch_normalization",
            (X, np.zeros(4, np.float32), np.ones(4, np.float32), -1),
            {"scale": np.full(4, 2.0, np.float32)},
        ),
        ("normalize", (X,), {}),
        ("normalize", (X,), {"axis": 1, "order": 1}),
        ("normalize", (X,), {"order": 0}),
        ("rms_normalization", (X,), {}),
        ("rms_normalization", (X,), {"scale": np.full(4, 0.5, np.float32), "epsilon": 0.1}),
        ("layer_normalization", (X,), {}),
        (
            "layer_normalization",
            (X,),
            {
                "gamma": np.array([1.0, 2.0, 3.0], np.float32),
                "beta": np.array([0.0, 0.5, 1.0], np.float32),
                "axis": 1,
            },
        ),
        ("layer_normalization", (X,), {"axis": (1, 2), "epsilon": 0.5}),
        ("psnr", (PROB, ONEHOT, 1.0), {}),
        ("polar", (PROB, ONEHOT), {}),
        ("dot_product_attention", (Q, KV, KV), {}),
        ("dot_product_attention", (Q, KV, KV), {"is_causal": True, "scale": 0.5}),
        (
            "dot_product_attention",
            (Q, KV, KV),
            {
                "mask": rng.uniform(size=(2, 2, 4, 5)) > 0.3,
                "bias": np.ones((2, 2, 4, 5), np.float32),
            },
        ),
        ("dot_product_attention", (Q, KV, KV), {"flash_attention": True}),
        (
            "ctc_loss",
            (
                np.array([[1, 2, 0], [3, 3, 1]], np.int32),
                LOGITS,
                np.array([2, 3], np.int32),
                np.array([6, 5], np.int32),
            ),
            {},
        ),
        ("ctc_decode", (LOGITS, np.array([6, 4], np.int32)), {}),
        ("ctc_decode", (LOGITS, np.array([6, 6], np.int32)), {"merge_repeated": False}),
        (
            "ctc_decode",
            (LOGITS, np.array([6, 5], np.int32)),
            {"strategy": "beam_search", "beam_width": 4, "top_paths": 2},
        ),
        # math
        ("segment_sum", (PROB, np.array([0, 0], np.int32)), {}),
        ("segment_sum", (X, np.array([1, 1], np.int32)), {"num_segments": 3}),
        ("segment_max", (X[0], np.array([0, 2, 2], np.int32)), {}),
        ("segment_min", (X[0], np.array([0, 0, 1], np.int32)), {"sorted": True}),
        ("segment_prod", (X[0], np.array([1, 0, 1], np.int32)), {"num_segments": 2}),
        ("segment_sum", (X[0], np.array([0, 1], np.int32)), {}),
        ("top_k", (X, 2), {}),
        ("top_k", (N, 1), {"sorted": False}),
        ("in_top_k", (np.array([2, 0], np.int32), PROB, 1), {}),
        ("logsumexp", (X,), {}),
        ("logsumexp", (X,), {"axis": 1, "keepdims": True}),
        ("cdist", (X[0], X[1]), {}),
        ("cdist", (X, X[:, :2]), {}),
        ("extract_sequences", (SIG, 8, 4), {}),
        ("fft", ((X, X * 0.5),), {}),
        ("fft2", ((X, -X),), {}),
        ("ifft2", ((X, X * 2.0),), {}),
        ("rfft", (SIG,), {}),
        ("rfft", (SIG,), {"fft_length": 16}),
        ("irfft", ((X[0], X[1]),), {}),
        ("irfft", ((X[0], X[1]),), {"fft_length": 4}),
        ("stft", (SIG, 8, 4, 8), {}),
        ("stft", (SIG[None], 6, 3, 8), {"window": "hamming", "center": False}),
        ("stft", (SIG, 8, 4, 8), {"window": None}),
        ("stft", (SIG.astype(np.float16), 8, 4, 8), {}),
        ("istft", ((X[0, :, :3] * 0 + 1, X[1, :, :3] * 0), 4, 2, 4), {}),
        ("istft", ((X[0, :, :3], X[1, :, :3]), 4, 2, 4), {"center": False, "window": None}),
        ("rsqrt", (np.abs(X) + 0.5,), {}),
        ("erf", (X,), {}),
        ("erfc", (X,), {}),
        ("erfinv", (X / 4.0,), {}),
        ("logdet", (SPD,), {}),
        ("view_as_complex", (X[..., :2],), {}),
        ("view_as_real", (("np", (X[0] + 1j * X[1]).astype(np.complex64)),), {}),
        # linalg
        ("cholesky", (SPD,), {}),
        ("cholesky", (SPD,), {"upper": True}),
        ("cholesky_inverse", (np.linalg.cholesky(SPD).astype(np.float32),), {}),
        ("cholesky_inverse", (np.linalg.cholesky(SPD).T.astype(np.float32),), {"upper": True}),
        ("cholesky", (RECT,), {}),
        ("det", (A,), {}),
        ("inv", (A,), {}),
        ("inv", (RECT,), {}),
        ("eigh", (SPD,), {}),
        ("lu_factor", (A,), {}),
        ("solve", (A, np.array([1.0, 2.0, 3.0], np.float32)), {}),
        ("solve", (A, RECT), {}),
        ("solve_triangular", (np.triu(A), RECT), {}),
        ("solve_triangular", (np.tril(A), np.array([1.0, 2.0, 3.0], np.float32)), {"lower": True}),
        ("svd", (RECT,), {"compute_uv": False}),
        ("qr", (RECT,), {}),
        ("qr", (RECT,), {"mode": "complete"}),
        ("qr", (RECT,), {"mode": "full"}),
        ("norm", (X,), {}),
        ("norm", (X,), {"axis": 1, "ord": 1}),
        ("norm", (X,), {"axis": -1, "ord": float("inf"), "keepdims": True}),
        ("norm", (X,), {"axis": 2, "ord": 0}),
        ("norm", (X,), {"axis": 2, "ord": 3}),
        ("norm", (N,), {"axis": 0}),
        ("norm", (A,), {"ord": "fro"}),
        ("norm", (A,), {"ord": 1}),
        ("norm", (A,), {"ord": -1, "keepdims": True}),
        ("norm", (A,), {"ord": float("inf")}),
        ("norm", (A,), {"ord": 2}),
        ("norm", (A,), {"ord": "nuc"}),
        ("norm", (X,), {"axis": (2, 1), "ord": 1}),
        ("norm", (X,), {"ord": "bad", "axis": 1}),
        ("lstsq", (RECT, np.array([1.0, 2.0, 2.0], np.float32)), {}),
        ("lstsq", (RECT, RECT), {}),
        ("matrix_rank", (RECT,), {}),
        ("pinv", (RECT,), {}),
        # image and einops
        ("image.rgb_to_grayscale", (IMG,), {}),
        ("image.rgb_to_grayscale", (IMG.transpose(0, 3, 1, 2),), {"data_format": "channels_first"}),
        ("image.rgb_to_grayscale", ((IMG * 100).astype(np.int32)[0],), {}),
        ("image.rgb_to_hsv", (np.abs(IMG),), {}),
        ("image.hsv_to_rgb", (np.abs(IMG),), {}),
        ("image.rgb_to_hsv", ((IMG * 9).astype(np.int32),), {}),
        ("image.resize", (IMG, (3, 4)), {}),
        ("image.resize", (IMG[0], (7, 5)), {"interpolation": "nearest"}),
        ("image.resize", (IMG, (4, 4)), {"crop_to_aspect_ratio": True}),
        ("image.resize", (IMG, (4, 2)), {"pad_to_aspect_ratio": True, "fill_value": 0.5}),
        ("image.resize", (IMG.transpose(0, 3, 1, 2), (3, 3)), {"data_format": "channels_first"}),
        ("image.resize", (IMG, (3,)), {}),
        ("image.affine_transform", (IMG, np.array([1, 0, 1.5, 0, 1, -1, 0, 0], np.float32)), {}),
        (
            "image.affine_transform",
            (IMG[0], np.array([0.9, 0.2, 0.5, -0.1, 1.1, 0.0, 0.01, 0.0], np.float32)),
            {"interpolation": "nearest", "fill_mode": "reflect"},
        ),
        (
            "image.affine_transform",
            (IMG.transpose(0, 3, 1, 2), np.tile(np.eye(3).reshape(-1)[:8], (2, 1)).astype("f")),
            {"data_format": "channels_first", "fill_mode": "wrap"},
        ),
        ("image.affine_transform", (IMG, np.zeros(8, np.float32)), {"fill_mode": "mirror"}),
        ("image.pad_images", (IMG, 1, 2), {"target_height": 8, "target_width": 9}),
        ("image.pad_images", (IMG[0], None, 0, 2, 1), {"target_height": 9}),
        (
            "image.pad_images",
            (IMG.transpose(0, 3, 1, 2), 1, 1, 1, 1),
            {"data_format": "channels_first"},
        ),
        ("image.pad_images", (IMG, 1, 1, 1, 1), {"target_height": 9}),
        ("image.crop_images", (IMG, 1, 2), {"target_height": 3, "target_width": 2}),
        ("image.crop_images", (IMG[0], None, 0, 1, 1), {"target_height": 2}),
        ("image.crop_images", (IMG, 4, 0), {"target_height": 3, "right_cropping": 1}),
        ("image.gaussian_blur", (IMG,), {}),
        ("image.gaussian_blur", (IMG[0],), {"kernel_size": (5, 3), "sigma": (2.0, 0.5)}),
        (
            "image.gaussian_blur",
            (IMG.transpose(0, 3, 1, 2),),
            {"data_format": "channels_first"},
        ),
        ("image.sobel_edges", (IMG,), {}),
        ("image.sobel_edges", (IMG.transpose(0, 3, 1, 2),), {"data_format": "channels_first"}),
        ("image.extract_patches", (IMG, 2), {}),
        ("image.extract_patches", (IMG[0], (2, 3)), {"strides": 1, "padding": "same"}),
        (
            "image.extract_patches",
            (IMG.transpose(0, 3, 1, 2), 2),
            {"data_format": "channels_first"},
        ),
        ("image.extract_patches", (IMG, (2, 2)), {"strides": 1, "dilation_rate": 2}),
        ("image.extract_patches", (IMG, [2, 2, 2, 2]), {}),
        (
            "image.perspective_transform",
            (
                IMG,
                np.array([[0, 0], [5, 0], [0, 4], [5, 4]], np.float32),
                np.array([[0.5, 0], [5, 0.5], [0, 4], [4.5, 3.5]], np.float32),
            ),
            {},
        ),  # fmt: skip
        (
            "image.perspective_transform",
            (
                IMG[0],
                np.array([[0, 0], [5, 0], [0, 4], [5, 4]], np.float32),
                np.array([[1, 0], [5, 1], [0, 4], [4, 3]], np.float32),
            ),
            {"interpolation": "nearest", "fill_value": 0.5},
        ),  # fmt: skip
        ("image.map_coordinates", (X[0], COORDS, 1), {}),
        ("image.map_coordinates", (X[0], COORDS, 0), {"fill_mode": "nearest"}),
        ("image.map_coordinates", (X[0], COORDS, 1), {"fill_mode": "reflect"}),
        ("image.map_coordinates", (X[0], COORDS, 1), {"fill_mode": "wrap"}),
        ("image.map_coordinates", (N, COORDS, 1), {"fill_value": 7}),
        ("image.map_coordinates", (X[0], COORDS, 2), {}),
        ("image.extract_patches", (IMG3, (2, 2, 2)), {}),
        ("image.extract_patches_3d", (IMG3[0], 2), {"strides": 1, "padding": "same"}),
        ("image.extract_patches_3d", (IMG3, (2, 2, 2)), {"strides": (1, 2, 2)}),
        ("image.ssim", (np.abs(IMG), np.abs(IMG[::-1])), {"filter_size": 3}),
        ("image.ssim", (np.abs(IMG[0]), np.abs(IMG[1])), {"filter_size": 3, "max_val": 2.0}),
        (
            "image.ssim",
            (np.abs(IMG).transpose(0, 3, 1, 2), np.abs(IMG[::-1]).transpose(0, 3, 1, 2)),
            {"filter_size": 2, "filter_sigma": 0.7, "data_format": "channels_first"},
        ),
        ("rearrange", (X, "b h w -> b (h w)"), {}),
        ("rearrange", (X, "b (h a) w -> a b w h"), {"a": 1}),
        ("rearrange", (IMG, "b h w c -> (b c) w h"), {}),
    ]
    return cases


CASES = _cases()


@pytest.mark.parametrize("device", DEVICES)
def test_nn_math_linalg_ops(tf_oracle, device):
    assert_parity(tf_oracle, run_cases, (device, CASES), rtol=2e-5, atol=2e-6)


def _decompositions(tf, device):
    # Eigen/singular vectors are unique up to sign: compare reconstructions.
    import numpy as np

    ops = tf.keras.ops
    a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], np.float32)
    r = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], np.float32)
    with tf.device(device):
        w, v = ops.eigh(a)
        u, s, vh = ops.svd(r, full_matrices=False)
        q, rr = ops.qr(r)
        lu, piv = ops.lu_factor(a)
        ew, ev = ops.eig(a)
        return (
            ops.sort(ops.real(ew)),
            ops.dtype(ew),
            ops.dtype(ev),
            w,
            ops.matmul(v * w, ops.transpose(v)),
            s,
            ops.matmul(u * s, vh),
            ops.matmul(q, rr),
            ops.abs(ops.diag(rr)),
            ops.abs(ops.diag(lu)),
            piv,
        )


@pytest.mark.parametrize("device", DEVICES)
def test_decompositions(tf_oracle, device):
    assert_parity(tf_oracle, _decompositions, (device,), rtol=1e-4, atol=1e-5)


def _gradients(tf, device):
    import numpy as np

    ops = tf.keras.ops
    x0 = np.linspace(-2.0, 2.0, 24, dtype=np.float32).reshape(2, 3, 4)
    k = np.linspace(-1.0, 1.0, 24, dtype=np.float32).reshape(2, 1, 4, 3)
    fns = [
        lambda t: ops.gelu(t),
        lambda t: ops.sparsemax(t),
        lambda t: ops.softmax(t, axis=(1, 2)),
        lambda t: ops.layer_normalization(t, axis=1),
        lambda t: ops.rms_normalization(t),
        lambda t: ops.normalize(t),
        lambda t: ops.logsumexp(t, axis=-1),
        lambda t: ops.conv(t, k, padding="same"),
        lambda t: ops.dot_product_attention(t[:, :, None], t[:, :, None], t[:, :, None]),
        lambda t: ops.norm(t, axis=(1, 2), ord="fro"),
        lambda t: ops.binary_crossentropy(ops.ones_like(t) * 0.5, ops.sigmoid(t)),
        lambda t: ops.categorical_crossentropy(ops.ones_like(t) / 4.0, ops.softmax(t)),
    ]
    out = []
    with tf.device(device):
        x = tf.constant(x0)
        for fn in fns:
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = fn(x)
                loss = tf.reduce_sum(y * y)
            out.append((y, tape.gradient(loss, x)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _gradients, (device,), rtol=1e-4, atol=1e-5)
