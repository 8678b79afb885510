"""Differential tests: the same program runs under TensorFlow and under ferroflow.

A program is a function `program(tf, *args)` whose only access to a framework is its `tf`
argument. Its source text is run by a TensorFlow worker process (`_worker.py`, forked by
`_forkserver.py`) and, in this process, with `tf` bound to ferroflow; both results are
converted by `_convert.to_comparable` and compared: structure and container types, dict key
order, namedtuple types and fields, Python scalar types, dtypes, shapes, values (floats within
tolerances, everything else exactly) and, when the program raises, the exception's class name.

    @parity(rtol=1e-6)
    def test_reduce_max(tf):
        return tf.reduce_max(tf.constant([1.0, 5.0, 3.0]))

A program must be self-contained (imports inside the function, no closures over the test
module): only its source travels to the worker. Arguments must be picklable (numpy arrays and
Python values).
"""

import atexit
import builtins
import contextlib
import inspect
import os
import pickle
import pprint
import re
import select
import signal
import socket
import struct
import subprocess
import symtable
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from . import _recorded
from ._convert import HarnessError, run_program, uses_keras

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
HEADER = struct.Struct(">Q")
START_TIMEOUT = 300.0
REQUEST_TIMEOUT = 300.0


def tensorflow_python():
    """The interpreter that runs TensorFlow, or None.

    `FERROFLOW_TF_PYTHON` (set by `make test`) names it; without it the repository's `.venv-tf`
    is used when present.
    """
    named = os.environ.get("FERROFLOW_TF_PYTHON")
    if named:
        return named
    local = REPO / ".venv-tf" / "bin" / "python"
    return str(local) if local.exists() else None


def oracle_unavailable(reason):
    """Skips the parity tests locally; fails them under CI=true, where they must run."""
    message = (
        f"TensorFlow oracle unavailable: {reason}. `make test` creates it in .venv-tf; or set "
        "FERROFLOW_TF_PYTHON to an interpreter that has tensorflow-cpu"
    )
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


class OracleError(Exception):
    """The TensorFlow worker could not be started or stopped answering."""


class _ForkServer:
    """A `_forkserver.py` process: TensorFlow imported once, a fresh worker forked per module."""

    def __init__(self, python):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
        env.pop("PYTHONPATH", None)
        self.directory = tempfile.TemporaryDirectory(prefix="ferroflow-oracle-")
        self.path = os.path.join(self.directory.name, "socket")
        self._stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [python, "-u", str(HERE / "_forkserver.py"), self.path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            cwd=str(REPO),
        )
        ready, _, _ = select.select([self.process.stdout], [], [], START_TIMEOUT)
        line = self.process.stdout.readline().decode(errors="replace") if ready else ""
        if not line.startswith("ready "):
            self.close()
            self._stderr.seek(0)
            detail = line.replace("\\n", "\n") or self._stderr.read().decode(errors="replace")
            raise OracleError(f"the worker could not import TensorFlow:\n{detail}")

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def connect(self, stderr):
        """A connection to a newly forked worker that writes its diagnostics to `stderr`."""
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(self.path)
        socket.send_fds(connection, [b"w"], [stderr.fileno()])
        return connection

    def close(self):
        if self.process is not None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None
        self.directory.cleanup()


_fork_servers = {}


def _fork_server(python):
    """This test process's fork server for `python`, started on first use or after it died."""
    server = _fork_servers.get(python)
    if server is None or not server.alive():
        server = _fork_servers[python] = _ForkServer(python)
        atexit.register(server.close)
    return server


class TensorFlowWorker:
    """Client of a forked `_worker`. Replaces it after a crash or a timeout."""

    def __init__(self, python):
        self.python = python
        self.connection = None
        self.pid = None
        self.version = None
        self._stderr = None

    def start(self):
        # The worker's stderr (program prints, TensorFlow's remaining warnings) goes to a file
        # whose tail is shown when the worker dies.
        self._stderr = tempfile.TemporaryFile()
        try:
            self.connection = _fork_server(self.python).connect(self._stderr)
            kind, payload = self._receive(START_TIMEOUT)
        except OSError as error:
            self.close()
            raise OracleError(f"the TensorFlow fork server refused a worker: {error}") from error
        if kind != "ready":
            self.close()
            raise OracleError(f"the worker could not start:\n{payload}")
        self.version, self.pid = payload["version"], payload["pid"]

    def close(self):
        """Closing the connection ends the worker: it reads end-of-file and exits."""
        if self.connection is not None:
            self.connection.close()
            self.connection = None
            self.pid = None

    def _kill(self):
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        self.close()

    def _stderr_tail(self, limit=4000):
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        text = self._stderr.read().decode(errors="replace")
        return text[-limit:]

    def _read_exactly(self, count, deadline):
        data = bytearray()
        while len(data) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise OracleError("the TensorFlow worker timed out")
            ready, _, _ = select.select([self.connection], [], [], remaining)
            if not ready:
                continue
            chunk = self.connection.recv(count - len(data))
            if not chunk:
                raise OracleError(f"the TensorFlow worker exited:\n{self._stderr_tail()}")
            data += chunk
        return bytes(data)

    def _receive(self, timeout):
        deadline = time.monotonic() + timeout
        header = self._read_exactly(HEADER.size, deadline)
        return pickle.loads(self._read_exactly(HEADER.unpack(header)[0], deadline))

    def run(self, request, timeout=REQUEST_TIMEOUT):
        """Runs one program; returns its comparable result. Raises HarnessError or OracleError."""
        recorded = _recorded.recorded_result(request)
        if recorded is not None:
            return recorded
        if self.connection is None:
            self.start()
        payload = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.connection.sendall(HEADER.pack(len(payload)) + payload)
            kind, result = self._receive(timeout)
        except (OracleError, OSError) as error:
            # A dead or hung worker is replaced for the next program.
            self._kill()
            raise OracleError(str(error)) from error
        if kind == "harness-error":
            raise HarnessError(f"TensorFlow side: {result}")
        recording = _recorded.record_directory()
        if recording is not None:
            _recorded.store(recording, request, result, self.version)
        return result


# --- programs ---------------------------------------------------------------------------------


def program_source(function):
    """(source, file name, first line number) of a module-level function, decorators removed."""
    lines, first = inspect.getsourcelines(function)
    skipped = 0
    while not lines[skipped].lstrip().startswith(("def ", "async def ")):
        skipped += 1
    return "".join(lines[skipped:]), inspect.getsourcefile(function), first + skipped


def _source_of(program):
    if callable(program):
        return program_source(program)
    return (program, None, 1)


def unbound_names(sources):
    """Names the sources read from their module's namespace without defining it (builtins
    aside), sorted: in the workers' fresh namespace each would raise NameError, even where a
    program catches it and both frameworks would then agree without testing anything."""
    bound, read = {"__name__"} | set(dir(builtins)), set()

    def scan(table):
        for symbol in table.get_symbols():
            if symbol.is_declared_global() and symbol.is_assigned():
                bound.add(symbol.get_name())
            if symbol.is_referenced() and (table.get_type() == "module" or symbol.is_global()):
                read.add(symbol.get_name())
        for child in table.get_children():
            scan(child)

    for source, filename, _ in sources:
        table = symtable.symtable(source, filename or "<parity program>", "exec")
        for symbol in table.get_symbols():
            if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace():
                bound.add(symbol.get_name())
        scan(table)
    return sorted(read - bound)


def make_request(program, args=(), kwargs=None, entry=None, helpers=()):
    """A request for `program`: a function (its source is used) or a source string.

    `helpers` (functions or source strings) are defined in the program's namespace first.
    A program (or helper) that reads a module-level name none of them defines is refused.
    """
    if entry is None:
        if not callable(program):
            raise ValueError("a program given as source text needs its entry function's name")
        entry = program.__name__
    sources = [_source_of(h) for h in helpers] + [_source_of(program)]
    missing = unbound_names(sources)
    if missing:
        raise HarnessError(
            f"{entry} reads {', '.join(missing)} from its test module, but only the program's "
            "(and its helpers') source reaches the workers: import inside the program, pass "
            "values as arguments or functions as `helpers`"
        )
    return {"sources": sources, "entry": entry, "args": tuple(args), "kwargs": dict(kwargs or {})}


def run_ferroflow(request):
    import ferroflow

    if uses_keras(request):
        clear = getattr(getattr(ferroflow.keras, "backend", None), "clear_session", None)
        if clear is not None:
            clear()
    return run_program(
        ferroflow, request["sources"], request["entry"], request["args"], request["kwargs"]
    )


def evaluated(tf, expression):
    """A program: the value of a Python expression over `tf`, or the class name of what it
    raised (tests compare exception classes this way)."""
    try:
        return eval(expression, {"tf": tf})  # noqa: S307 - the test's own expression
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def run_both(oracle, program, args=(), kwargs=None, entry=None, helpers=()):
    """(TensorFlow's result, ferroflow's result) of one program, in comparable form."""
    request = make_request(program, args, kwargs, entry, helpers)
    expected = tensorflow_result(oracle, request)
    if _recorded.recording_only():
        return expected, expected
    actual = run_ferroflow(request)
    return expected, actual


# --- TensorFlow's results on the GPU ----------------------------------------------------------

# The oracle is tensorflow-cpu: a program's `tf.device("GPU:0")` scope is soft-placed on its
# CPU, so TensorFlow's result for a program given "GPU:0" is its result for the same program
# given "CPU:0". Each test on both devices would run TensorFlow twice for one answer (a third
# of the parity tests' time); the second run reuses the first's result instead. Programs that
# look at devices (device lists, placement settings, a tensor's `.device`, or a device name in
# their text, as `if device == "GPU:0"`) run every time.
_GPU_TO_CPU = {
    "GPU:0": "CPU:0",
    "/GPU:0": "/CPU:0",
    "gpu:0": "cpu:0",
    "/gpu:0": "/cpu:0",
    "/device:GPU:0": "/device:CPU:0",
}
_LOOKS_AT_DEVICES = re.compile(
    r"\.device\b(?!\s*\()|\bdevice_name\b|tf\.config\b|config\.|placement|DeviceSpec"
    r"|list_(logical|physical)_devices|is_gpu_available|gpu_device_name|is_built_with"
    # A program that names a device itself may branch on its `device` argument
    # (`if device == "GPU:0"`): it runs again too.
    r"|\b(GPU|CPU|gpu|cpu)\b"
)
_SHARED_LIMIT = 256


def _on_cpu(value):
    if isinstance(value, str):
        return _GPU_TO_CPU.get(value, value)
    if isinstance(value, (list, tuple)):
        return type(value)(_on_cpu(v) for v in value)
    if isinstance(value, dict):
        return {k: _on_cpu(v) for k, v in value.items()}
    return value


def _names_a_device(value):
    if isinstance(value, str):
        return value in _GPU_TO_CPU or value in _GPU_TO_CPU.values()
    if isinstance(value, (list, tuple)):
        return any(_names_a_device(v) for v in value)
    if isinstance(value, dict):
        return any(_names_a_device(v) for v in value.values())
    return False


def _cpu_twin(request):
    """The request with its "GPU:0" arguments made "CPU:0" (the key of both runs), or None
    where it names no device or its program looks at devices."""
    if not _names_a_device((request["args"], request["kwargs"])):
        return None
    if any(_LOOKS_AT_DEVICES.search(source) for source, _, _ in request["sources"]):
        return None
    return dict(request, args=_on_cpu(request["args"]), kwargs=_on_cpu(request["kwargs"]))


def tensorflow_result(oracle, request):
    """TensorFlow's result of ``request``, shared between a program's CPU and GPU runs in
    this test process (see `_GPU_TO_CPU`)."""
    twin = _cpu_twin(request)
    if twin is None:
        return oracle.run(request)
    # Kept with the module's TensorFlow worker: its programs' results, for its lifetime.
    shared = oracle.__dict__.setdefault("_results_for_cpu_twins", {})
    key = _recorded.request_key(twin)
    if key not in shared:
        if len(shared) >= _SHARED_LIMIT:
            shared.pop(next(iter(shared)))
        shared[key] = oracle.run(request)
    return shared[key]


# --- comparison -------------------------------------------------------------------------------

_EXACT_KINDS = "biuSUO"  # bool, integers, bytes, str, object (string tensors)


def _path(path):
    return "result" + "".join(path)


def _show(item, limit=600):
    text = pprint.pformat(readable(item), width=96, compact=True, sort_dicts=False)
    return text if len(text) <= limit else text[:limit] + " ..."


def readable(item):
    """A comparable form made easy to read: tensors as `dtype[shape] value`."""
    tag = item[0]
    if tag == "tensor":
        _, kind, dtype, shape, value = item
        prefix = "" if kind == "tensor" else f"{kind} "
        text = np.array2string(np.asarray(value), threshold=40, separator=", ")
        dims = list(shape) if shape is not None else "[?]"
        return _Repr(f"{prefix}{dtype}{dims} {' '.join(text.split())}")
    if tag == "py":
        return _Repr(f"{item[1]}({item[2]!r})")
    if tag == "none":
        return None
    if tag == "dict":
        return {readable(k): readable(v) for k, v in item[2]}
    if tag == "list":
        return [readable(v) for v in item[1]]
    if tag == "tuple":
        return tuple(readable(v) for v in item[1])
    if tag == "namedtuple":
        fields = ", ".join(f"{f}={readable(v)!r}" for f, v in zip(item[2], item[3]))
        return _Repr(f"{item[1]}({fields})")
    if tag == "raised":
        return _Repr(f"raised {item[1]}: {item[2]}")
    return _Repr(" ".join(str(x) for x in item))


class _Repr:
    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text

    def __hash__(self):
        return hash(self.text)

    def __eq__(self, other):
        return isinstance(other, _Repr) and other.text == self.text


def compare(expected, actual, rtol, atol, path=()):
    """Differences between two comparable forms, as readable lines (empty when they agree)."""
    where = _path(path)
    if expected[0] != actual[0]:
        return [f"{where}: TensorFlow gives {_show(expected)}, ferroflow gives {_show(actual)}"]
    tag = expected[0]
    if tag == "tensor":
        return _compare_tensors(expected, actual, rtol, atol, where)
    if tag == "py":
        if expected[1] != actual[1]:
            return [
                f"{where}: Python type {expected[1]} under TensorFlow, {actual[1]} ferroflow "
                f"({expected[2]!r} vs {actual[2]!r})"
            ]
        a, b = expected[2], actual[2]
        if isinstance(a, (float, complex)):
            same = bool(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
        else:
            same = a == b
        return [] if same else [f"{where}: TensorFlow {a!r}, ferroflow {b!r}"]
    if tag == "raised":
        if expected[1] != actual[1]:
            return [
                f"{where}: TensorFlow raises {expected[1]}({expected[2][:300]!r}), "
                f"ferroflow raises {actual[1]}({actual[2][:300]!r})"
            ]
        return []
    if tag == "dict":
        keys_e = [k for k, _ in expected[2]]
        keys_a = [k for k, _ in actual[2]]
        lines = []
        if expected[1] != actual[1]:
            lines.append(f"{where}: mapping type {expected[1]} vs {actual[1]}")
        if _key_set(keys_e) != _key_set(keys_a):
            return lines + [
                f"{where}: dict keys {[readable(k) for k in keys_e]} under "
                f"TensorFlow, {[readable(k) for k in keys_a]} under ferroflow"
            ]
        if keys_e != keys_a:
            lines.append(
                f"{where}: dict key order {[readable(k) for k in keys_e]} under "
                f"TensorFlow, {[readable(k) for k in keys_a]} under ferroflow"
            )
        actual_items = {_freeze(k): v for k, v in actual[2]}
        for key, value in expected[2]:
            lines += compare(
                value, actual_items[_freeze(key)], rtol, atol, (*path, f"[{readable(key)!r}]")
            )
        return lines
    if tag in ("list", "tuple", "namedtuple"):
        lines = []
        if tag == "namedtuple" and expected[1:3] != actual[1:3]:
            lines.append(
                f"{where}: namedtuple {expected[1]}{expected[2]} vs {actual[1]}{actual[2]}"
            )
        items_e, items_a = expected[-1], actual[-1]
        if len(items_e) != len(items_a):
            return lines + [
                f"{where}: {tag} of {len(items_e)} items under TensorFlow, "
                f"{len(items_a)} under ferroflow: {_show(expected)} vs "
                f"{_show(actual)}"
            ]
        for i, (e, a) in enumerate(zip(items_e, items_a)):
            lines += compare(e, a, rtol, atol, (*path, f"[{i}]"))
        return lines
    if expected != actual:
        return [f"{where}: TensorFlow {_show(expected)}, ferroflow {_show(actual)}"]
    return []


def _freeze(key):
    return pickle.dumps(key)


def _key_set(keys):
    return sorted(_freeze(k) for k in keys)


def _compare_tensors(expected, actual, rtol, atol, where):
    _, kind_e, dtype_e, shape_e, value_e = expected
    _, kind_a, dtype_a, shape_a, value_a = actual
    lines = []
    if kind_e != kind_a:
        lines.append(f"{where}: a {kind_e} under TensorFlow, a {kind_a} under ferroflow")
    if dtype_e != dtype_a:
        lines.append(f"{where}: dtype {dtype_e} under TensorFlow, {dtype_a} under ferroflow")
    if shape_e != shape_a:
        lines.append(f"{where}: shape {shape_e} under TensorFlow, {shape_a} under ferroflow")
    value_e, value_a = np.asarray(value_e), np.asarray(value_a)
    if value_e.shape != value_a.shape:
        return lines + [f"{where}: values of shape {value_e.shape} vs {value_a.shape}"]
    exact = value_e.dtype.kind in _EXACT_KINDS and value_a.dtype.kind in _EXACT_KINDS
    if exact:
        mismatch = value_e != value_a
    else:
        e, a = _as_float(value_e), _as_float(value_a)
        mismatch = ~np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    if np.any(mismatch):
        count = int(np.count_nonzero(mismatch))
        first = tuple(int(i) for i in np.argwhere(mismatch)[0]) if value_e.ndim else ()
        detail = (
            f"{count} of {value_e.size} elements differ; first at {first}: "
            f"TensorFlow {value_e[first]!r}, ferroflow {value_a[first]!r}"
        )
        if not exact:
            with np.errstate(invalid="ignore"):
                diff = np.abs(_as_float(value_e) - _as_float(value_a))
            finite = diff[np.isfinite(diff)]
            if finite.size:
                detail += f"; largest absolute difference {finite.max():.3g}"
        lines.append(
            f"{where}: {detail}\n    TensorFlow: {_show(expected)}\n    ferroflow:  {_show(actual)}"
        )
    return lines


def _as_float(array):
    if array.dtype.kind == "c":
        return array.astype(np.complex128)
    return array.astype(np.float64)


def assert_parity(
    oracle, program, args=(), kwargs=None, rtol=1e-5, atol=1e-6, entry=None, helpers=()
):
    """Runs `program` under both frameworks and fails with a readable diff when they differ."""
    expected, actual = run_both(oracle, program, args, kwargs, entry, helpers)
    if expected[0] == "raised" and expected[1] == "NameError":
        # Only the program's own source travels to the workers: a module-level name it reads
        # raises NameError under both frameworks, which would agree and pass without testing.
        pytest.fail(
            f"the program raised NameError under TensorFlow ({expected[2][:200]}): pass "
            "module-level values as arguments or `helpers`",
            pytrace=False,
        )
    differences = compare(expected, actual, rtol, atol)
    if differences:
        name = entry or getattr(program, "__name__", "program")
        pytest.fail(
            f"{name}: ferroflow differs from TensorFlow {oracle.version} "
            f"(rtol={rtol}, atol={atol}):\n  "
            + "\n  ".join(differences)
            + f"\n\nTensorFlow's result:\n{_show(expected, 3000)}"
            + f"\n\nferroflow's result:\n{_show(actual, 3000)}",
            pytrace=False,
        )
    return expected


def parity(function=None, *, rtol=1e-5, atol=1e-6, args=(), kwargs=None, helpers=()):
    """Makes a test of a program: it runs under TensorFlow and ferroflow, results must agree.

    The decorated function takes the framework as its first parameter (`tf`), then `args` and
    `kwargs` (picklable); `helpers` are module-level functions it calls (their source travels
    with it). The test it becomes asks for the `tf_oracle` fixture.
    """

    def decorate(program):
        def test(tf_oracle):
            assert_parity(tf_oracle, program, args, kwargs, rtol=rtol, atol=atol, helpers=helpers)

        # Not functools.wraps: pytest would follow __wrapped__ and ask for a `tf` fixture.
        test.__name__ = program.__name__
        test.__qualname__ = program.__qualname__
        test.__module__ = program.__module__
        test.__doc__ = program.__doc__
        test.parity_program = program
        return test

    return decorate(function) if function is not None else decorate


def start_oracle():
    """The session's TensorFlow worker; skips (or fails under CI) when there is none.

    With FERROFLOW_TF_REPLAY, results recorded elsewhere stand in for it (see `_recorded`)."""
    replaying = _recorded.replay_directory()
    if replaying is not None:
        return _recorded.ReplayedOracle(replaying)
    python = tensorflow_python()
    if python is None:
        oracle_unavailable("FERROFLOW_TF_PYTHON is not set and .venv-tf does not exist")
    if not os.path.exists(python):
        oracle_unavailable(f"FERROFLOW_TF_PYTHON={python} does not exist")
    worker = TensorFlowWorker(python)
    try:
        worker.start()
    except OracleError as error:
        oracle_unavailable(str(error))
    return worker


__all__ = [
    "HarnessError",
    "OracleError",
    "TensorFlowWorker",
    "assert_parity",
    "compare",
    "make_request",
    "parity",
    "run_both",
    "start_oracle",
]
