"""Fuzzes every public op (tests/fuzz_ops.py): failures must be typed exceptions, never crashes.

The driver runs in a subprocess, so an abort, a segfault or a hang fails this test instead of
killing pytest. Its iteration count and seed come from the environment:

    FERROFLOW_FUZZ_ITERATIONS   calls to make (default 60000, about 4 minutes on 2 cores: the
                                composite families (sparse, ragged, TensorArray) run many ops
                                per call)
    FERROFLOW_FUZZ_SEED         the seed (default 0, so that a failure reproduces)

The long run is a separate command: ``make fuzz-long`` or
``python tests/fuzz_ops.py --iterations 2000000`` (a random seed unless --seed is given).
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

DRIVER = Path(__file__).with_name("fuzz_ops.py")
ITERATIONS = int(os.environ.get("FERROFLOW_FUZZ_ITERATIONS", "60000"))
SEED = int(os.environ.get("FERROFLOW_FUZZ_SEED", "0"))
# Every op must have been called at least this often, and returned a result at least once.
MIN_CALLS = 5
# The driver catches hung calls itself (30 s without progress); this bounds the driver.
TIMEOUT_S = 120 + ITERATIONS / 150


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory):
    """Runs the driver once; returns (completed process, summary dict or None)."""
    summary_path = tmp_path_factory.mktemp("fuzz") / "summary.json"
    cmd = [sys.executable, str(DRIVER), "--iterations", str(ITERATIONS), "--seed", str(SEED)]
    cmd += ["--json", str(summary_path), "--quiet"]
    # Its own process group, so a timeout also ends the worker the driver started.
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"the fuzz driver did not finish in {TIMEOUT_S:.0f} s:\n{out[-4000:]!r}")
    done = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else None
    return done, summary


def _describe(failure):
    example = failure["example"]
    lines = [f"[{failure['count']}x] {failure['signature']}"]
    if "iteration" in example:
        lines.append(
            f"    replay: python tests/fuzz_ops.py --seed {SEED} --replay {example['iteration']}"
        )
        lines.append(f"    call:   {example.get('call', '')[:400]}")
    if example.get("rust_frames"):
        lines.append(f"    where:  {' < '.join(example['rust_frames'])}")
    if example.get("kind") == "exception":
        message = example.get("message", "").strip().splitlines() or [""]
        lines.append(f"    raised: {example['exception']}: {message[0][:300]}")
    return "\n".join(lines)


def test_driver_completes(fuzz):
    done, summary = fuzz
    assert summary is not None, (
        f"the fuzz driver exited with {done.returncode} and wrote no summary:\n"
        f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    assert summary["iterations"] == ITERATIONS


def test_every_public_op_has_a_fuzz_spec(fuzz):
    _, summary = fuzz
    assert summary is not None
    assert summary["table_errors"] == []


def test_failures_are_typed_exceptions_never_crashes_or_hangs(fuzz):
    done, summary = fuzz
    assert summary is not None
    failures = summary["distinct_failures"]
    totals = summary["totals"]
    if failures:
        pytest.fail(
            f"{totals['failure']} untyped exceptions, {totals['crash']} crashes and "
            f"{totals['hang']} hangs in {totals['calls']} calls (seed {SEED}); allowed: "
            f"{', '.join(summary['allowed_exceptions'])}. {len(failures)} distinct failures:\n\n"
            + "\n\n".join(_describe(f) for f in failures),
            pytrace=False,
        )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_every_op_is_exercised(fuzz):
    _, summary = fuzz
    assert summary is not None
    assert len(summary["ops"]) * MIN_CALLS <= ITERATIONS, "too few iterations to cover every op"
    rarely_called = {op: c["calls"] for op, c in summary["ops"].items() if c["calls"] < MIN_CALLS}
    assert not rarely_called, f"ops called fewer than {MIN_CALLS} times: {rarely_called}"
    never_ok = [
        op
        for op, c in summary["ops"].items()
        if c["ok"] == 0 and op not in summary["never_succeeds"]
    ]
    assert not never_ok, (
        f"ops that never returned a result (are their arguments valid?): {never_ok}"
    )
