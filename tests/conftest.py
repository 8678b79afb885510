"""Device parametrisation shared by the test modules.

Tests that take the ``device`` fixture run once on the CPU and once on GPU:0 inside
``tf.device``. Without a GPU the GPU run skips, except under ``CI=true``, where a missing adapter
(lavapipe not installed, ``FERROFLOW_ALLOW_SOFTWARE_GPU`` unset) is a failure: CI must exercise
every WGSL kernel.
"""

import os

import ferroflow as tf
import pytest


def gpu_available():
    return bool(tf.config.list_logical_devices("GPU"))


def require_gpu():
    """Skips (or, in CI, fails) the calling test when no GPU adapter is visible."""
    if gpu_available():
        return
    message = (
        "no GPU adapter found: install Mesa's lavapipe (mesa-vulkan-drivers) and set "
        "FERROFLOW_ALLOW_SOFTWARE_GPU=1, or run on a machine with a GPU"
    )
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(params=["CPU:0", "GPU:0"])
def device(request):
    if request.param.startswith("GPU"):
        require_gpu()
    with tf.device(request.param):
        yield request.param
