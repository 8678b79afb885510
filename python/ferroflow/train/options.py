"""`tf.train.CheckpointOptions` and the write callbacks it carries (how `save` and
`CheckpointManager` learn that a checkpoint's files are complete)."""

import inspect

__all__ = ["CheckpointOptions", "run_write_callbacks"]


class CheckpointOptions:
    """Options for `Checkpoint.write`/`save`/`read`/`restore`. Writes are synchronous and run
    on the host, so only ``experimental_write_callbacks`` changes anything: each is called after
    a checkpoint is written, with its path if it takes one argument."""

    def __init__(
        self,
        experimental_io_device=None,
        experimental_enable_async_checkpoint=False,
        experimental_write_callbacks=None,
        enable_async=False,
        experimental_skip_slot_variables=False,
        experimental_sharding_callback=None,
    ):
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint
        self.experimental_write_callbacks = experimental_write_callbacks
        self.enable_async = enable_async
        self.experimental_skip_slot_variables = experimental_skip_slot_variables
        self.experimental_sharding_callback = experimental_sharding_callback


def run_write_callbacks(callbacks, save_path):
    for callback in callbacks or ():
        count = len(inspect.signature(callback).parameters)
        if count == 0:
            callback()
        elif count == 1:
            callback(save_path)
        else:
            raise AssertionError(
                "Callback functions for checkpoint are required to have 0 or 1"
                f"parameters, but this has {count} parameters: {callback}"
            )
