"""`tf.function`: the first call with a new signature traces the Python function into a Rust
graph; later calls with that signature run the graph without running Python."""

import functools
import inspect
import threading
import traceback
import weakref

from ferroflow import _captured_defaults, _core, _function_hooks, _graph_tape, config, nest
from ferroflow import _signature as sig
from ferroflow.concrete_function import ConcreteFunction, GraphTensor, output_template
from ferroflow.device_scope import active_scopes
from ferroflow.tensor_spec import TensorSpec
from ferroflow.traceback_utils import filter_traceback
from ferroflow.type_spec import TypeSpec

__all__ = ["Function", "function"]

_PACKAGE_DIR = __file__.rsplit("/", 1)[0]


def function(
    func=None,
    input_signature=None,
    autograph=True,
    jit_compile=None,
    reduce_retracing=False,
    experimental_implements=None,
    experimental_autograph_options=None,
    experimental_attributes=None,
    experimental_relax_shapes=None,
    experimental_compile=None,
    experimental_follow_type_hints=None,
    name=None,
):
    """Compiles `func` into a graph-backed callable (usable as a decorator, with or without
    arguments)."""
    relax = bool(reduce_retracing or experimental_relax_shapes)

    def decorate(f):
        return functools.update_wrapper(Function(f, name, input_signature, autograph, relax), f)

    return decorate if func is None else decorate(func)


class Function:
    """What `tf.function` returns: a cache of concrete functions, one per input signature."""

    def __init__(
        self,
        python_function,
        name=None,
        input_signature=None,
        autograph=True,
        reduce_retracing=False,
    ):
        if not callable(python_function):
            raise TypeError(f"tf.function expects a callable, got {python_function!r}")
        self._python_function = python_function
        self._name = name or getattr(python_function, "__name__", "function")
        self._autograph = autograph
        self._converted = None
        self._reduce_retracing = reduce_retracing
        self._input_signature = None if input_signature is None else tuple(input_signature)
        for spec in nest.flatten(list(self._input_signature or ())):
            if not isinstance(spec, TypeSpec):
                raise TypeError(f"input_signature must contain TensorSpecs, got {spec!r}")
        try:
            self._signature = inspect.signature(python_function)
        except (TypeError, ValueError):
            self._signature = None
        self._plain_arity = _plain_arity(self._signature)
        self._concrete = {}
        self._relaxed = []
        self._tracing_count = 0
        self._made_variables = False
        self._lock = threading.RLock()
        self._bound = weakref.WeakKeyDictionary()
        self._watched = set()

    # --- the TensorFlow surface --------------------------------------------------------------

    @property
    def python_function(self):
        return self._python_function

    @property
    def input_signature(self):
        return self._input_signature

    def experimental_get_tracing_count(self):
        return self._tracing_count

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            return self._bound[instance]
        except (KeyError, TypeError):
            pass
        bound = BoundFunction(self, instance)
        try:
            self._bound[instance] = bound
        except TypeError:
            pass
        return bound

    @filter_traceback
    def __call__(self, *args, **kwargs):
        return self._call(None, args, kwargs)

    def get_concrete_function(self, *args, **kwargs):
        return self._concrete_for(None, args, kwargs)

    def __repr__(self):
        return f"<ferroflow.function.Function object at 0x{id(self):x}>"

    # --- calls ----------------------------------------------------------------------------

    def _call(self, instance, args, kwargs):
        if config.functions_run_eagerly() and not _core.graph_tracing():
            # tf.config.run_functions_eagerly: the Python function itself, no graph.
            return self._run_python(instance, args, kwargs or {})
        if _core.graph_tracing():
            return self._run_nested(instance, args, kwargs or {})
        values = self._bind(instance, args, kwargs)
        if self._input_signature is not None:
            self._check_captured_defaults(instance, values, args, kwargs)
            values = sig.python_values_as_tensors(values, self._input_signature)
            tensors = sig.check_against_signature(
                values[: len(self._input_signature)], self._input_signature
            )
            concrete = self._signature_concrete(instance, values, tensors)
            return concrete._call_flat(tensors)
        tensors = []
        key = sig.key_of((instance and id(instance), active_scopes(), values), tensors)
        concrete = self._concrete.get(key) or self._lookup_relaxed(key)
        if concrete is None:
            concrete = self._trace(instance, values, key, tensors)
        elif concrete._core.specialised and not _same_dims(concrete, tensors):
            concrete = self._specialise(instance, values, key, tensors)
        return concrete._call_flat(tensors)

    def _run_nested(self, instance, args, kwargs):
        """Inside another function's trace this body is traced inline into that graph. As a
        nested function is its own graph in TensorFlow, its tensor arguments are its own
        inputs: `tf.gradients` and tapes inside it stop at them, and one tensor passed twice
        is two inputs. Tapes of the caller see each input as an identity of what was passed."""
        flat = nest.flatten((args, kwargs))
        slots = [i for i, v in enumerate(flat) if isinstance(v, _core.Tensor)]
        if slots:
            passed = [flat[i] for i in slots]
            for i, own in zip(slots, _core.record_custom(passed, passed, _pass_through)):
                flat[i] = own
            args, kwargs = nest.pack_sequence_as((args, kwargs), flat)
        with _graph_tape.recording():
            return self._run_python(instance, args, kwargs)

    def _concrete_for(self, instance, args, kwargs):
        if self._input_signature is not None and not args and not kwargs:
            args = self._input_signature
        values = self._bind(instance, args, kwargs)
        composites = self._input_signature is not None
        if composites:
            self._check_captured_defaults(instance, values, args, kwargs)
        values = tuple(_example_for(v, composites) for v in values)
        if self._input_signature is not None:
            values = sig.python_values_as_tensors(values, self._input_signature)
            tensors = sig.check_against_signature(
                values[: len(self._input_signature)], self._input_signature
            )
            return self._signature_concrete(instance, values, tensors)
        tensors = []
        key = sig.key_of((instance and id(instance), active_scopes(), values), tensors)
        key = _with_spec_dims(key, args, kwargs, self, instance)
        concrete = self._concrete.get(key) or self._lookup_relaxed(key)
        if concrete is None:
            concrete = self._trace(instance, values, key, tensors)
            if key not in dict(self._relaxed) and _has_unknowns(key):
                # As TensorFlow's trace cache: later calls whose types are subtypes of the
                # specs given here (known sizes for unknown ones) run this trace.
                self._relaxed.append((key, concrete))
        return concrete

    def _bind(self, instance, args, kwargs):
        """The arguments in parameter order with defaults applied, `self` left out (`*args`
        stays a tuple, `**kwargs` a dict)."""
        if self._signature is None:
            if kwargs:
                raise TypeError(f"{self._name} takes no keyword arguments")
            return tuple(args)
        full = (instance, *args) if instance is not None else args
        if not kwargs and len(full) == self._plain_arity:
            # Every parameter given by position, none with a default: binding is the identity.
            return tuple(args)
        try:
            bound = self._signature.bind(*full, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self._name}(): {e}") from None
        bound.apply_defaults()
        values = tuple(bound.arguments.values())
        return values[1:] if instance is not None else values

    def _captured_parameters(self, instance):
        """The parameters past the input signature (TensorFlow's captured defaults)."""
        return _captured_defaults.extra_parameters(
            self._signature, len(self._input_signature), instance is not None
        )

    def _check_captured_defaults(self, instance, values, args, kwargs):
        covered, shown = len(self._input_signature), tuple(self._input_signature)
        params = _captured_defaults.extra_parameters(self._signature, 0, instance is not None)
        _captured_defaults.check_keywords(params, args, kwargs or {}, shown)
        _captured_defaults.check(params[covered:], values[covered:], args, kwargs or {}, shown)

    def _lookup_relaxed(self, key):
        for pattern, concrete in self._relaxed:
            if sig.admits(pattern, key):
                self._concrete[key] = concrete
                return concrete
        return None

    def _signature_concrete(self, instance, values, tensors):
        specs = nest.flatten(self._input_signature, expand_composites=True)
        # A spec of unknown rank (TensorSpec(None)) is traced once per rank it is called with:
        # the static types ferroflow traces know every rank. Only the first trace counts,
        # as one does in TensorFlow, which traces an unknown rank once.
        ranks = tuple(
            len(t._dims) if s.shape.rank is None else None for s, t in zip(specs, tensors)
        )
        key = ("signature", instance and id(instance), active_scopes())
        ranked = any(r is not None for r in ranks)
        if ranked:
            key = (*key, ranks)
        concrete = self._concrete.get(key)
        if concrete is None:
            dims = [
                (None,) * r if r is not None else tuple(s.shape.dims) for s, r in zip(specs, ranks)
            ]
            first = not ranked or not any(
                k[:3] == key[:3] and len(k) == 4 for k in self._concrete if k[0] == "signature"
            )
            concrete = self._trace(instance, values, key, tensors, dims, count=first)
        elif concrete._core.specialised:
            traced = [tuple(t._dims) for t in concrete._examples]
            if traced != [tuple(t._dims) for t in tensors]:
                exact = (
                    "signature-exact",
                    instance and id(instance),
                    tuple(tuple(t._dims) for t in tensors),
                )
                dims = [tuple(t._dims) for t in tensors]
                concrete = self._concrete.get(exact) or self._trace(
                    instance, values, exact, tensors, dims, count=False
                )
        return concrete

    def _specialise(self, instance, values, key, tensors):
        # Traced at the call's own sizes (a composite's key leaves some unknown).
        dims = [tuple(t._dims) for t in tensors]
        exact = ("exact", key, tuple(dims))
        return self._concrete.get(exact) or self._trace(
            instance, values, exact, tensors, dims, count=False
        )

    # --- tracing --------------------------------------------------------------------------

    def _trace(self, instance, values, key, tensors, dims=None, count=True):
        with self._lock:
            if self._reduce_retracing and dims is None and count:
                key, dims = self._relaxed_key(key)
            if dims is None:
                dims = [leaf.dims for leaf in sig.leaves(key)]
            concrete = self._trace_graph(instance, values, key, tensors, dims, count)
            self._forget_when_collected(instance)
            if self._reduce_retracing and any(None in d for d in dims):
                self._relaxed.append((key, concrete))
            self._concrete[key] = concrete
            return concrete

    def _forget_when_collected(self, instance):
        """Traces of a method are keyed by their instance's id, which Python reuses once the
        instance is collected: drop them then, or a new object at the same address would run
        a graph that reads the old object's variables."""
        if instance is None or id(instance) in self._watched:
            return
        try:
            weakref.finalize(instance, self._forget, id(instance))
        except TypeError:
            return  # not weakly referenceable: its traces stay (as before)
        self._watched.add(id(instance))

    def _forget(self, owner):
        with self._lock:
            self._watched.discard(owner)
            self._concrete = {k: c for k, c in self._concrete.items() if c._owner != owner}
            self._relaxed = [(k, c) for k, c in self._relaxed if c._owner != owner]

    def _relaxed_key(self, key):
        """With reduce_retracing, a second shape for the same structure traces with the
        differing dimensions unknown."""
        for pattern, _ in list(self._concrete.items()):
            relaxed = sig.relax(pattern, key)
            if relaxed is not None and relaxed != key:
                return relaxed, [leaf.dims for leaf in sig.leaves(relaxed)]
        return key, None

    def _trace_graph(self, instance, values, key, tensors, dims, count):
        context = _function_hooks.TraceContext(allow_variables=not self._made_variables)
        # Described before the body runs: it may write to an eager TensorArray argument.
        counts = [_count_tensors(v) for v in values]
        names = self._placeholder_names(values, counts)
        structured_inputs = self._structured_inputs(instance, values, key, counts)
        _core.trace_begin()
        try:
            with _function_hooks.tracing(context):
                placeholders = [
                    _core.trace_placeholder(t, n, list(d)) for t, n, d in zip(tensors, names, dims)
                ]
                symbolic_values = sig.replace_tensors(
                    values, placeholders, specs=self._composite_specs(key)
                )
                with _graph_tape.recording():
                    outputs = self._run_python(instance, symbolic_values, None)
                template, flat = output_template(outputs)
                graph = _core.trace_finish(flat)
                passes = config._graph_passes()
                if passes is not None:  # tf.config.optimizer's options
                    graph = graph.with_passes(passes)
        except BaseException as e:
            _core.trace_abandon()
            _note_user_line(e, self._name)
            raise
        if count:
            self._tracing_count += 1
        self._made_variables |= context.created > 0
        output_tensors = [GraphTensor(n, d, t) for n, d, t in graph.outputs()]
        concrete = ConcreteFunction(
            self._name, graph, key, structured_inputs, template, output_tensors
        )
        concrete._examples = list(tensors)
        concrete._input_names = names
        concrete._owner = None if instance is None else id(instance)
        concrete._leaves = [sig.TensorLeaf(t._dtype_enum, tuple(d)) for t, d in zip(tensors, dims)]
        return concrete

    def _placeholder_names(self, values, counts):
        names = []
        params = list(self._signature.parameters) if self._signature else []
        if params and params[0] == "self" and len(params) > len(values):
            params = params[1:]
        for i, count in enumerate(counts):
            base = params[i] if i < len(params) else f"args_{i}"
            names.extend([base] * count)
        return names

    def _structured_inputs(self, instance, values, key, counts):
        if self._input_signature is not None:
            covered = len(self._input_signature)
            positional, keywords = _captured_defaults.structure(
                self._captured_parameters(instance), values[covered:]
            )
            return (*self._input_signature, *positional), keywords
        leaves = sig.leaves(key)
        it = iter(leaves)
        composite_specs = iter(sig.composite_specs(key))
        specs = []
        for v, count in zip(values, counts):
            specs.append(
                sig.replace_tensors(
                    v,
                    [sig.spec_of(next(it), None) for _ in range(count)],
                    specs=composite_specs,
                    composite=lambda spec, parts: spec,
                )
            )
        return tuple(specs), {}

    def _composite_specs(self, key):
        """The specs of the composite arguments a trace rebuilds from its placeholders: the
        signature's, else the key's."""
        if self._input_signature is not None and key[0] != "exact":
            return [s for s in nest.flatten(self._input_signature) if not isinstance(s, TensorSpec)]
        return sig.composite_specs(key)

    def _run_python(self, instance, values, kwargs):
        """Runs the (converted) Python function: with `values` in parameter order as `_bind`
        made them, or, when `kwargs` is given, with the caller's own arguments."""
        fn = self._python_callable()
        if kwargs is not None:
            args = (instance, *values) if instance is not None else tuple(values)
            return fn(*args, **kwargs)
        if self._signature is None:
            return fn(*values)
        names = list(self._signature.parameters)
        full = (instance, *values) if instance is not None else tuple(values)
        bound = inspect.BoundArguments(self._signature, dict(zip(names, full)))
        return fn(*bound.args, **bound.kwargs)

    def _python_callable(self):
        if not self._autograph:
            return self._python_function
        if self._converted is None:
            try:
                from ferroflow import autograph

                self._converted = autograph.to_graph(self._python_function)
            except ImportError:
                self._converted = self._python_function
        return self._converted


class BoundFunction:
    """A `tf.function` method bound to an instance (`self` is part of the trace key)."""

    def __init__(self, function, instance):
        self._function = function
        self._instance_ref = weakref.ref(instance) if _weakrefable(instance) else lambda: instance
        functools.update_wrapper(self, function._python_function)

    @property
    def python_function(self):
        return self._function.python_function

    def experimental_get_tracing_count(self):
        return self._function.experimental_get_tracing_count()

    @filter_traceback
    def __call__(self, *args, **kwargs):
        return self._function._call(self._instance_ref(), args, kwargs)

    def get_concrete_function(self, *args, **kwargs):
        return self._function._concrete_for(self._instance_ref(), args, kwargs)


def _weakrefable(obj):
    try:
        weakref.ref(obj)
        return True
    except TypeError:
        return False


def _count_tensors(value):
    return len(sig.leaves(sig.key_of(value, [])))


def _plain_arity(signature):
    """The parameter count of a signature of plain positional parameters without defaults
    (a call passing that many positional arguments binds them in order), else -1."""
    if signature is None:
        return -1
    plain = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.POSITIONAL_ONLY
    params = signature.parameters.values()
    if all(p.kind in plain and p.default is inspect.Parameter.empty for p in params):
        return len(params)
    return -1


def _has_unknowns(key):
    return any(None in leaf.dims for leaf in sig.leaves(key))


def _same_dims(concrete, tensors):
    """True when a call's tensors have the sizes the concrete function was traced with."""
    return [tuple(t._dims) for t in concrete._examples] == [tuple(t._dims) for t in tensors]


def _example_for(value, composites=False):
    """`get_concrete_function` accepts TensorSpecs: an example tensor of that spec (unknown
    dimensions as 1) stands for them while tracing. A composite spec stays a spec (its key is
    the spec) unless `composites`, where an example value of it stands for it (an
    input_signature's spec decides the trace)."""
    from ferroflow.array_ops import zeros

    if isinstance(value, TypeSpec) and not isinstance(value, TensorSpec):
        if composites:
            return value._from_tensor_list(value._example_tensor_list())
        return value

    if isinstance(value, TensorSpec):
        if value.shape.rank is None:
            from ferroflow.errors import UnimplementedError

            raise UnimplementedError(
                None,
                None,
                f"a concrete function for {value!r}, of unknown rank: ferroflow traces one "
                "graph per rank (calls with tensors of any rank work); pass a TensorSpec "
                "with a rank, or a tensor",
            )
        dims = [1 if d is None else d for d in value.shape.as_list()]
        return zeros(dims, value.dtype)
    if nest.is_nested(value):
        return nest.map_structure(lambda v: _example_for(v, composites), value)
    return value


def _with_spec_dims(key, args, kwargs, function, instance):
    """The key with the unknown dims of TensorSpec arguments unknown again."""
    specs = [
        v for v in nest.flatten([list(args), kwargs]) if isinstance(v, (TensorSpec, _core.Tensor))
    ]
    if not any(isinstance(s, TensorSpec) and None in (s.shape.dims or [None]) for s in specs):
        return key
    dims = iter([tuple(s.shape.dims) if isinstance(s, TensorSpec) else None for s in specs])

    def walk(k):
        if isinstance(k, sig.TensorLeaf):
            d = next(dims, None)
            return sig.TensorLeaf(k.dtype, d if d is not None else k.dims)
        if isinstance(k, tuple) and k and k[0] == "composite":
            return k
        if isinstance(k, tuple):
            return tuple(walk(p) for p in k)
        return k

    return walk(key)


def _note_user_line(error, name):
    """Adds where in the user's code a tracing error happened (as TensorFlow's
    "in user code" preamble does)."""
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if not f.filename.startswith(_PACKAGE_DIR)
    ]
    if frames and hasattr(error, "add_note"):
        f = frames[-1]
        error.add_note(
            f'in user code:\n    File "{f.filename}", line {f.lineno}, in {name}\n        {f.line}'
        )


def _pass_through(upstream):
    """The backward function of a nested function's inputs: gradients pass unchanged."""
    return list(upstream)
