"""Keras 3's top-level scopes and rematerialization: `StatelessScope`, `SymbolicScope`,
`RematScope` and `remat`.

`remat` is TensorFlow's `tf.recompute_grad`, as in Keras's TensorFlow backend; `RematScope`
only records the requested mode (rematerialization changes memory, never values).

`StatelessScope` keeps Keras variables unchanged across the scope: on entry each variable of
``state_mapping`` takes its mapped value, and every Keras variable assigned inside is noted; on
exit the current values of all of them are kept in the scope (`get_current_value`) and the
variables get their values from before the scope back. Inside the scope reads see the mapped
and updated values, as in Keras. Optimizer updates are not collected: under TensorFlow, Keras's
optimizers assign the variables themselves, inside a scope too.

Losses a layer adds inside a scope are not kept on the layer: with ``collect_losses=True`` they
go to the scope's ``losses`` (and the layer's ``losses`` lists those it added there, until the
scope ends), otherwise they are dropped."""

import contextlib

from ferroflow.gradient_utils import recompute_grad

__all__ = ["RematScope", "StatelessScope", "SymbolicScope", "remat"]

_state = {"stateless_scope": None, "symbolic_scope": None, "remat_scope_stack": []}


class StatelessScope:
    """Scope in which updates to Keras variables are collected instead of kept."""

    def __init__(self, state_mapping=None, collect_losses=False, initialize_variables=True):
        from ferroflow.array_ops import cast, convert_to_tensor
        from ferroflow.keras._variables import Variable

        self.collect_losses = collect_losses
        self.initialize_variables = initialize_variables
        self.losses = []
        self.state_mapping = {}
        self._variables = {}
        self._saved = {}
        for k, v in state_mapping or {}:
            if not isinstance(k, Variable):
                raise ValueError(
                    "Invalid reference variable in StatelessScope: all keys in argument "
                    f"`mapping` must be Variable instances. Received instead: {k}"
                )
            if isinstance(v, Variable):
                v = cast(v.value(), k.dtype)
            else:
                v = convert_to_tensor(v, dtype=k.dtype)
            if tuple(k.shape) != tuple(v.shape):
                raise ValueError(
                    "Invalid variable value in StatelessScope: all values in argument "
                    "`mapping` must be tensors with a shape that matches the corresponding "
                    f"variable shape. For variable {k}, received invalid value {v} with shape "
                    f"{v.shape}."
                )
            self.state_mapping[id(k)] = v
            self._variables[id(k)] = k

    def __enter__(self):
        self.original_scope = _state["stateless_scope"]
        _state["stateless_scope"] = self
        for key, variable in self._variables.items():
            self.touch(variable)
            _raw_assign(variable, self.state_mapping[key])
        return self

    def touch(self, variable):
        """Notes ``variable`` (about to change) so that the scope can restore it on exit."""
        if id(variable) not in self._saved:
            self._saved[id(variable)] = (variable, variable.value())

    def add_loss(self, loss):
        self.losses.append(loss)

    def add_update(self, update):
        variable, value = update
        self.state_mapping[id(variable)] = value

    def get_current_value(self, variable):
        """The variable's value in the scope (None if the scope neither maps nor updated it)."""
        return self.state_mapping.get(id(variable), None)

    def __exit__(self, *args, **kwargs):
        _state["stateless_scope"] = self.original_scope
        for key, (variable, original) in self._saved.items():
            self.state_mapping[key] = variable.value()
            _raw_assign(variable, original)
        self._saved = {}


def _raw_assign(variable, value):
    from ferroflow.variables import Variable as _TFVariable

    _TFVariable.assign(variable, value, read_value=False)


@contextlib.contextmanager
def outside_stateless_scope():
    """Writes within it reach the variables themselves, as the optimizers' updates do in
    Keras's TensorFlow backend (they assign the `tf.Variable` directly)."""
    scope = _state["stateless_scope"]
    _state["stateless_scope"] = None
    try:
        yield
    finally:
        _state["stateless_scope"] = scope


def add_layer_losses(layer, losses):
    """`Layer.add_loss`: kept on ``layer``, or handed to the current stateless scope."""
    scope = _state["stateless_scope"]
    if scope is None:
        layer._losses.extend(losses)
    elif scope.collect_losses:
        for loss in losses:
            scope.add_loss(loss)
            layer._loss_ids.add(id(loss))


def own_losses(layer):
    """The losses ``layer`` itself added: in a stateless scope, those the scope collected."""
    scope = _state["stateless_scope"]
    if scope is None:
        return list(layer._losses)
    return [loss for loss in scope.losses if id(loss) in layer._loss_ids]


def clear_layer_losses(layer):
    """Forgets ``layer``'s own losses, also those a collecting scope holds for it."""
    scope = _state["stateless_scope"]
    if scope is not None and scope.collect_losses:
        # By identity: comparing tensors with `==` would compare their values.
        scope.losses[:] = [loss for loss in scope.losses if id(loss) not in layer._loss_ids]
    layer._losses.clear()
    layer._loss_ids.clear()


def in_stateless_scope():
    return _state["stateless_scope"] is not None


def get_stateless_scope():
    return _state["stateless_scope"]


class SymbolicScope:
    """Scope to indicate the symbolic stage."""

    def __enter__(self):
        self.original_scope = _state["symbolic_scope"]
        _state["symbolic_scope"] = self
        return self

    def __exit__(self, *args, **kwargs):
        _state["symbolic_scope"] = self.original_scope


def in_symbolic_scope():
    return _state["symbolic_scope"] is not None


class RematScope:
    """A context manager that selects which layer calls Keras rematerializes (``"full"``,
    ``"activations"``, ``"larger_than"``, ``"list_of_layers"`` or None). Values are the same
    either way; ferroflow records the mode."""

    def __init__(self, mode="full", output_size_threshold=1024, layer_names=None):
        if mode not in {"full", "activations", "larger_than", "list_of_layers", None}:
            raise ValueError(
                f"Invalid mode '{mode}'. Supported modes are: 'full', 'activations', "
                "'larger_than', 'list_of_layers', or  None."
            )
        self.mode = mode
        self.output_size_threshold = output_size_threshold
        self.layer_names = layer_names or []
        self._pop_on_exit = False

    def __enter__(self):
        _state["remat_scope_stack"].append(self)
        self._pop_on_exit = True
        return self

    def __exit__(self, *args, **kwargs):
        if self._pop_on_exit:
            _state["remat_scope_stack"].pop()


def remat(f):
    """``f`` whose intermediate values are recomputed in the backward pass
    (`tf.recompute_grad`, as Keras's TensorFlow backend)."""
    return recompute_grad(f)
