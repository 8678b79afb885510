"""`tf.range` whose limit lies behind its start: TensorFlow's InvalidArgumentError, also when both
ends truncate to the same integer (0.5 and -0.4 gave `[0.5]` before)."""

import pytest

from .harness import assert_parity


def _ranges(tf, device):
    out = []
    cases = [
        (0.5, -0.4, 1.0),
        (-0.4, 0.5, -1.0),
        (0.9, 0.1, 0.5),
        (0.5, 0.5, 1.0),
        (0.1, 0.9, 0.25),
        (3, 1, 1),
        (1, 1, -1),
        (5, 0, -2),
    ]
    with tf.device(device):
        for start, limit, delta in cases:
            try:
                out.append(tf.range(start, limit, delta))
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("device", ["CPU:0", "GPU:0"])
def test_range_direction(tf_oracle, device):
    assert_parity(tf_oracle, _ranges, (device,))
