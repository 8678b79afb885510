"""`tf.keras.callbacks.LambdaCallback`."""

from ferroflow.keras.callbacks.callback import Callback

__all__ = ["LambdaCallback"]


class LambdaCallback(Callback):
    """A callback made of the functions given for some hooks: ``on_epoch_begin(epoch, logs)``,
    ``on_epoch_end(epoch, logs)``, ``on_train_begin(logs)``, ``on_train_end(logs)``,
    ``on_train_batch_begin(batch, logs)``, ``on_train_batch_end(batch, logs)``; further
    keyword arguments (such as ``on_test_end``) set other hooks."""

    def __init__(
        self,
        on_epoch_begin=None,
        on_epoch_end=None,
        on_train_begin=None,
        on_train_end=None,
        on_train_batch_begin=None,
        on_train_batch_end=None,
        **kwargs,
    ):
        super().__init__()
        self.__dict__.update(kwargs)
        hooks = {
            "on_epoch_begin": on_epoch_begin,
            "on_epoch_end": on_epoch_end,
            "on_train_begin": on_train_begin,
            "on_train_end": on_train_end,
            "on_train_batch_begin": on_train_batch_begin,
            "on_train_batch_end": on_train_batch_end,
        }
        for name, hook in hooks.items():
            if hook is not None:
                setattr(self, name, hook)
