"""ferroflow-serve against calling the loaded model in Python: requests per second and p50/p99
latency of one-row predictions on an MLP (64 -> 256 -> 256 -> 10), with 1 and 8 concurrent
clients.

- serve: HTTP POST :predict to the ferroflow-serve binary (release build) on loopback, JSON in
  and out; the clients are Python threads with keep-alive connections, in this process.
- ferroflow: `tf.saved_model.load(dir).signatures["serving_default"]` called from 1 or 8
  Python threads.
- tensorflow: the same model (same weights) saved and loaded by TensorFlow, called the same way
  (under FERROFLOW_TF_PYTHON's interpreter when TensorFlow is not importable here).

Ratios are ferroflow-serve's requests per second over the other's calls per second (>1: the
server answers more requests than Python makes calls).
"""

import concurrent.futures
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

# The CPU path for both (the server inherits this): a software Vulkan device would be slower.
os.environ.setdefault("FERROFLOW_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
from _harness import run_tensorflow  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = [64, 256, 256, 10]
CALLS = 2000  # per concurrency level, split between the clients


def weights():
    rng = np.random.default_rng(0)
    pairs = zip(SIZES[:-1], SIZES[1:])
    return [
        (rng.normal(0, 0.1, (a, b)).astype(np.float32), np.zeros(b, np.float32)) for a, b in pairs
    ]


def save_mlp(tf, path):
    """The MLP built with the shared weights and saved with a `serving_default` signature."""
    keras = tf.keras
    layers = [keras.Input((SIZES[0],))]
    layers += [keras.layers.Dense(n, activation="relu") for n in SIZES[1:-1]]
    layers += [keras.layers.Dense(SIZES[-1])]
    model = keras.Sequential(layers)
    for layer, (kernel, bias) in zip(model.layers, weights()):
        layer.set_weights([kernel, bias])
    serve = tf.function(
        lambda features: model(features),
        input_signature=[tf.TensorSpec([None, SIZES[0]], tf.float32, name="features")],
    )
    tf.saved_model.save(model, path, signatures=serve)


def measure(call, clients):
    """(calls per second, p50 ms, p99 ms) of CALLS calls of `call(client_index)` made by
    `clients` threads."""
    per_client = CALLS // clients

    def run(index):
        latencies = []
        for _ in range(per_client):
            start = time.perf_counter()
            call(index)
            latencies.append(time.perf_counter() - start)
        return latencies

    for index in range(clients):
        call(index)  # warm-up: connections, traces, caches
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        latencies = [t for part in pool.map(run, range(clients)) for t in part]
    wall = time.perf_counter() - start
    p50, p99 = np.percentile(latencies, [50, 99]) * 1e3
    return len(latencies) / wall, p50, p99


def python_rows(tf, path):
    """Timings of the loaded signature called from Python threads."""
    signature = tf.saved_model.load(path).signatures["serving_default"]
    row = tf.constant(np.ones((1, SIZES[0]), np.float32))

    # Reading the result waits for it (ferroflow may return before its kernels finish).
    def call(_):
        for value in signature(features=row).values():
            value.numpy()

    return {clients: measure(call, clients) for clients in (1, 8)}


def release_binary():
    """The release build of the server (what `make bench` builds the extension as)."""
    subprocess.run(
        ["cargo", "build", "--release", "--bin", "ferroflow-serve"], cwd=REPO, check=True
    )
    return os.path.join(REPO, "target", "release", "ferroflow-serve")


def serve_rows(path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = os.path.dirname(path)
    server = subprocess.Popen(
        [
            os.environ.get("FERROFLOW_SERVE_BINARY") or release_binary(),
            f"--rest_api_port={port}",
            "--rest_api_host=127.0.0.1",
            "--model_name=mlp",
            f"--model_base_path={base}",
            "--rest_api_num_threads=8",
        ],
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("ferroflow-serve did not start") from None
                time.sleep(0.1)
        body = json.dumps({"instances": np.ones((1, SIZES[0])).tolist()})
        connections = [http.client.HTTPConnection("127.0.0.1", port) for _ in range(8)]

        def predict(index):
            conn = connections[index]
            conn.request("POST", "/v1/models/mlp:predict", body=body)
            response = conn.getresponse()
            text = response.read()
            if response.status != 200:
                raise RuntimeError(text)

        return {clients: measure(predict, clients) for clients in (1, 8)}
    finally:
        os.kill(server.pid, signal.SIGTERM)
        server.wait()


def tensorflow_half():
    import tensorflow as tf

    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "mlp", "1")
        save_mlp(tf, path)
        print(json.dumps(python_rows(tf, path)))


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import ferroflow as tf

    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "mlp", "1")
        save_mlp(tf, path)
        served = serve_rows(path)
        ferroflow = python_rows(tf, path)
    theirs = run_tensorflow(__file__) or {}
    print(f"\nOne-row predictions on an MLP {SIZES}  [requests or calls per second, ms]")
    header = f"  {'case':<44}{'per s':>9}{'p50 ms':>9}{'p99 ms':>9}{'serve/x':>9}"
    print(header)
    for clients in (1, 8):
        serve_rate = served[clients][0]
        rows = [
            ("ferroflow-serve (HTTP, JSON)", served[clients]),
            ("ferroflow, loaded in Python", ferroflow[clients]),
            ("tensorflow, loaded in Python", theirs.get(str(clients))),
        ]
        for label, timing in rows:
            case = f"{label}, {clients} client(s)"
            if timing is None:
                print(f"  {case:<44}{'-':>9}")
                continue
            rate, p50, p99 = timing
            ratio = serve_rate / rate
            print(f"  {case:<44}{rate:>9.0f}{p50:>9.3f}{p99:>9.3f}{ratio:>8.2f}x")


if __name__ == "__main__":
    if "--tensorflow" in sys.argv:
        tensorflow_half()
    else:
        main()
