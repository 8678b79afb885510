"""`tf.einsum` broadcasts only the axes of an ellipsis: a letter names one size in every operand,
and a size 1 meeting another size is TensorFlow's InvalidArgumentError (ValueError while a
`tf.function` is traced with known shapes), never a broadcast."""

import pytest

from .harness import assert_parity

CASES = [
    ("ij,jk->ik", (2, 3), (1, 4)),
    ("ij,jk->ik", (2, 1), (3, 4)),
    ("ij,jk->ik", (2, 3), (3, 4)),
    ("ij,ij->ij", (2, 3), (1, 3)),
    ("ij,ij->i", (2, 3), (2, 1)),
    ("ij,kj->ik", (2, 3), (4, 1)),
    ("i,i->", (3,), (1,)),
    ("bij,bjk->bik", (2, 2, 3), (1, 3, 4)),
    ("...ij,...jk->...ik", (2, 2, 3), (1, 3, 4)),
    ("ij,jk", (2, 3), (1, 4)),
    ("ii->i", (2, 3), None),
    ("ii->i", (3, 3), None),
]


def _einsum(tf, device, cases):
    import numpy as np

    def operand(shape):
        return tf.constant(np.arange(np.prod(shape), dtype="float32").reshape(shape) + 1)

    out = []
    with tf.device(device):
        for equation, a, b in cases:
            operands = [operand(a)] + ([operand(b)] if b else [])
            for fn in (tf.einsum, tf.function(lambda *t, e=equation: tf.einsum(e, *t))):
                try:
                    out.append(fn(equation, *operands) if fn is tf.einsum else fn(*operands))
                except Exception as e:  # noqa: BLE001 - the class is what is compared
                    out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_einsum_label_sizes(tf_oracle, device):
    assert_parity(tf_oracle, _einsum, (device, CASES))
