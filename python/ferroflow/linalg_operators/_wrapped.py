"""What LinearOperatorAdjoint and LinearOperatorInversion share: both wrap one operator and
inherit its hints (each may only agree with the operator's)."""

from ferroflow.linalg_operators import _util
from ferroflow.linalg_operators.base import LinearOperator

_HINTS = ("is_square", "is_non_singular", "is_self_adjoint", "is_positive_definite")
_WORDS = {
    "is_square": "square",
    "is_non_singular": "non-singular",
    "is_self_adjoint": "self-adjoint",
    "is_positive_definite": "positive-definite",
}


class WrappedOperator(LinearOperator):
    """An operator defined by another one (``operator``); ``_relation`` names the relation in
    the hint error messages ("adjoint", "inverse")."""

    _relation = None
    _suffix = None

    def __init__(self, operator, hints, name):
        parameters = dict(operator=operator, **hints, name=name)
        self._operator = operator
        merged = {
            key: _util.use_operator_or_provided_hint_unless_contradicting(
                operator,
                key,
                hints[key],
                f"An operator is {_WORDS[key]} if and only if its {self._relation} is "
                f"{_WORDS[key]}.",
            )
            for key in _HINTS
        }
        super().__init__(
            dtype=operator.dtype,
            parameters=parameters,
            name=operator.name + self._suffix if name is None else name,
            **merged,
        )

    @property
    def operator(self):
        return self._operator

    def _assert_non_singular(self):
        return self.operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self.operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self.operator.assert_self_adjoint()

    def _cond(self):
        return self.operator.cond()

    @property
    def _composite_tensor_fields(self):
        return ("operator",)

    @property
    def _experimental_parameter_ndims_to_matrix_ndims(self):
        return {"operator": 0}
