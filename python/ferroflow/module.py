"""`tf.Module`: a named container of variables and other modules, found by walking the
instance's attributes in TensorFlow's order (attributes by name, then submodules, depth first)."""

import collections.abc
import functools
import re

from ferroflow.name_scope import name_scope_v2
from ferroflow.type_spec import CompositeTensor
from ferroflow.variables import Variable

__all__ = ["Module"]

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
# TensorFlow's pattern, `$` (which also matches before a final newline) included.
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value):
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


def valid_identifier(name):
    return bool(_VALID_IDENTIFIER.match(name))


class Module:
    """Base class for neural network modules: named containers of `tf.Variable`s, other
    `tf.Module`s and the functions that apply them.

    >>> import ferroflow as tf
    >>> class Dense(tf.Module):
    ...     def __init__(self, in_size, out_size, name=None):
    ...         super().__init__(name=name)
    ...         with self.name_scope:
    ...             self.w = tf.Variable(tf.ones([in_size, out_size]), name="w")
    ...             self.b = tf.Variable(tf.zeros([out_size]), name="b")
    >>> [v.name for v in Dense(3, 2).variables]
    ['dense/b:0', 'dense/w:0']
    """

    # What TensorFlow's checkpoint tracking stores on a module; never walked.
    _TF_MODULE_IGNORED_PROPERTIES = frozenset(
        ("_self_unconditional_checkpoint_dependencies", "_self_unconditional_dependency_names")
    )

    def __init__(self, name=None):
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not valid_identifier(name):
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid Python "
                "identifiers (e.g. a valid class name)."
            )
        self._name = name
        # The full scope is fixed now (e.g. "outer/name/"), so entering it later is absolute.
        with name_scope_v2(name) as scope_name:
            self._name_scope = name_scope_v2(scope_name)

    def __setattr__(self, name, value):
        # A checkpoint restored before this attribute existed hands it its saved value now
        # (TensorFlow's restore-on-create); costs nothing while no restore is waiting.
        from ferroflow.train import _deferred  # lazy: train imports module

        _deferred.note_attribute(self, name, value)
        super().__setattr__(name, value)

    @property
    def name(self):
        """The name passed to (or derived by) the constructor, without enclosing scopes."""
        return self._name

    @property
    def name_scope(self):
        """A `tf.name_scope` for this module: ``with self.name_scope:``."""
        return self._name_scope

    @property
    def variables(self):
        """Variables of this module (sorted by attribute name), then of its submodules."""
        return tuple(self._flatten(predicate=_is_variable, expand_composites=True))

    @property
    def trainable_variables(self):
        return tuple(self._flatten(predicate=_is_trainable_variable, expand_composites=True))

    @property
    def non_trainable_variables(self):
        return tuple(self._flatten(predicate=_is_non_trainable_variable, expand_composites=True))

    @property
    def submodules(self):
        """Every module reachable from this one's attributes (not this module itself)."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(
        self,
        recursive=True,
        predicate=None,
        attribute_traversal_key=None,
        with_path=False,
        expand_composites=False,
    ):
        """The attribute values (leaves of lists, tuples and dicts within them) that satisfy
        `predicate`, and with `recursive` those of submodules; with `with_path`, as
        (path, value) pairs and without removing repeats. With `expand_composites` a composite
        value (a SparseTensor, ...) is walked into its components, its path going on with its
        type's name (as TensorFlow's), so variables held in one are found."""
        if predicate is None:

            def predicate(_):
                return True

        return _flatten_module(
            self,
            recursive=recursive,
            predicate=predicate,
            attributes_to_ignore=self._TF_MODULE_IGNORED_PROPERTIES,
            attribute_traversal_key=attribute_traversal_key,
            with_path=with_path,
            expand_composites=expand_composites,
        )

    @classmethod
    def with_name_scope(cls, method):
        """Decorates a method to run inside its module's name scope."""

        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope


def _is_variable(obj):
    return isinstance(obj, Variable)


def _is_trainable_variable(obj):
    return _is_variable(obj) and getattr(obj, "trainable", False)


def _is_non_trainable_variable(obj):
    return _is_variable(obj) and not getattr(obj, "trainable", False)


def _is_module(obj):
    return isinstance(obj, Module)


def _leaves_with_paths(value, path=(), expand_composites=False):
    """(path, leaf) for each leaf of `value`, walked as `tf.nest` walks structures: mappings by
    sorted key, mapping views and other sequences (strings excepted) in order; with
    `expand_composites`, a composite's components under its type's name."""
    if isinstance(value, collections.abc.Mapping):
        for key in sorted(value):
            yield from _leaves_with_paths(value[key], (*path, key), expand_composites)
    elif isinstance(value, collections.abc.MappingView) or (
        isinstance(value, collections.abc.Sequence) and not isinstance(value, (str, bytes))
    ):
        for index, item in enumerate(value):
            yield from _leaves_with_paths(item, (*path, index), expand_composites)
    elif expand_composites and isinstance(value, CompositeTensor) and not _is_variable(value):
        spec = value._type_spec
        yield from _leaves_with_paths(
            spec._to_components(value), (*path, spec.value_type.__name__), True
        )
    else:
        yield path, value


def _flatten_module(
    module,
    recursive,
    predicate,
    attribute_traversal_key,
    attributes_to_ignore,
    with_path,
    expand_composites=False,
    module_path=(),
    seen=None,
    recursion_stack=None,
):
    """TensorFlow's walk: this module's attributes in sorted order first, then each submodule
    found among them in that order. Without paths a value is yielded once (by identity, this
    module counting as seen); with paths a module met again on its own stack is not entered."""
    module_id = id(module)
    if seen is None:
        seen = {module_id}
    if recursion_stack is None:
        recursion_stack = []
    if module_id in recursion_stack:
        recursive = False

    attributes = vars(module)
    submodules = []
    for key in sorted(attributes, key=attribute_traversal_key):
        if key in attributes_to_ignore:
            continue
        prop = attributes[key]
        try:
            leaves = list(_leaves_with_paths(prop, expand_composites=expand_composites))
        except Exception as cause:
            raise ValueError(f"Error processing property {key!r} of {prop!r}") from cause
        for leaf_path, leaf in leaves:
            leaf_path = (key, *leaf_path)
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                submodules.append((module_path + leaf_path, leaf))

    recursion_stack.append(module_id)
    for submodule_path, submodule in submodules:
        yield from _flatten_module(
            submodule,
            recursive=recursive,
            predicate=predicate,
            attribute_traversal_key=attribute_traversal_key,
            attributes_to_ignore=submodule._TF_MODULE_IGNORED_PROPERTIES,
            with_path=with_path,
            expand_composites=expand_composites,
            module_path=submodule_path,
            seen=seen,
            recursion_stack=recursion_stack,
        )
    recursion_stack.pop()
