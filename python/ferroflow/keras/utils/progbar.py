"""`tf.keras.utils.Progbar`: Keras 3's progress bar, drawn with the same text."""

import logging
import math
import os
import sys
import time

import numpy as np

__all__ = ["Progbar", "print_msg"]


def print_msg(message, line_break=True):
    """Writes ``message`` to stdout at once (Keras's interactive logging); with interactive
    logging disabled, logs it at INFO level to the "absl" logger, as Keras does."""
    from ferroflow.keras.utils.general_utils import is_interactive_logging_enabled

    if not is_interactive_logging_enabled():
        logging.getLogger("absl").info(message)
        return
    sys.stdout.write(f"{message}\n" if line_break else str(message))
    sys.stdout.flush()


def _number(value):
    """A displayed value as a Python number (tensors and arrays are averaged)."""
    if isinstance(value, (int, float)):
        return value
    return float(np.mean(np.asarray(value)))


class Progbar:
    """Displays a progress bar: ``7/7 ━━━━━━━━━━━━━━━━━━━━ 0s 2ms/step - loss: 16.1234``.

    Args:
        target: Total number of steps expected, None if unknown.
        width: Progress bar width on screen.
        verbose: 0 (silent), 1 (the bar, redrawn in place on a terminal) or 2 (one line when
            the target is reached).
        interval: Minimum time between redraws (seconds).
        stateful_metrics: Names of metrics displayed as given (the others are averaged over
            the steps).
        stateless_metrics: Names of metrics to average (the others are displayed as given);
            give only one of the two.
        unit_name: Display name for the steps.
    """

    def __init__(
        self,
        target,
        width=20,
        verbose=1,
        interval=0.05,
        stateful_metrics=None,
        stateless_metrics=None,
        unit_name="step",
    ):
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError(
                "Only one of `stateful_metrics` or `stateless_metrics` can be provided. "
                "`stateful_metrics` is used to make metrics stateless by default (with an "
                "exclusion list), while `stateless_metrics` is used to make metrics stateful by "
                "default (with an exclusion list)."
            )
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        if stateless_metrics is not None:
            self.stateful_metrics = None
            self.stateless_metrics = set(stateless_metrics)
        else:
            self.stateful_metrics = set(stateful_metrics or ())
            self.stateless_metrics = None
        # Redrawn in place on terminals and notebooks; one line per update otherwise.
        self._dynamic_display = (
            (hasattr(sys.stdout, "isatty") and sys.stdout.isatty())
            or "ipykernel" in sys.modules
            or "PYCHARM_HOSTED" in os.environ
        )
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = time.time()
        self._last_update = 0
        self._time_after_first_step = None
        self._prev_total_width = 0

    def _is_stateless(self, name):
        if self.stateful_metrics is not None:
            return name not in self.stateful_metrics
        return name in self.stateless_metrics

    def update(self, current, values=None, finalize=None):
        """Moves the bar to step ``current``; ``values`` is a list of ``(name, value)``."""
        if finalize is None:
            finalize = False if self.target is None else current >= self.target
        for k, v in values or ():
            if k not in self._values_order:
                self._values_order.append(k)
            if not self._is_stateless(k):
                # Kept as given (a tensor is read only if it is displayed).
                self._values[k] = [v, 1]
            elif finalize:
                self._values[k] = [_number(v), 1]
            else:
                base = max(current - self._seen_so_far, 1)
                v = _number(v)
                if k not in self._values:
                    self._values[k] = [v * base, base]
                else:
                    self._values[k][0] += v * base
                    self._values[k][1] += base
        self._seen_so_far = current

        now = time.time()
        time_per_unit = self._estimate_step_duration(current, now)
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._draw(current, now, time_per_unit, finalize)
        elif self.verbose == 2 and finalize and self.target is not None and self.target > 0:
            digits = int(math.log10(self.target)) + 1
            info = f"{int(current):{digits}d}/{self.target}"
            info += f" - {now - self._start:.0f}s -{self._format_time(time_per_unit)}"
            for k in self._values_order:
                avg = self._average(k)
                info += f" - {k}: {avg:.4f}" if avg > 1e-3 else f" - {k}: {avg:.4e}"
            print_msg(info + "\n", line_break=False)
        self._last_update = now

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)

    def _average(self, name):
        total, count = self._values[name]
        return _number(total) / max(1, count)

    def _draw(self, current, now, time_per_unit, finalize):
        message = "\b" * self._prev_total_width + "\r" if self._dynamic_display else "\n"
        special_chars = 0
        if self.target is not None and self.target > 0:
            digits = int(math.log10(self.target)) + 1
            bar = f"\x1b[1m{int(current):{digits}d}/{self.target}\x1b[0m "
            special_chars += 8
            filled = int(self.width * float(current) / self.target)
            if filled > 0:
                bar += f"\x1b[32m{'━' * filled}\x1b[0m"
                special_chars += 9
            bar += f"\x1b[37m{'━' * (self.width - filled)}\x1b[0m"
            special_chars += 9
        else:
            bar = f"{int(current):7d}/Unknown"
        message += bar

        if self.target is not None and self.target > 0 and not finalize:
            eta = time_per_unit * (self.target - current)
            if eta > 3600:
                eta_text = f"{int(eta // 3600)}:{int(eta % 3600 // 60):02d}:{int(eta % 60):02d}"
            elif eta > 60:
                eta_text = f"{int(eta // 60)}:{int(eta % 60):02d}"
            else:
                eta_text = f"{int(eta)}s"
            info = f" \x1b[1m{eta_text}\x1b[0m"
        else:
            info = f" \x1b[1m{now - self._start:.0f}s\x1b[0m"
        special_chars += 8
        info += self._format_time(time_per_unit)
        for k in self._values_order:
            avg = self._average(k)
            info += f" - {k}: {avg:.4f}" if abs(avg) > 1e-3 else f" - {k}: {avg:.4e}"
        message += info

        total_width = len(bar) + len(info) - special_chars
        if self._prev_total_width > total_width:
            message += " " * (self._prev_total_width - total_width)
        if finalize:
            message += "\n"
        print_msg(message, line_break=False)
        self._prev_total_width = total_width

    def _format_time(self, time_per_unit):
        if time_per_unit >= 1 or time_per_unit == 0:
            return f" {time_per_unit:.0f}s/{self.unit_name}"
        if time_per_unit >= 1e-3:
            return f" {time_per_unit * 1000.0:.0f}ms/{self.unit_name}"
        return f" {time_per_unit * 1000000.0:.0f}us/{self.unit_name}"

    def _estimate_step_duration(self, current, now):
        """Seconds per step, leaving out the first step (usually slower: tracing) once later
        ones have run."""
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            time_per_unit = (now - self._time_after_first_step) / (current - 1)
        else:
            time_per_unit = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return time_per_unit
