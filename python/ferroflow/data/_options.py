"""`tf.data.Options` and its groups (`ThreadingOptions`, `experimental.OptimizationOptions`,
...): typed settings a dataset carries (`with_options`, `options()`), merged as TensorFlow
merges them. ferroflow stores every option; the ones that change what a pipeline yields
(``deterministic``) do not change ferroflow's, which is always deterministic."""

import enum
import hashlib
import logging

from ferroflow import dtypes as _dtypes
from ferroflow.data.dataset import Dataset, PassThroughDataset

__all__ = [
    "AutoShardPolicy",
    "AutotuneAlgorithm",
    "AutotuneOptions",
    "DistributeOptions",
    "ExternalStatePolicy",
    "OptimizationOptions",
    "Options",
    "OptionsDataset",
    "ServiceOptions",
    "ThreadingOptions",
    "dataset_options",
    "fingerprint",
    "merge_options",
]


class AutotuneAlgorithm(enum.Enum):
    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class AutoShardPolicy(enum.IntEnum):
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.Enum):
    WARN = 0
    IGNORE = 1
    FAIL = 2


def _option(name, ty, default=lambda: None):
    """A property that type-checks what is set and makes its default when first read."""

    def get(self):
        if name not in self._options:
            self._options[name] = default()
        return self._options[name]

    def set_(self, value):
        if not isinstance(value, ty):
            raise TypeError(
                f'Property "{name}" must be of type {ty}, got: {value} (type: {type(value)})'
            )
        self._options[name] = value

    return property(get, set_)


class OptionsBase:
    """A group of options: reading an unset one gives its default; setting an unknown
    attribute raises AttributeError; `options()`'s copies are read-only."""

    def __init__(self):
        object.__setattr__(self, "_options", {})
        object.__setattr__(self, "_mutable", True)

    def __eq__(self, other):
        if not isinstance(other, self.__class__):
            return NotImplemented
        names = set(self._options) | set(other._options)
        return all(getattr(self, n) == getattr(other, n) for n in names)

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None

    def __setattr__(self, name, value):
        if not self._mutable:
            raise ValueError(
                "Mutating `tf.data.Options()` returned by `tf.data.Dataset.options()` has no "
                "effect. Use `tf.data.Dataset.with_options(options)` to set or update dataset "
                "options."
            )
        if not hasattr(self, name):
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)

    def _set_mutable(self, mutable):
        object.__setattr__(self, "_mutable", mutable)
        for value in self._options.values():
            if isinstance(value, OptionsBase):
                value._set_mutable(mutable)


class AutotuneOptions(OptionsBase):
    """`tf.data.experimental.AutotuneOptions`."""

    enabled = _option("enabled", bool)
    cpu_budget = _option("cpu_budget", int)
    ram_budget = _option("ram_budget", int)
    autotune_algorithm = _option("autotune_algorithm", AutotuneAlgorithm)
    initial_parallelism = _option("initial_parallelism", int)
    min_parallelism = _option("min_parallelism", int)


class DistributeOptions(OptionsBase):
    """`tf.data.experimental.DistributeOptions`."""

    auto_shard_policy = _option("auto_shard_policy", AutoShardPolicy, lambda: AutoShardPolicy.AUTO)
    num_devices = _option("num_devices", int)


class OptimizationOptions(OptionsBase):
    """`tf.data.experimental.OptimizationOptions` (stored; ferroflow does not rewrite
    pipelines)."""

    apply_default_optimizations = _option("apply_default_optimizations", bool)
    filter_fusion = _option("filter_fusion", bool)
    filter_parallelization = _option("filter_parallelization", bool)
    inject_prefetch = _option("inject_prefetch", bool)
    seq_interleave_prefetch = _option("seq_interleave_prefetch", bool)
    map_and_batch_fusion = _option("map_and_batch_fusion", bool)
    map_and_filter_fusion = _option("map_and_filter_fusion", bool)
    map_fusion = _option("map_fusion", bool)
    map_parallelization = _option("map_parallelization", bool)
    noop_elimination = _option("noop_elimination", bool)
    parallel_batch = _option("parallel_batch", bool)
    shuffle_and_repeat_fusion = _option("shuffle_and_repeat_fusion", bool)


class ServiceOptions(OptionsBase):
    """`tf.data.experimental.ServiceOptions`."""

    pinned = _option("pinned", bool)


class ThreadingOptions(OptionsBase):
    """`tf.data.ThreadingOptions`."""

    max_intra_op_parallelism = _option("max_intra_op_parallelism", int)
    private_threadpool_size = _option("private_threadpool_size", int)


_ALIASES = {"experimental_threading": "threading", "experimental_deterministic": "deterministic"}


class Options(OptionsBase):
    """`tf.data.Options`: settings of a dataset (`Dataset.with_options`).

    >>> import ferroflow as tf
    >>> options = tf.data.Options()
    >>> options.deterministic = False
    >>> tf.data.Dataset.range(3).with_options(options).options().deterministic
    False
    """

    autotune = _option("autotune", AutotuneOptions, AutotuneOptions)
    deterministic = _option("deterministic", bool)
    experimental_distribute = _option(
        "experimental_distribute", DistributeOptions, DistributeOptions
    )
    experimental_external_state_policy = _option(
        "experimental_external_state_policy", ExternalStatePolicy
    )
    experimental_optimization = _option(
        "experimental_optimization", OptimizationOptions, OptimizationOptions
    )
    experimental_slack = _option("experimental_slack", bool)
    experimental_symbolic_checkpoint = _option("experimental_symbolic_checkpoint", bool)
    experimental_service = _option("experimental_service", ServiceOptions, ServiceOptions)
    experimental_warm_start = _option("experimental_warm_start", bool)
    dataset_name = _option("dataset_name", str)
    framework_type = _option("framework_type", list)
    threading = _option("threading", ThreadingOptions, ThreadingOptions)

    def __getattr__(self, name):
        if name in _ALIASES:
            return getattr(self, _ALIASES[name])
        raise AttributeError(f"'Options' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        super().__setattr__(_ALIASES.get(name, name), value)

    def merge(self, options):
        """These options merged with ``options`` (whose set values win)."""
        return merge_options(self, options)


def merge_options(*options_list):
    """Options of the type of the first, each option the last non-default value given."""
    if not options_list:
        raise ValueError("At least one options should be provided")
    kind = type(options_list[0])
    for options in options_list:
        if not isinstance(options, kind):
            raise TypeError(
                f"Could not merge incompatible options of type {type(options)} and {kind}."
            )
    if not isinstance(options_list[0], OptionsBase):
        raise TypeError(
            "All options to be merged should inherit from `OptionsBase` but found option of "
            f"type {type(options_list[0])} which does not."
        )
    default = kind()
    result = kind()
    for options in options_list:
        for name in list(options._options):
            this, that, base = getattr(result, name), getattr(options, name), getattr(default, name)
            if that == base:
                continue
            if this == base:
                setattr(result, name, that)
            elif isinstance(this, OptionsBase):
                setattr(result, name, merge_options(this, that))
            elif name == "framework_type":
                setattr(result, name, this + that)
            elif this != that:
                logging.getLogger("ferroflow").warning(
                    "Changing the value of option %s from %r to %r.", name, this, that
                )
                setattr(result, name, that)
    return result


class OptionsDataset(PassThroughDataset):
    """Its input, with options."""

    _repr_name = "_OptionsDataset"

    def __init__(self, input_dataset, options):
        if not isinstance(options, Options):
            # TensorFlow's class: it reads the options' attributes.
            raise AttributeError(f"Expected a tf.data.Options object, got {type(options)}.")
        self._input = input_dataset
        self._options = options

    def _elements(self):
        return self._input._elements()


def _inputs(dataset):
    """The datasets ``dataset`` reads (its `_input`, `_datasets`, ...)."""
    found = []
    for name in ("_input", "_first", "_second", "_selector"):
        value = getattr(dataset, name, None)
        if isinstance(value, Dataset):
            found.append(value)
    for value in getattr(dataset, "_datasets", None) or ():
        if isinstance(value, Dataset):
            found.append(value)
    return found


def _option_sets(dataset):
    """The options set along the pipeline, inputs first (a later `with_options` wins)."""
    sets = []
    for source in _inputs(dataset):
        sets.extend(_option_sets(source))
    if isinstance(dataset, OptionsDataset):
        sets.append(dataset._options)
    return sets


def dataset_options(dataset):
    """`Dataset.options()`: the merged options of the pipeline, read-only."""
    sets = _option_sets(dataset)
    merged = merge_options(*sets) if sets else Options()
    merged._set_mutable(False)
    return merged


def _describe(dataset, depth=0):
    if depth > 64:
        return "..."
    inner = ",".join(_describe(d, depth + 1) for d in _inputs(dataset))
    return f"{type(dataset).__name__}[{dataset.element_spec!r}]({inner})"


def fingerprint(dataset):
    """A uint64 scalar hashing the pipeline's shape: its transformations and element specs."""
    from ferroflow.array_ops import constant

    digest = hashlib.sha256(_describe(dataset).encode()).digest()
    return constant(int.from_bytes(digest[:8], "little"), dtype=_dtypes.uint64)
