"""What `Model.compile` makes of its ``loss`` and ``metrics`` arguments: `CompileLoss` (one
loss per model output, weighted and summed) and `CompileMetrics` (the metrics of each output,
reported under Keras 3's names). Both resolve their identifiers on first use, when the shapes
of the targets and predictions are known ("accuracy" becomes binary, categorical or sparse
categorical accuracy from them)."""

from ferroflow import array_ops, nest
from ferroflow import dtypes as _dtypes
from ferroflow import math as tf_math
from ferroflow.keras import losses as losses_module
from ferroflow.keras import metrics as metrics_module
from ferroflow.keras._naming import to_snake_case

__all__ = ["CompileLoss", "CompileMetrics", "get_loss", "get_metric", "get_object_name"]


def get_object_name(obj):
    """Keras's name for a loss or metric: its ``name``, or its function or class name in
    snake case."""
    if hasattr(obj, "name"):
        return obj.name
    if hasattr(obj, "__name__"):
        return to_snake_case(obj.__name__)
    return to_snake_case(type(obj).__name__)


def _binary_or_sparse(y_true, y_pred):
    t_rank, p_rank = y_true.shape.rank, y_pred.shape.rank
    t_last = y_true.shape[-1] if t_rank else None
    p_last = y_pred.shape[-1] if p_rank else None
    is_binary = p_last == 1
    is_sparse = t_rank < p_rank or (t_last == 1 and p_last is not None and p_last > 1)
    return is_binary, is_sparse


def get_metric(identifier, y_true, y_pred):
    """The `Metric` for one identifier; "accuracy"/"acc" pick their kind from the shapes."""
    if identifier is None:
        raise ValueError("Expected metric, received `None`")
    if str(identifier).lower() in ("accuracy", "acc"):
        is_binary, is_sparse = _binary_or_sparse(y_true, y_pred)
        if is_binary:
            metric = metrics_module.BinaryAccuracy(name=str(identifier))
        elif is_sparse:
            metric = metrics_module.SparseCategoricalAccuracy(name=str(identifier))
        else:
            metric = metrics_module.CategoricalAccuracy(name=str(identifier))
    else:
        metric = metrics_module.get(identifier)
    name = identifier if isinstance(identifier, str) else get_object_name(metric)
    if not isinstance(metric, metrics_module.Metric):
        metric = metrics_module.MeanMetricWrapper(metric)
    metric.name = name
    return metric


def get_loss(identifier, y_true, y_pred):
    """The `Loss` for one identifier; "crossentropy"/"ce" pick their kind from the shapes."""
    if identifier is None:
        return None
    if str(identifier).lower() in ("crossentropy", "ce"):
        is_binary, is_sparse = _binary_or_sparse(y_true, y_pred)
        if is_binary:
            loss = losses_module.binary_crossentropy
        elif is_sparse:
            loss = losses_module.sparse_categorical_crossentropy
        else:
            loss = losses_module.categorical_crossentropy
    else:
        loss = losses_module.get(identifier)
    if not isinstance(loss, losses_module.Loss):
        name = identifier if isinstance(identifier, str) else get_object_name(loss)
        loss = losses_module.LossFunctionWrapper(loss, name=name)
    return loss


def output_names_for(y_pred, model_output_names):
    """One name (or None) per flattened output: the model's output names, or a dict
    output's keys."""
    count = len(nest.flatten(y_pred))
    if model_output_names and len(model_output_names) == count:
        return list(model_output_names)
    if isinstance(y_pred, dict):
        return sorted(y_pred)
    return [None] * count


def flatten_like_outputs(value, names):
    """``value`` (targets or sample weights) as one entry per output."""
    if isinstance(value, dict) and all(n is not None and n in value for n in names):
        return [value[n] for n in names]
    return nest.flatten(value)


def per_output(value, names, what):
    """``value`` spread over the outputs: a single value applies to all of them, a list or
    tuple gives one per output, a dict one per output name (missing names get None)."""
    count = len(names)
    if isinstance(value, dict):
        unknown = [k for k in value if k not in names]
        if unknown and count == 1 and len(value) == 1:
            return list(value.values())
        if unknown:
            raise ValueError(
                f"Expected keys {names} in `{what}` dict, but found {what}.keys()="
                f"{list(value.keys())}"
            )
        return [value.get(n) for n in names]
    if isinstance(value, (list, tuple)):
        if count == 1 and what in ("loss", "loss_weights") and len(value) == 1:
            return [value[0]]
        if len(value) != count:
            raise ValueError(
                f"`{what}` must have one entry per model output: got {len(value)} entries for "
                f"{count} outputs. Received: {what}={value}"
            )
        return list(value)
    return [value] * count


class CompileLoss:
    """The total loss of the model's outputs: ``sum(weight_i * loss_i(y_true_i, y_pred_i))``.
    With several losses, each one's unweighted value is also tracked by a `Mean` metric named
    ``"{output}_loss"``."""

    def __init__(self, loss, loss_weights=None, output_names=None):
        self._user_loss = loss
        self._user_loss_weights = loss_weights
        self._model_output_names = output_names
        self._losses = None
        self._metrics = []
        self.built = False

    @property
    def metrics(self):
        return list(self._metrics)

    @property
    def variables(self):
        return [v for m in self._metrics for v in m.variables]

    def build(self, y_true, y_pred):
        names = output_names_for(y_pred, self._model_output_names)
        losses = per_output(self._user_loss, names, "loss")
        weights = (
            [None] * len(names)
            if self._user_loss_weights is None
            else per_output(self._user_loss_weights, names, "loss_weights")
        )
        flat_true = flatten_like_outputs(y_true, names)
        flat_pred = nest.flatten(y_pred)
        if len(flat_true) != len(flat_pred):
            raise ValueError(
                "y_true and y_pred have different structures: "
                f"{len(flat_true)} target(s) for {len(flat_pred)} output(s)."
            )
        self._losses = []
        for i, (loss, weight) in enumerate(zip(losses, weights)):
            fn = get_loss(loss, flat_true[i], flat_pred[i])
            if fn is not None:
                self._losses.append((i, fn, weight, names[i] or fn.name))
        if len(self._losses) > 1:
            self._metrics = [
                metrics_module.Mean(name=f"{name}_loss") for _, _, _, name in self._losses
            ]
        self._names = names
        self.built = True

    def __call__(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        flat_true = flatten_like_outputs(y_true, self._names)
        flat_pred = nest.flatten(y_pred)
        if sample_weight is not None and nest.is_nested(sample_weight):
            weights = flatten_like_outputs(sample_weight, self._names)
        else:
            weights = [sample_weight] * len(flat_pred)
        trackers = self._metrics or [None] * len(self._losses)
        total = None
        for (i, fn, weight, _), tracker in zip(self._losses, trackers):
            value = array_ops.cast(fn(flat_true[i], flat_pred[i], weights[i]), _dtypes.float32)
            if tracker is not None:
                tracker.update_state(value, sample_weight=array_ops.shape(flat_pred[i])[0])
            if weight is not None:
                value = value * weight
            total = value if total is None else total + value
        return total


class CompileMetrics(metrics_module.Metric):
    """The compiled metrics, one `Metric` holding the metrics of every output; its result is
    a dict of their results."""

    def __init__(self, metrics, weighted_metrics, output_names=None):
        super().__init__(name="compile_metrics")
        for value, what in ((metrics, "metrics"), (weighted_metrics, "weighted_metrics")):
            if value and not isinstance(value, (list, tuple, dict)):
                raise ValueError(
                    f"Expected `{what}` argument to be a list, tuple, or dict. Received instead: "
                    f"{what}={value} of type {type(value)}"
                )
        self._user_metrics = metrics
        self._user_weighted_metrics = weighted_metrics
        self._model_output_names = output_names
        self.built = False

    @property
    def metrics(self):
        """The metric objects, unweighted ones first."""
        if not self.built:
            return []
        return [m for _, _, group in self._groups + self._weighted_groups for m in group]

    @property
    def variables(self):
        return [v for m in self.metrics for v in m.variables]

    def build(self, y_true, y_pred):
        names = output_names_for(y_pred, self._model_output_names)
        flat_true = flatten_like_outputs(y_true, names)
        flat_pred = nest.flatten(y_pred)
        self._names = names
        self._groups = self._build_groups(self._user_metrics, names, flat_true, flat_pred)
        self._weighted_groups = self._build_groups(
            self._user_weighted_metrics, names, flat_true, flat_pred
        )
        self.built = True

    def _build_groups(self, metrics, names, flat_true, flat_pred):
        """[(output index, output name or None, [Metric])], one entry per output with metrics."""
        if not metrics:
            return []
        if len(names) == 1:
            found = [get_metric(m, flat_true[0], flat_pred[0]) for m in nest.flatten(metrics)]
            return [(0, None, found)]
        groups = []
        for i, entry in enumerate(per_output(metrics, names, "metrics")):
            if entry is None:
                continue
            entries = entry if isinstance(entry, (list, tuple)) else [entry]
            found = [get_metric(m, flat_true[i], flat_pred[i]) for m in entries]
            groups.append((i, names[i], found))
        return groups

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        flat_true = flatten_like_outputs(y_true, self._names)
        flat_pred = nest.flatten(y_pred)
        for i, _, group in self._groups:
            for metric in group:
                metric.update_state(flat_true[i], flat_pred[i])
        if sample_weight is not None and nest.is_nested(sample_weight):
            weights = flatten_like_outputs(sample_weight, self._names)
        else:
            weights = [sample_weight] * len(flat_pred)
        for i, _, group in self._weighted_groups:
            for metric in group:
                metric.update_state(flat_true[i], flat_pred[i], sample_weight=weights[i])

    def reset_state(self):
        for metric in self.metrics:
            metric.reset_state()

    def result(self):
        """``{name: value}``: metric names, prefixed by their output's name with several
        outputs; repeated names get ``_1``, ``_2``... (a weighted metric named like an
        unweighted one gets ``weighted_`` first)."""
        if not self.built:
            raise ValueError("Cannot get result() since the metric has not yet been built.")
        results = {}
        counts = {}
        for weighted, groups in ((False, self._groups), (True, self._weighted_groups)):
            for _, output_name, group in groups:
                for metric in group:
                    name = f"{output_name}_{metric.name}" if output_name else metric.name
                    if name in counts and weighted:
                        prefixed = f"weighted_{metric.name}"
                        name = f"{output_name}_{prefixed}" if output_name else prefixed
                    if name in counts:
                        counts[name] += 1
                        name = f"{name}_{counts[name] - 1}"
                    counts.setdefault(name, 1)
                    results[name] = metric.result()
        return results


def aggregate_additional_loss(loss):
    """A `Model.losses` entry as a float32 scalar."""
    if not loss.dtype.is_floating:
        loss = array_ops.cast(loss, _dtypes.float32)
    return tf_math.reduce_sum(loss)
