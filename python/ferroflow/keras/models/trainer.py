"""The training half of `tf.keras.Model` (Keras 3 semantics): `compile`, `fit`, `evaluate`,
`predict`, the ``*_on_batch`` methods, and the overridable steps they run.

Each step (`train_step`, `test_step`, `predict_step`) runs as a `tf.function` traced once per
batch shape (a smaller last batch traces once more) unless the model is compiled with
``run_eagerly=True``. Layers, optimizer slots and compiled metrics are built eagerly before the
first trace, on the first batch, so that no variable is created inside a trace. During `fit`,
a step's metric values are read back only when a callback asks for batch logs.
"""

import contextlib
import functools
import inspect
import warnings

import numpy as np

from ferroflow import array_ops, nest
from ferroflow import math as tf_math
from ferroflow.backprop import GradientTape
from ferroflow.function import function
from ferroflow.sparse_tensor import SparseTensor

__all__ = ["Trainer"]

# Training state that checkpoints must not save (TensorFlow's Keras keeps the metric trackers
# and compiled functions out of them; the optimizer is saved).
_UNTRACKED = frozenset(
    {
        "_compile_loss",
        "_compile_metrics",
        "_compile_config",
        "_loss_tracker",
        "_eval_epoch_iterator",
        "_metrics_cache",
        "train_function",
        "test_function",
        "predict_function",
        "history",
        "loss",
    }
)


def _overrides(obj, name):
    return getattr(type(obj), name) is not getattr(Trainer, name)


def _has_parameter(fn, name):
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _flatten_layers(model):
    """The model and its sublayers, depth first, each once."""
    found, seen, stack = [], set(), [model]
    while stack:
        layer = stack.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        found.append(layer)
        stack.extend(reversed(getattr(layer, "layers", None) or []))
    return found


def _freezing_metrics(method):
    """Runs ``method`` with `metrics` computed once: the list is read at every epoch, and
    finding the metrics set as attributes walks the layers."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._metrics_frozen():
            return method(self, *args, **kwargs)

    return run


def _batch_size_of(x):
    first = next(t for t in nest.flatten(x) if t is not None)
    return array_ops.shape(first)[0]


class Trainer:
    """Mixed into `Model`; holds no training state until `compile`."""

    compiled = False
    optimizer = None
    loss = None
    stop_training = False
    stop_evaluating = False
    stop_predicting = False
    steps_per_execution = 1
    train_function = None
    test_function = None
    predict_function = None
    history = None
    _compile_loss = None
    _compile_metrics = None
    _loss_tracker = None
    _run_eagerly = False
    _jit_compile = None
    _initial_epoch = None
    _eval_epoch_iterator = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._no_dependency_attributes = (
            frozenset(getattr(cls, "_no_dependency_attributes", ())) | _UNTRACKED
        )

    # --- compile ------------------------------------------------------------------------------

    def compile(
        self,
        optimizer="rmsprop",
        loss=None,
        loss_weights=None,
        metrics=None,
        weighted_metrics=None,
        run_eagerly=False,
        steps_per_execution=1,
        jit_compile="auto",
        auto_scale_loss=True,
    ):
        """Configures the model for training.

        Args:
            optimizer: An optimizer name ("rmsprop", "adam"...) or instance.
            loss: A loss name, function or `Loss`; with several outputs, a list (one per
                output) or a dict (by output name).
            loss_weights: Coefficients of the outputs' losses in the total loss (a list or a
                dict, like ``loss``).
            metrics: Metrics (names, functions or `Metric`s) evaluated without sample weights:
                a list, or per output a list or dict of them.
            weighted_metrics: Metrics evaluated with the sample weights.
            run_eagerly: Run the steps in Python instead of as traced graphs (for debugging).
            steps_per_execution: Batches per call of the train/test function (callbacks'
                batch hooks then run every that many batches).
            jit_compile: Accepted for compatibility (traced steps are always compiled graphs).
            auto_scale_loss: Under the "mixed_float16" policy, wrap the optimizer in a
                `LossScaleOptimizer` (dynamic loss scaling), as Keras does.
        """
        from ferroflow.keras import metrics as metrics_module
        from ferroflow.keras import optimizers
        from ferroflow.keras.utils._compile_utils import CompileLoss, CompileMetrics

        self.optimizer = optimizers.get(optimizer)
        if (
            auto_scale_loss
            and self.dtype_policy.name == "mixed_float16"
            and self.optimizer
            and not isinstance(self.optimizer, optimizers.LossScaleOptimizer)
        ):
            # float16 gradients underflow; Keras scales the loss dynamically for them.
            self.optimizer = optimizers.LossScaleOptimizer(
                self.optimizer, name="loss_scale_optimizer"
            )
        output_names = getattr(self, "output_names", None)
        self._compile_loss = None
        if loss is not None:
            self._compile_loss = CompileLoss(loss, loss_weights, output_names=output_names)
        self.loss = loss
        self._compile_metrics = None
        if metrics is not None or weighted_metrics is not None:
            self._compile_metrics = CompileMetrics(
                metrics, weighted_metrics, output_names=output_names
            )
        if jit_compile == "auto" or run_eagerly:
            jit_compile = False
        self.jit_compile = jit_compile
        self.run_eagerly = run_eagerly
        self.stop_training = False
        self.compiled = True
        self._loss_tracker = metrics_module.Mean(name="loss")
        self.steps_per_execution = steps_per_execution
        self.train_function = None
        self.test_function = None
        self.predict_function = None
        self._compile_config = {
            # The resolved optimizer, as Keras stores it: "sgd" saves as a full SGD config.
            "optimizer": self.optimizer,
            "loss": loss,
            "loss_weights": loss_weights,
            "metrics": metrics,
            "weighted_metrics": weighted_metrics,
            "run_eagerly": run_eagerly,
            "steps_per_execution": steps_per_execution,
            "jit_compile": jit_compile,
        }

    @property
    def run_eagerly(self):
        return self._run_eagerly

    @run_eagerly.setter
    def run_eagerly(self, value):
        self._run_eagerly = bool(value)
        # The step functions are made for one mode.
        self.train_function = self.test_function = self.predict_function = None

    @property
    def jit_compile(self):
        return bool(self._jit_compile)

    @jit_compile.setter
    def jit_compile(self, value):
        self._jit_compile = value

    def get_compile_config(self):
        """`compile`'s arguments as a serialisable dict ({} before `compile`)."""
        from ferroflow.keras.utils._compile_config import serialize_compile_config

        if not self.compiled or getattr(self, "_compile_config", None) is None:
            return {}
        return serialize_compile_config(self._compile_config)

    def compile_from_config(self, config):
        """Compiles the model from `get_compile_config`'s dict (and builds the optimizer when
        the model is built)."""
        from ferroflow.keras.utils._compile_config import deserialize_compile_config

        if type(self).compile is not Trainer.compile:
            warnings.warn(
                "`compile()` was not called as part of model loading because the model's "
                "`compile()` method is custom. All subclassed Models that have `compile()` "
                "overridden should also override `get_compile_config()` and "
                "`compile_from_config(config)`. Alternatively, you can call `compile()` "
                "manually after loading.",
                stacklevel=2,
            )
            return
        self.compile(**deserialize_compile_config(config))
        if self.optimizer is not None and self.built:
            self.optimizer.build(self.trainable_variables)

    def _assert_compile_called(self, method_name=None):
        if not self.compiled:
            raise ValueError("You must call `compile()` before using the model.")

    # --- metrics ------------------------------------------------------------------------------

    @property
    def metrics(self):
        """The loss tracker, the compiled metrics (one `Metric` holding them all), the
        compiled loss's per-output trackers, then metrics set as attributes of the model and
        of its layers."""
        if self.__dict__.get("_metrics_freeze_depth"):
            cache = self.__dict__.get("_metrics_cache")
            if cache is None:
                cache = self._collect_metrics()
                object.__setattr__(self, "_metrics_cache", cache)
            return list(cache)
        return self._collect_metrics()

    @contextlib.contextmanager
    def _metrics_frozen(self):
        depth = self.__dict__.get("_metrics_freeze_depth", 0)
        object.__setattr__(self, "_metrics_freeze_depth", depth + 1)
        try:
            yield
        finally:
            object.__setattr__(self, "_metrics_freeze_depth", depth)
            if depth == 0:
                object.__setattr__(self, "_metrics_cache", None)

    def _collect_metrics(self):
        found = []
        if self.compiled:
            if self._loss_tracker is not None:
                found.append(self._loss_tracker)
            if self._compile_metrics is not None:
                found.append(self._compile_metrics)
            if self._compile_loss is not None:
                found.extend(self._compile_loss.metrics)
        seen = {id(m) for m in found}
        for metric in self._attribute_metrics():
            if id(metric) not in seen:
                seen.add(id(metric))
                found.append(metric)
        return found

    def _attribute_metrics(self):
        from ferroflow.keras.metrics import Metric

        for layer in _flatten_layers(self):
            if layer is not self and isinstance(layer, Trainer):
                continue
            for name, value in vars(layer).items():
                if name in _UNTRACKED:
                    continue
                values = value if isinstance(value, (list, tuple)) else (value,)
                yield from (v for v in values if isinstance(v, Metric))

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    @property
    def metrics_variables(self):
        return [v for m in self.metrics for v in m.variables]

    def reset_metrics(self):
        for metric in self.metrics:
            metric.reset_state()

    def get_metrics_result(self):
        """``{name: value}`` of the metrics (a metric whose result is a dict adds its
        entries)."""
        results = {}
        for metric in self.metrics:
            result = metric.result()
            if isinstance(result, dict):
                results.update(result)
            else:
                results[metric.name] = result
        return results

    # --- the steps ------------------------------------------------------------------------

    def _call_for_step(self, x, training):
        cls = type(self)
        accepts = cls.__dict__.get("_trainer_call_takes_training")
        if accepts is None:
            accepts = _has_parameter(cls.call, "training")
            cls._trainer_call_takes_training = accepts
        return self(x, training=training) if accepts else self(x)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The total loss: the compiled loss plus `losses` (regularisation). Override for
        custom losses."""
        from ferroflow.keras.utils._compile_utils import aggregate_additional_loss

        losses = []
        if self._compile_loss is not None:
            loss = self._compile_loss(y, y_pred, sample_weight)
            if loss is not None:
                losses.append(loss)
        for loss in self.losses:
            losses.append(aggregate_additional_loss(loss))
        if not losses:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        if len(losses) == 1:
            return losses[0]
        return tf_math.add_n(losses)

    def _compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """`compute_loss`, also for overrides written without the ``training`` argument."""
        if _has_parameter(self.compute_loss, "training"):
            return self.compute_loss(x, y, y_pred, sample_weight, training=training)
        return self.compute_loss(x, y, y_pred, sample_weight)

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Updates the compiled metrics and returns `get_metrics_result()` (the logs)."""
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def train_step(self, data):
        """One gradient update on the batch ``data`` (``(x, y)`` or ``(x, y,
        sample_weight)``); returns the logs."""
        from ferroflow.keras.utils.data_utils import unpack_x_y_sample_weight

        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self._call_for_step(x, training=True)
            loss = self._compute_loss(
                x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True
            )
            self._loss_tracker.update_state(loss, sample_weight=_batch_size_of(x))
            if self.optimizer is not None:
                loss = self.optimizer.scale_loss(loss)
        trainable_weights = self.trainable_weights
        if trainable_weights:
            gradients = tape.gradient(loss, trainable_weights)
            self.optimizer.apply_gradients(zip(gradients, trainable_weights))
        else:
            warnings.warn("The model does not have any trainable weights.", stacklevel=2)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data):
        """The loss and metrics of the batch ``data``; returns the logs."""
        from ferroflow.keras.utils.data_utils import unpack_x_y_sample_weight

        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self._call_for_step(x, training=False)
        loss = self._compute_loss(
            x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False
        )
        self._loss_tracker.update_state(loss, sample_weight=_batch_size_of(x))
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data):
        """The model's outputs for the batch ``data``."""
        from ferroflow.keras.utils.data_utils import unpack_x_y_sample_weight

        x, _, _ = unpack_x_y_sample_weight(data)
        return self._call_for_step(x, training=False)

    # --- the step functions -------------------------------------------------------------------

    def _step_function(self, name):
        """The bound step ``name``, traced unless running eagerly (AutoGraph converts the
        user's own steps, as TensorFlow does)."""
        step = getattr(self, name)
        if self.run_eagerly:
            return step
        return function(step, autograph=_overrides(self, name))

    def make_train_function(self, force=False):
        """``train_function(batches)``: runs `train_step` on up to ``steps_per_execution``
        batches and returns the last logs."""
        if self.train_function is not None and not force:
            return self.train_function
        self.train_function = self._multi_step(self._step_function("train_step"))
        return self.train_function

    def make_test_function(self, force=False):
        """``test_function(batches)``: as `make_train_function`, with `test_step`."""
        if self.test_function is not None and not force:
            return self.test_function
        self.test_function = self._multi_step(self._step_function("test_step"))
        return self.test_function

    def make_predict_function(self, force=False):
        """``predict_function(batches)``: the list of `predict_step`'s outputs."""
        if self.predict_function is not None and not force:
            return self.predict_function
        step = self._step_function("predict_step")

        def predict_function(batches):
            return [step(data) for data in batches]

        self.predict_function = predict_function
        return predict_function

    def _multi_step(self, step):
        def run(batches):
            logs = None
            for _, data in zip(range(self.steps_per_execution), batches):
                logs = step(data)
            return logs

        return run

    def _symbolic_build(self, iterator=None, data_batch=None, predicting=False):
        """Builds what the first trace would otherwise create variables for: the layers
        (calling the model on the first batch), the compiled loss and metrics, the
        optimizer's slots."""
        from ferroflow.keras.utils.data_utils import unpack_x_y_sample_weight

        model_unbuilt = not all(getattr(layer, "built", True) for layer in _flatten_layers(self))
        metrics_unbuilt = (
            not predicting and self._compile_metrics is not None and not self._compile_metrics.built
        )
        loss_unbuilt = (
            not predicting and self._compile_loss is not None and not self._compile_loss.built
        )
        if model_unbuilt or metrics_unbuilt or loss_unbuilt:
            if data_batch is None:
                data_batch = iterator.first_batch()
            x, y, _ = unpack_x_y_sample_weight(data_batch)
            y_pred = self._call_for_step(x, training=False)
            if metrics_unbuilt:
                self._compile_metrics.build(y, y_pred)
            if loss_unbuilt:
                self._compile_loss.build(y, y_pred)
        if not predicting and self.optimizer is not None and not self.optimizer.built:
            self.optimizer.build(self.trainable_variables)

    # --- fit, evaluate, predict -----------------------------------------------------------------

    @_freezing_metrics
    def fit(
        self,
        x=None,
        y=None,
        batch_size=None,
        epochs=1,
        verbose="auto",
        callbacks=None,
        validation_split=0.0,
        validation_data=None,
        shuffle=True,
        class_weight=None,
        sample_weight=None,
        initial_epoch=0,
        steps_per_epoch=None,
        validation_steps=None,
        validation_batch_size=None,
        validation_freq=1,
    ):
        """Trains the model for ``epochs`` epochs; returns the `History` of the epochs'
        logs (``history.history["loss"]``, ``["val_loss"]``...).

        ``x`` and ``y`` are arrays or tensors (or structures of them), or ``x`` is a
        `tf.data.Dataset` or Python generator of ``(x, y)`` or ``(x, y, sample_weight)``
        batches. ``verbose``: "auto" or 1 (progress bar), 2 (a line per epoch), 0 (silent).
        ``validation_split`` holds out the last fraction of array data (before shuffling);
        ``validation_data`` is ``(x, y)``, ``(x, y, sample_weight)`` or a dataset.
        """
        from ferroflow.keras.callbacks import CallbackList
        from ferroflow.keras.utils._data_adapters import train_validation_split
        from ferroflow.keras.utils._epoch_iterator import EpochIterator
        from ferroflow.keras.utils.data_utils import unpack_x_y_sample_weight

        self._assert_compile_called("fit")
        from ferroflow.keras import config

        cap = config.max_epochs()  # `keras.config.set_max_epochs`: a debugging cap
        if cap and cap < epochs:
            warnings.warn(f"Limiting epochs to {cap}", stacklevel=2)
            epochs = cap
        self._eval_epoch_iterator = None
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = train_validation_split(
                (x, y, sample_weight), validation_split=validation_split
            )
        if validation_data is not None:
            val_x, val_y, val_sample_weight = unpack_x_y_sample_weight(validation_data)
        epoch_iterator = EpochIterator(
            x=x,
            y=y,
            sample_weight=sample_weight,
            batch_size=batch_size,
            steps_per_epoch=steps_per_epoch,
            shuffle=shuffle,
            class_weight=class_weight,
            steps_per_execution=self.steps_per_execution,
        )
        self._symbolic_build(iterator=epoch_iterator)
        epoch_iterator.reset()
        if not isinstance(callbacks, CallbackList):
            callbacks = CallbackList(
                callbacks,
                add_history=True,
                add_progbar=verbose != 0,
                verbose=verbose,
                epochs=epochs,
                steps=epoch_iterator.num_batches,
                model=self,
            )
        self.stop_training = False
        train_function = self.make_train_function()
        callbacks.on_train_begin()
        training_logs = None
        logs = {}
        initial_epoch = self._initial_epoch or initial_epoch
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch)
            for begin_step, end_step, batches in epoch_iterator:
                callbacks.on_train_batch_begin(begin_step)
                logs = train_function(batches)
                callbacks.on_train_batch_end(end_step, logs)
                if self.stop_training:
                    break
            epoch_logs = dict(self._get_metrics_result_or_logs(logs))
            if validation_data is not None and self._should_eval(epoch, validation_freq):
                if self._eval_epoch_iterator is None:
                    self._eval_epoch_iterator = EpochIterator(
                        x=val_x,
                        y=val_y,
                        sample_weight=val_sample_weight,
                        batch_size=validation_batch_size or batch_size,
                        steps_per_epoch=validation_steps,
                        shuffle=False,
                        steps_per_execution=self.steps_per_execution,
                    )
                val_logs = self.evaluate(
                    x=val_x,
                    y=val_y,
                    sample_weight=val_sample_weight,
                    batch_size=validation_batch_size or batch_size,
                    steps=validation_steps,
                    callbacks=callbacks,
                    return_dict=True,
                    _use_cached_eval_dataset=True,
                )
                epoch_logs.update({f"val_{name}": value for name, value in val_logs.items()})
            callbacks.on_epoch_end(epoch, epoch_logs)
            training_logs = epoch_logs
            if self.stop_training:
                break
        if self.optimizer is not None and epochs > 0:
            self.optimizer.finalize_variable_values(self.trainable_weights)
        self._eval_epoch_iterator = None
        callbacks.on_train_end(logs=training_logs)
        return self.history

    @_freezing_metrics
    def evaluate(
        self,
        x=None,
        y=None,
        batch_size=None,
        verbose="auto",
        sample_weight=None,
        steps=None,
        callbacks=None,
        return_dict=False,
        **kwargs,
    ):
        """The loss and metrics over the data (batches of ``batch_size``, default 32): a
        scalar with no metrics, else a list in `metrics_names` order (a dict with
        ``return_dict``)."""
        from ferroflow.keras.callbacks import CallbackList
        from ferroflow.keras.utils._epoch_iterator import EpochIterator
        from ferroflow.keras.utils._logs import pythonify_logs

        self._assert_compile_called("evaluate")
        use_cached_eval_dataset = kwargs.pop("_use_cached_eval_dataset", False)
        if kwargs:
            raise ValueError(f"Arguments not recognized: {kwargs}")
        if use_cached_eval_dataset:
            epoch_iterator = self._eval_epoch_iterator
        else:
            epoch_iterator = EpochIterator(
                x=x,
                y=y,
                sample_weight=sample_weight,
                batch_size=batch_size,
                steps_per_epoch=steps,
                shuffle=False,
                steps_per_execution=self.steps_per_execution,
            )
        self._symbolic_build(iterator=epoch_iterator)
        epoch_iterator.reset()
        if not isinstance(callbacks, CallbackList):
            callbacks = CallbackList(
                callbacks,
                add_progbar=verbose != 0,
                verbose=verbose,
                epochs=1,
                steps=epoch_iterator.num_batches,
                model=self,
            )
        test_function = self.make_test_function()
        self.stop_evaluating = False
        callbacks.on_test_begin()
        logs = {}
        self.reset_metrics()
        for begin_step, end_step, batches in epoch_iterator:
            callbacks.on_test_batch_begin(begin_step)
            logs = test_function(batches)
            callbacks.on_test_batch_end(end_step, logs)
            if self.stop_evaluating:
                break
        logs = pythonify_logs(self._get_metrics_result_or_logs(logs))
        callbacks.on_test_end(logs)
        if return_dict:
            return logs
        return self._flatten_metrics_in_order(logs)

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """The model's outputs for ``x`` (batches of ``batch_size``, default 32), as numpy
        arrays in the structure of the outputs."""
        from ferroflow.keras.callbacks import CallbackList
        from ferroflow.keras.utils._epoch_iterator import EpochIterator

        epoch_iterator = EpochIterator(
            x=x,
            batch_size=batch_size,
            steps_per_epoch=steps,
            shuffle=False,
            steps_per_execution=self.steps_per_execution,
        )
        self._symbolic_build(iterator=epoch_iterator, predicting=True)
        if not isinstance(callbacks, CallbackList):
            callbacks = CallbackList(
                callbacks,
                add_progbar=verbose != 0,
                verbose=verbose,
                epochs=1,
                steps=epoch_iterator.num_batches,
                model=self,
            )
        predict_function = self.make_predict_function()
        self.stop_predicting = False
        callbacks.on_predict_begin()
        template, collected = None, None
        for begin_step, end_step, batches in epoch_iterator:
            callbacks.on_predict_batch_begin(begin_step)
            for batch_outputs in predict_function(batches):
                if collected is None:
                    template = batch_outputs
                    collected = [[] for _ in nest.flatten(batch_outputs)]
                for found, value in zip(collected, nest.flatten(batch_outputs)):
                    found.append(_to_numpy_unless_sparse(value))
            callbacks.on_predict_batch_end(end_step, {"outputs": batch_outputs})
            if self.stop_predicting:
                break
        callbacks.on_predict_end()
        if collected is None:
            raise ValueError(
                "Unexpected result of `predict_function` (Empty batch_outputs). Please use "
                "`Model.compile(..., run_eagerly=True)` for more information of where went "
                "wrong."
            )
        return nest.pack_sequence_as(template, [_concat_batches(parts) for parts in collected])

    @_freezing_metrics
    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One gradient update on one batch; returns its loss (and metrics)."""
        from ferroflow.keras.utils._data_adapters import (
            class_weight_to_sample_weights,
            to_tensors,
        )
        from ferroflow.keras.utils._logs import pythonify_logs
        from ferroflow.keras.utils.data_utils import pack_x_y_sample_weight

        self._assert_compile_called("train_on_batch")
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError(
                    "Arguments `sample_weight` and `class_weight` cannot be specified at the "
                    f"same time. Received: sample_weight={sample_weight}, "
                    f"class_weight={class_weight}"
                )
            sample_weight = class_weight_to_sample_weights(np.asarray(y), class_weight)
        data = to_tensors(pack_x_y_sample_weight(x, y, sample_weight))
        self._symbolic_build(data_batch=data)
        train_function = self.make_train_function()
        self.reset_metrics()
        logs = pythonify_logs(train_function([data]))
        return logs if return_dict else self._flatten_metrics_in_order(logs)

    @_freezing_metrics
    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """The loss (and metrics) of one batch."""
        from ferroflow.keras.utils._data_adapters import to_tensors
        from ferroflow.keras.utils._logs import pythonify_logs
        from ferroflow.keras.utils.data_utils import pack_x_y_sample_weight

        self._assert_compile_called("test_on_batch")
        data = to_tensors(pack_x_y_sample_weight(x, y, sample_weight))
        self._symbolic_build(data_batch=data)
        test_function = self.make_test_function()
        self.reset_metrics()
        logs = pythonify_logs(test_function([data]))
        return logs if return_dict else self._flatten_metrics_in_order(logs)

    def predict_on_batch(self, x):
        """The model's outputs for one batch, as numpy arrays."""
        from ferroflow.keras.utils._data_adapters import to_tensors

        data = (to_tensors(x),)
        self._symbolic_build(data_batch=data, predicting=True)
        (outputs,) = self.make_predict_function()([data])
        return nest.map_structure(_to_numpy_unless_sparse, outputs)

    # --- helpers ----------------------------------------------------------------------------

    def _should_eval(self, epoch, validation_freq):
        epoch = epoch + 1
        if isinstance(validation_freq, int):
            return epoch % validation_freq == 0
        if isinstance(validation_freq, list):
            return epoch in validation_freq
        raise ValueError(
            "Expected `validation_freq` to be a list or int. Received: "
            f"validation_freq={validation_freq} of the type {type(validation_freq)}."
        )

    def _get_metrics_result_or_logs(self, logs):
        """The metrics' current values when ``logs`` has their names (a custom step may
        return other logs, which are then kept)."""
        metric_logs = self.get_metrics_result()
        if isinstance(logs, dict) and set(logs) == set(metric_logs):
            return metric_logs
        return logs

    def _flatten_metrics_in_order(self, logs):
        """``logs`` as a list in `metrics` order (a lone value unwrapped)."""
        from ferroflow.keras.utils._compile_utils import CompileMetrics

        names = []
        for metric in self.metrics:
            if isinstance(metric, CompileMetrics):
                names += [m.name for m in metric.metrics]
            else:
                names.append(metric.name)
        results = [logs[name] for name in names if name in logs]
        results += [logs[key] for key in sorted(logs) if key not in names]
        return results[0] if len(results) == 1 else results

    # --- tf.keras 2's compiled_loss / compiled_metrics, kept by Keras 3 ---------------------

    def compiled_loss(self, y, y_pred, sample_weight=None, regularization_losses=None):
        warnings.warn(
            "`model.compiled_loss()` is deprecated. Instead, use "
            "`model.compute_loss(x, y, y_pred, sample_weight, training)`.",
            stacklevel=2,
        )
        return self.compute_loss(x=None, y=y, y_pred=y_pred, sample_weight=sample_weight)

    @property
    def compiled_metrics(self):
        model = self

        class DeprecatedCompiledMetric:
            def update_state(self, y, y_pred, sample_weight=None):
                return model._compiled_metrics_update_state(y, y_pred, sample_weight)

        return DeprecatedCompiledMetric()

    def _compiled_metrics_update_state(self, y, y_pred, sample_weight=None):
        from ferroflow.keras.metrics import Mean

        warnings.warn(
            "`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\nfor metric in "
            "self.metrics:\n    metric.update_state(y, y_pred)\n```\n",
            stacklevel=3,
        )
        for metric in self.metrics:
            if isinstance(metric, Mean):
                metric.update_state(y_pred, sample_weight=sample_weight)
            else:
                metric.update_state(y, y_pred, sample_weight=sample_weight)


def _to_numpy_unless_sparse(value):
    return value if isinstance(value, SparseTensor) else np.asarray(value)


def _concat_batches(parts):
    """The batches' outputs joined along the batch axis: sparse outputs stay sparse
    (`tf.sparse.concat`, as Keras's TensorFlow trainer), others as one numpy array."""
    if isinstance(parts[0], SparseTensor):
        from ferroflow import sparse_ops

        return parts[0] if len(parts) == 1 else sparse_ops.concat(0, parts)
    return np.concatenate(parts)
