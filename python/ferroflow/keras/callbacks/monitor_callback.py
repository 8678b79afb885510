"""The base of the callbacks that watch one logged quantity for improvement."""

import operator
import warnings

from ferroflow.keras.callbacks.callback import Callback

__all__ = ["MonitorCallback"]


class MonitorCallback(Callback):
    """Watches ``monitor`` (a key of the epoch logs) in ``mode`` "min", "max" or "auto"
    (losses are minimised; metrics whose class says which way is better follow it). A new
    value improves on the reference by more than ``min_delta``."""

    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(
                f"{type(self).__name__} mode '{mode}' is unknown, fallback to auto mode.",
                stacklevel=3,
            )
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op = None

    def _metric_direction(self, name):
        for metric in getattr(self.model, "metrics", None) or ():
            children = getattr(metric, "metrics", None)
            for m in children if isinstance(children, list) else [metric]:
                if m.name == name and getattr(m, "_direction", None) is not None:
                    return m._direction
        return None

    def _set_monitor_op(self):
        if self.mode == "min":
            self.monitor_op = operator.lt
        elif self.mode == "max":
            self.monitor_op = operator.gt
        else:
            name = self.monitor.removeprefix("val_")
            if name == "loss":
                self.monitor_op = operator.lt
            direction = self._metric_direction(name)
            if direction is not None:
                self.monitor_op = operator.gt if direction == "up" else operator.lt
            if self.monitor_op is None:
                raise ValueError(
                    f"{type(self).__name__} callback received monitor={self.monitor}, but Keras "
                    "isn't able to automatically determine whether that metric should be "
                    "maximized or minimized. Pass `mode='max'` in order to monitor based on the "
                    "highest metric value, or pass `mode='min'` in order to use the lowest value."
                )
        if self.monitor_op is operator.lt:
            self.min_delta *= -1

    def _is_improvement(self, monitor_value, reference_value):
        if reference_value is None:
            return True
        return bool(self.monitor_op(monitor_value - self.min_delta, reference_value))
