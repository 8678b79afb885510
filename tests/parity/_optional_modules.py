"""The optional modules that Keras imports only at run time (SciPy, PIL, pandas): `make test`
installs them into both test environments, so a parity test that needs one skips locally where
an interpreter lacks it and fails under CI=true, as `harness.oracle_unavailable` does for
TensorFlow."""

import os

import pytest

from .harness import run_both

OPTIONAL = ("scipy", "PIL", "pandas")


def _modules(tf):
    import importlib.util

    return ",".join(name for name in ("scipy", "PIL", "pandas") if importlib.util.find_spec(name))


def shared_modules(oracle):
    """The optional modules that TensorFlow's and ferroflow's interpreters both have (sorted)."""
    expected, actual = run_both(oracle, _modules)
    return sorted(set(expected[2].split(",")) & set(actual[2].split(",")) - {""})


def require_modules(oracle, *names):
    """The modules both interpreters have; skips the calling test (fails it under CI) unless they
    include ``names``."""
    shared = shared_modules(oracle)
    missing = sorted(set(names) - set(shared))
    if missing:
        message = f"{missing} not in both test environments (`make test` installs them)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return shared
