"""`tf.train.Coordinator`: lets a group of threads stop together, and reports the first
exception any of them raised when they are joined, as TensorFlow's."""

import contextlib
import sys
import threading
import time

from ferroflow import errors

__all__ = ["Coordinator"]


class Coordinator:
    """A stop flag shared by threads, with the exception that made one of them stop.

    Exceptions of `clean_stop_exception_types` (`tf.errors.OutOfRangeError` by default, the end
    of an input) stop the threads without being reported.
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._exc_info = None
        self._joined = False
        self._threads = set()

    def _reportable(self, ex):
        """`ex` (an exception or an exc_info tuple), or None when it is a clean stop."""
        instance = ex[1] if isinstance(ex, tuple) else ex
        return None if isinstance(instance, self._clean_types) else ex

    def request_stop(self, ex=None):
        """Asks every thread to stop; the first reportable `ex` is raised later by `join`.
        After `join`, a reportable `ex` makes this re-raise the exception being handled (as
        TensorFlow's, which is a TypeError outside an `except` block): nobody would report it."""
        with self._lock:
            ex = self._reportable(ex)
            if self._joined and ex is not None:
                handled = sys.exc_info()[1]
                if handled is None:
                    raise TypeError("exceptions must derive from BaseException")
                raise handled
            if self._stop.is_set():
                return
            if ex is not None and self._exc_info is None:
                self._exc_info = ex if isinstance(ex, tuple) else sys.exc_info()
                if len(self._exc_info) != 3 or not self._exc_info[0] or not self._exc_info[1]:
                    # An exception passed outside its `except` block: record a ValueError
                    # instead, so that the coordinator still stops with an error.
                    try:
                        raise ValueError(
                            "ex must be a tuple or sys.exc_info must return the current "
                            f"exception: {self._exc_info}"
                        )
                    except ValueError:
                        self._exc_info = sys.exc_info()
            self._stop.set()

    def clear_stop(self):
        """Forgets the stop request and its exception, so the threads can run again."""
        with self._lock:
            self._joined = False
            self._exc_info = None
            self._stop.clear()

    def should_stop(self):
        return self._stop.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """Any exception raised inside requests a stop (reported by `join`) instead of
        propagating."""
        try:
            yield
        except:  # noqa: E722 - TensorFlow's catches everything, SystemExit included
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Waits until a stop is requested (or `timeout` seconds); True if one was."""
        return self._stop.wait(timeout)

    def register_thread(self, thread):
        with self._lock:
            self._threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for the threads (those given and those registered) to end or for a stop
        request, then `stop_grace_period_secs` more for the threads to end. Raises the
        reported exception, else RuntimeError naming threads still alive (unless
        `ignore_live_threads`)."""
        with self._lock:
            threads = list(self._threads if threads is None else self._threads | set(threads))
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        wait, grace = 0.001, stop_grace_period_secs
        while any(t.is_alive() for t in threads) and grace >= 0.0:
            time.sleep(wait)
            grace -= wait
            wait = max(min(2 * wait, grace), 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._threads = set()
            if self._exc_info:
                raise self._exc_info[1]
            if stragglers and not ignore_live_threads:
                raise RuntimeError(
                    f"Coordinator stopped with threads still running: {' '.join(stragglers)}"
                )

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        """Raises the reported exception, if any."""
        with self._lock:
            if self._exc_info:
                raise self._exc_info[1]
