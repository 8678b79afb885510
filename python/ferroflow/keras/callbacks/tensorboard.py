"""`tf.keras.callbacks.TensorBoard`: constructed and configured as in Keras; ferroflow has no
summary writer yet (`tf.summary`, part of the data and I/O issue), so using it in `fit` or
`evaluate` raises NotImplementedError instead of silently writing nothing."""

from ferroflow.keras.callbacks.callback import Callback

__all__ = ["TensorBoard"]

_NO_SUMMARY_WRITER = (
    "TensorBoard needs tf.summary's event-file writer, which ferroflow does not have yet (the "
    "summary writer belongs to the data and I/O issue). Remove the TensorBoard callback, or log "
    "with CSVLogger or a LambdaCallback meanwhile."
)


class TensorBoard(Callback):
    """Keeps Keras's arguments (checked as Keras checks them); training or evaluating with it
    raises NotImplementedError until `tf.summary` exists."""

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
        self._should_trace = not (self._start_batch == 0 and self._stop_batch == 0)

    def on_train_begin(self, logs=None):
        raise NotImplementedError(_NO_SUMMARY_WRITER)

    def on_test_begin(self, logs=None):
        raise NotImplementedError(_NO_SUMMARY_WRITER)
