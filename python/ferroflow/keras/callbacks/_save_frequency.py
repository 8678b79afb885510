"""The batch counting of callbacks that save every ``save_freq`` batches (`ModelCheckpoint`,
`BackupAndRestore`), as Keras counts: a batch number not above the last one seen starts a new
epoch."""

__all__ = ["should_save_on_batch"]


def should_save_on_batch(callback, batch):
    """Whether ``callback`` saves after ``batch`` (updates its batch counters)."""
    if callback.save_freq == "epoch":
        return False
    last = callback._last_batch_seen
    added = batch + 1 if last is None or batch <= last else batch - last
    callback._batches_seen_since_last_saving += added
    callback._last_batch_seen = batch
    if callback._batches_seen_since_last_saving >= callback.save_freq:
        callback._batches_seen_since_last_saving = 0
        return True
    return False
