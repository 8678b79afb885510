"""`tf.linalg.LinearOperator` and its subclasses: structured matrices in pure Python over
ferroflow's ops (see base.py for the hooks a subclass overrides). Importing this package adds
the classes to `tf.linalg` and makes the tf.linalg functions (`adjoint`, `matmul`, `solve`,
`inv`, `cholesky`, `det`, `logdet`, `trace`, `diag_part`) accept operators."""

from ferroflow.linalg_operators.base import LinearOperator
from ferroflow.linalg_operators.full_matrix import LinearOperatorFullMatrix

# The names this package adds to tf.linalg.
EXPORTS = {
    "LinearOperator": LinearOperator,
    "LinearOperatorFullMatrix": LinearOperatorFullMatrix,
}


def _export():
    from ferroflow import linalg
    from ferroflow.linalg_operators import _api

    for name, value in EXPORTS.items():
        setattr(linalg, name, value)
    _api.install()


_export()
