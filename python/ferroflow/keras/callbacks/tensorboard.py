"""`tf.keras.callbacks.TensorBoard`: Keras 3's callback over ferroflow's `tf.summary`. It
writes what Keras writes with TensorFlow: under ``log_dir/train`` the model's config as a
"graph_keras_model" summary (Sequential and Functional models), epoch scalars
(``epoch_<metric>``, ``epoch_learning_rate``), batch scalars every ``update_freq`` batches,
weight histograms (and images) every ``histogram_freq`` epochs; under ``log_dir/validation``
the validation epoch scalars and ``evaluation_<metric>_vs_iterations``."""

import json
import logging
import os
import sys
import time
import warnings

from ferroflow.keras.callbacks.callback import Callback

__all__ = ["TensorBoard", "keras_model_summary"]

_log = logging.getLogger("ferroflow")


class TensorBoard(Callback):
    """Writes TensorBoard logs of `fit` and `evaluate` (Keras's arguments and behaviour).

    Args:
        log_dir: Where the ``train`` and ``validation`` event files go.
        histogram_freq: Every how many epochs weight histograms are written (0: never).
        write_graph: Whether to write the model's config for TensorBoard's graph view.
        write_images: Whether to write weights as images too (with ``histogram_freq``).
        write_steps_per_second: Whether to log training steps per second.
        update_freq: ``"epoch"``, ``"batch"`` or every how many batches batch scalars
            (and summaries written inside the model) are recorded.
        profile_batch: Batches (a number or a pair) whose `tf.function` graphs are traced;
            ferroflow has no profiler, so only the graphs are exported.
        embeddings_freq: Every how many epochs Embedding weights are saved for the projector.
        embeddings_metadata: Metadata file for the projector (one path, or per layer name).
    """

    def __init__(
        self,
        log_dir="logs",
        histogram_freq=0,
        write_graph=True,
        write_images=False,
        write_steps_per_second=False,
        update_freq="epoch",
        profile_batch=0,
        embeddings_freq=0,
        embeddings_metadata=None,
    ):
        super().__init__()
        self.log_dir = str(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._init_profile_batch(profile_batch)
        self._global_train_batch = 0
        self._global_test_batch = 0
        self._previous_epoch_iterations = 0
        self._train_accumulated_time = 0
        self._batch_start_time = 0
        self._writers = {}
        self._prev_summary_state = []

    @property
    def summary(self):
        from ferroflow import summary

        return summary

    def set_model(self, model):
        """Sets the model and writes its config when ``write_graph``."""
        self._model = model
        self._log_write_dir = self.log_dir
        self._train_dir = os.path.join(self._log_write_dir, "train")
        self._val_dir = os.path.join(self._log_write_dir, "validation")
        self._writers = {}
        self._should_write_train_graph = False
        if self.write_graph:
            self._write_keras_model_summary()
            self._should_write_train_graph = True
        if self.embeddings_freq:
            self._configure_embeddings()

    @property
    def _train_writer(self):
        if "train" not in self._writers:
            self._writers["train"] = self.summary.create_file_writer(self._train_dir)
        return self._writers["train"]

    @property
    def _val_writer(self):
        if "val" not in self._writers:
            self._writers["val"] = self.summary.create_file_writer(self._val_dir)
        return self._writers["val"]

    def _write_keras_model_train_graph(self):
        # Keras writes the train function's graph only when it is a `tf.function` with a
        # `function_spec`; with TensorFlow 2.21 (and in ferroflow) it is a plain function.
        train_fn = self.model.train_function
        if hasattr(train_fn, "function_spec") and hasattr(train_fn, "get_concrete_function"):
            with self._train_writer.as_default():
                self.summary.graph(train_fn.get_concrete_function().graph)

    def _write_keras_model_summary(self):
        with self._train_writer.as_default():
            if type(self.model).__name__ in ("Functional", "Sequential"):
                keras_model_summary("keras", self.model, step=0)

    def _configure_embeddings(self):
        from ferroflow.keras.layers import Embedding

        entries = []
        for layer in self.model.layers:
            if isinstance(layer, Embedding):
                entry = {
                    "tensor_name": "layer_with_weights-0/embeddings/.ATTRIBUTES/VARIABLE_VALUE"
                }
                if self.embeddings_metadata is not None:
                    if isinstance(self.embeddings_metadata, str):
                        entry["metadata_path"] = self.embeddings_metadata
                    elif layer.name in self.embeddings_metadata.keys():
                        entry["metadata_path"] = self.embeddings_metadata.pop(layer.name)
                entries.append(entry)
        if self.embeddings_metadata and not isinstance(self.embeddings_metadata, str):
            raise ValueError(
                "Unrecognized `Embedding` layer names passed to `keras.callbacks.TensorBoard` "
                f"`embeddings_metadata` argument: {self.embeddings_metadata.keys()}"
            )
        os.makedirs(self._log_write_dir, exist_ok=True)
        path = os.path.join(self._log_write_dir, "projector_config.pbtxt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(_projector_config_text(entries))

    def _push_writer(self, writer, step):
        """Makes ``writer`` the default at ``step`` for summaries written during batches."""
        if self.update_freq == "epoch":
            return

        def should_record():
            return step % self.update_freq == 0

        summary_context = (writer.as_default(step), self.summary.record_if(should_record))
        self._prev_summary_state.append(summary_context)
        summary_context[0].__enter__()
        summary_context[1].__enter__()

    def _pop_writer(self):
        if self.update_freq == "epoch":
            return
        previous_context = self._prev_summary_state.pop()
        previous_context[1].__exit__(*sys.exc_info())
        previous_context[0].__exit__(*sys.exc_info())

    def _close_writers(self):
        for writer in self._writers.values():
            writer.close()

    def _init_profile_batch(self, profile_batch):
        message = (
            "profile_batch must be a non-negative integer or 2-tuple of positive integers. A "
            "pair of positive integers signifies a range of batches to profile. "
            f"Found: {profile_batch}"
        )
        if isinstance(profile_batch, str):
            profile_batch = [int(part) for part in profile_batch.split(",")]
        if isinstance(profile_batch, int):
            self._start_batch = self._stop_batch = profile_batch
        elif isinstance(profile_batch, (tuple, list)) and len(profile_batch) == 2:
            self._start_batch, self._stop_batch = profile_batch
        else:
            raise ValueError(message)
        if self._start_batch < 0 or self._stop_batch < self._start_batch:
            raise ValueError(message)
        self._is_tracing = False
        self._should_trace = not (self._start_batch == 0 and self._stop_batch == 0)

    def on_train_begin(self, logs=None):
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0
        self._push_writer(self._train_writer, self._global_train_batch)

    def on_train_end(self, logs=None):
        self._pop_writer()
        if self._is_tracing:
            self._stop_trace()
        self._close_writers()

    def on_test_begin(self, logs=None):
        self._push_writer(self._val_writer, self._global_test_batch)

    def on_test_end(self, logs=None):
        if self.model.optimizer and hasattr(self.model.optimizer, "iterations"):
            with self._val_writer.as_default():
                for name, value in (logs or {}).items():
                    self.summary.scalar(
                        f"evaluation_{name}_vs_iterations",
                        value,
                        step=self.model.optimizer.iterations,
                    )
        self._pop_writer()

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._train_writer, self._global_train_batch)
        if self.write_steps_per_second:
            self._batch_start_time = time.time()
        if self._should_trace and self._global_train_batch == self._start_batch:
            self._start_trace()

    def on_train_batch_end(self, batch, logs=None):
        if self._should_write_train_graph:
            self._write_keras_model_train_graph()
            self._should_write_train_graph = False
        if self.write_steps_per_second:
            batch_run_time = time.time() - self._batch_start_time
            self.summary.scalar(
                "batch_steps_per_second", 1.0 / batch_run_time, step=self._global_train_batch
            )
        if isinstance(logs, dict):
            for name, value in logs.items():
                self.summary.scalar(f"batch_{name}", value, step=self._global_train_batch)
        if self._is_tracing and self._global_train_batch >= self._stop_batch:
            self._stop_trace()

    def on_test_batch_begin(self, batch, logs=None):
        self._global_test_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._val_writer, self._global_test_batch)

    def on_epoch_begin(self, epoch, logs=None):
        if self.write_steps_per_second:
            self._previous_epoch_iterations = float(self.model.optimizer.iterations.numpy())
            self._epoch_start_time = time.time()

    def on_epoch_end(self, epoch, logs=None):
        """Writes the epoch's metrics, and weight histograms every ``histogram_freq``."""
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            self._log_embeddings(epoch)

    def _start_trace(self):
        self.summary.trace_on(graph=True, profiler=False)
        # Keras starts TensorFlow's profiler here and logs, without stopping, when that fails.
        _log.error("Failed to start profiler: ferroflow has no TensorFlow profiler")
        self._is_tracing = True

    def _stop_trace(self, batch=None):
        if batch is None:
            batch = self._stop_batch
        with self._train_writer.as_default():
            self.summary.trace_export(name=f"batch_{batch}", step=batch)
        self._is_tracing = False

    def _collect_learning_rate(self, logs):
        from ferroflow.keras.optimizers import Optimizer

        optimizer = self.model.optimizer
        if hasattr(optimizer, "inner_optimizer"):
            optimizer = optimizer.inner_optimizer
        if hasattr(optimizer, "optimizers"):
            for opt in optimizer.optimizers:
                logs[f"learning_rate_{opt.name}"] = float(_numpy(opt.learning_rate))
        elif isinstance(optimizer, Optimizer):
            logs["learning_rate"] = float(_numpy(optimizer.learning_rate))
        return logs

    def _compute_steps_per_second(self):
        import numpy as np

        iterations = np.float32(self.model.optimizer.iterations.numpy())
        elapsed = np.float32(time.time() - self._epoch_start_time)
        return float((iterations - np.float32(self._previous_epoch_iterations)) / elapsed)

    def _log_epoch_metrics(self, epoch, logs):
        if not logs:
            return
        train_logs = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val_logs = {k: v for k, v in logs.items() if k.startswith("val_")}
        train_logs = self._collect_learning_rate(train_logs)
        if self.write_steps_per_second:
            train_logs["steps_per_second"] = self._compute_steps_per_second()
        if train_logs:
            with self._train_writer.as_default():
                for name, value in train_logs.items():
                    self.summary.scalar(f"epoch_{name}", value, step=epoch)
        if val_logs:
            with self._val_writer.as_default():
                for name, value in val_logs.items():
                    self.summary.scalar(f"epoch_{name[4:]}", value, step=epoch)

    def _log_weights(self, epoch):
        with self._train_writer.as_default():
            for layer in self.model.layers:
                for weight in layer.weights:
                    weight_name = weight.path.replace(":", "_")
                    self.summary.histogram(f"{weight_name}/histogram", weight, step=epoch)
                    if self.write_images:
                        self._log_weight_as_image(weight, f"{weight_name}/image", epoch)
            self._train_writer.flush()

    def _log_weight_as_image(self, weight, weight_name, epoch):
        """A weight as Keras shows it: a bias as a row, a kernel as a wide matrix, a
        convolution's kernels one image per filter."""
        import ferroflow as tf
        from ferroflow.keras import backend

        w_img = tf.squeeze(weight)
        shape = w_img.shape
        if len(shape) == 1:
            w_img = tf.reshape(w_img, [1, shape[0], 1, 1])
        elif len(shape) == 2:
            if shape[0] > shape[1]:
                w_img = tf.transpose(w_img)
                shape = w_img.shape
            w_img = tf.reshape(w_img, [1, shape[0], shape[1], 1])
        elif len(shape) == 3:
            if backend.image_data_format() == "channels_last":
                w_img = tf.transpose(w_img, [2, 0, 1])
                shape = w_img.shape
            w_img = tf.reshape(w_img, [shape[0], shape[1], shape[2], 1])
        w_img = w_img.numpy()
        if w_img.ndim == 4 and w_img.shape[-1] in [1, 3, 4]:
            self.summary.image(weight_name, w_img, step=epoch)

    def _log_embeddings(self, epoch):
        path = os.path.join(
            self._log_write_dir, "train", f"keras_embedding.ckpt-{epoch}.weights.h5"
        )
        self.model.save_weights(path)


def _numpy(value):
    return value.numpy() if hasattr(value, "numpy") else value


def _projector_config_text(entries):
    """TensorBoard's `ProjectorConfig` in protobuf text format (what Keras writes with
    `text_format.MessageToString`): one ``embeddings`` block per Embedding layer."""
    lines = []
    for entry in entries:
        lines.append("embeddings {")
        for key in ("tensor_name", "metadata_path"):
            if key in entry:
                lines.append(f"  {key}: {json.dumps(entry[key])}")
        lines.append("}")
    return "".join(line + "\n" for line in lines)


def keras_model_summary(name, data, step=None):
    """Writes a Keras model's config as JSON (plugin "graph_keras_model"), which TensorBoard
    draws as the conceptual graph; False (with a warning) if it does not serialize."""
    from ferroflow import summary
    from ferroflow.summary._plugins import plugin_metadata

    metadata = plugin_metadata("graph_keras_model", content=b"1")
    try:
        json_string = _model_json(data)
    except Exception as exc:
        warnings.warn(f"Model failed to serialize as JSON. Ignoring... {exc}", stacklevel=2)
        return False
    with summary.experimental.summary_scope(name, "graph_keras_model", [data, step]) as (tag, _):
        return summary.write(tag=tag, tensor=json_string, step=step, metadata=metadata)


def _model_json(model):
    """`Model.to_json()`: the model's `serialize_keras_object` config as JSON."""
    if hasattr(model, "to_json"):
        return model.to_json()
    from ferroflow.keras.saving import serialize_keras_object

    return json.dumps(serialize_keras_object(model))
