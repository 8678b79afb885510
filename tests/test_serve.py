"""ferroflow-serve: TensorFlow Serving's REST API over SavedModels that ferroflow saved, and
over one that TensorFlow 2.21 wrote (a Keras export checked in as a fixture).

Each server is the real binary on a free loopback port, sent real HTTP requests and stopped by
its process id. The expected JSON is TensorFlow Serving's documented format (REST API guide,
json_tensor.cc): TensorFlow Serving itself cannot run here.
"""

import concurrent.futures
import http.client
import json
import os
import shlex
import signal
import socket
import subprocess
import time

import ferroflow as tf
import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cargo_built_binary(name):
    """The crate's binary `name`, built with the arguments `make rust-test` uses
    (tools/cargo_test_args), so that the crate compiled there is reused."""
    with open(os.path.join(REPO, "tools", "cargo_test_args")) as f:
        args = shlex.split(f.read())
    cargo = os.environ.get("CARGO", "cargo")
    command = [cargo, "build", "--quiet", "--message-format=json", *args, "--bin", name]
    built = subprocess.run(command, cwd=REPO, check=True, capture_output=True, text=True)
    messages = [json.loads(line) for line in built.stdout.splitlines()]
    paths = [
        m["executable"]
        for m in messages
        if m.get("reason") == "compiler-artifact" and m["target"]["name"] == name
    ]
    assert paths and paths[-1], f"cargo built no binary {name}: {built.stdout[-2000:]}"
    return paths[-1]


@pytest.fixture(scope="module")
def binary():
    return cargo_built_binary("ferroflow-serve")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The binary serving on 127.0.0.1, with helpers for requests; stopped by its pid."""

    def __init__(self, binary, *flags, log_path):
        self.port = free_port()
        self.log = open(log_path, "w")
        self.process = subprocess.Popen(
            [binary, f"--rest_api_port={self.port}", "--rest_api_host=127.0.0.1", *flags],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 120
        while True:
            assert self.process.poll() is None, open(log_path).read()
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start listening"
                time.sleep(0.1)

    def request(self, method, path, body=None, connection=None):
        """(status, parsed JSON body)."""
        conn = connection or http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        data = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        text = response.read().decode()
        if connection is None:
            conn.close()
        assert response.getheader("Content-Type") == "application/json"
        return response.status, json.loads(text)

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, body):
        return self.request("POST", path, body)

    def stop(self):
        os.kill(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=30)
        self.log.close()


def mlp(seed):
    keras = tf.keras
    tf.keras.utils.set_random_seed(seed)
    model = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)]
    )
    return model


def save_mlp(model, path):
    """An MLP as Keras exports one: `serving_default` takes `features` [None, 4] float32."""
    serve = tf.function(
        lambda features: model(features),
        input_signature=[tf.TensorSpec([None, 4], tf.float32, name="features")],
    )
    tf.saved_model.save(model, path, signatures=serve)


class Multi(tf.Module):
    """Several named inputs and outputs, strings, and a second signature."""

    @tf.function(
        input_signature=[
            tf.TensorSpec([None, 2], tf.float32, name="a"),
            tf.TensorSpec([None], tf.int64, name="b"),
        ]
    )
    def combine(self, a, b):
        return {"total": tf.reduce_sum(a, axis=1) + tf.cast(b, tf.float32), "doubled": b * 2}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="text")])
    def strings(self, text):
        return {"length": tf.strings.length(text), "echo_bytes": tf.identity(text)}


class Examples(tf.Module):
    """Signatures that take serialized tf.Example protos: one classifies, one regresses."""

    features = {"x": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.0, 0.0])}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="inputs")])
    def classify(self, inputs):
        s = tf.reduce_sum(tf.io.parse_example(inputs, self.features)["x"], axis=1)
        positive = s > 0
        classes = tf.stack([tf.where(positive, "pos", "neg"), tf.where(positive, "neg", "pos")], 1)
        return {"classes": classes, "scores": tf.stack([tf.abs(s), -tf.abs(s)], axis=1)}

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="inputs")])
    def regress(self, inputs):
        x = tf.io.parse_example(inputs, self.features)["x"]
        return {"outputs": x[:, 0] * 10.0 + x[:, 1]}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """Three models under one root: mlp (versions 1 and 2), multi and examples (version 1)."""
    root = tmp_path_factory.mktemp("models")
    mlps = {1: mlp(1), 2: mlp(2)}
    for version, model in mlps.items():
        save_mlp(model, root / "mlp" / str(version))
    multi = Multi()
    tf.saved_model.save(
        multi,
        root / "multi" / "1",
        signatures={"serving_default": multi.combine, "strings": multi.strings},
    )
    ex = Examples()
    tf.saved_model.save(
        ex, root / "examples" / "1", signatures={"classify": ex.classify, "regress": ex.regress}
    )
    return root, mlps


@pytest.fixture(scope="module")
def server(binary, models, tmp_path_factory):
    root, _ = models
    config = tmp_path_factory.mktemp("config") / "models.config"
    config.write_text(
        "model_config_list {\n"
        f'  config {{ name: "mlp" base_path: "{root / "mlp"}" model_platform: "tensorflow"\n'
        "    model_version_policy { all {} } }\n"
        f'  config {{ name: "multi" base_path: "{root / "multi"}" }}\n'
        f'  config {{ name: "examples" base_path: "{root / "examples"}" }}\n'
        "}\n"
    )
    s = Server(
        binary,
        f"--model_config_file={config}",
        "--rest_api_num_threads=8",
        "--port=8500",
        log_path=config.parent / "server.log",
    )
    yield s
    s.stop()


ROWS = [[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.25, 2.0], [0.0, 0.0, 0.0, 0.0]]


def expected_mlp(model, rows=ROWS):
    return model(tf.constant(rows, tf.float32)).numpy()


def test_predict_rows_and_columns(server, models):
    _, mlps = models
    want = expected_mlp(mlps[2])
    status, body = server.post("/v1/models/mlp:predict", {"instances": ROWS})
    assert status == 200 and list(body) == ["predictions"]
    np.testing.assert_allclose(body["predictions"], want, rtol=1e-5, atol=1e-6)
    status, body = server.post("/v1/models/mlp:predict", {"inputs": {"features": ROWS}})
    assert status == 200 and list(body) == ["outputs"]
    np.testing.assert_allclose(body["outputs"], want, rtol=1e-5, atol=1e-6)
    # One input: the columnar value may be given bare, and the signature named.
    body = server.post(
        "/v1/models/mlp:predict", {"signature_name": "serving_default", "inputs": ROWS}
    )[1]
    np.testing.assert_allclose(body["outputs"], want, rtol=1e-5, atol=1e-6)


def test_named_inputs_and_outputs(server):
    rows = {"instances": [{"a": [1.0, 2.0], "b": 3}, {"a": [0.5, 0.25], "b": -1}]}
    status, body = server.post("/v1/models/multi:predict", rows)
    assert status == 200
    # Several outputs: one object per row, keyed by output name; floats keep a ".0".
    assert body == {"predictions": [{"doubled": 6, "total": 6.0}, {"doubled": -2, "total": -0.25}]}
    columns = {"inputs": {"a": [[1.0, 2.0], [0.5, 0.25]], "b": [3, -1]}}
    status, body = server.post("/v1/models/multi/versions/1:predict", columns)
    assert status == 200 and body == {"outputs": {"doubled": [6, -2], "total": [6.0, -0.25]}}


def test_signature_names_strings_and_base64(server):
    request = {"signature_name": "strings", "instances": ["héllo", {"b64": "AP8="}]}
    status, body = server.post("/v1/models/multi:predict", request)
    assert status == 200
    # Outputs named *_bytes come back base64-encoded, as TensorFlow Serving writes them.
    assert body == {
        "predictions": [
            {"echo_bytes": {"b64": "aMOpbGxv"}, "length": 6},
            {"echo_bytes": {"b64": "AP8="}, "length": 2},
        ]
    }
    status, body = server.post(
        "/v1/models/multi:predict", {"signature_name": "nope", "instances": [1]}
    )
    assert status == 400
    assert body == {"error": 'Serving signature name: "nope" not found in signature def'}


def test_versions_are_addressed_by_number(server, models):
    _, mlps = models
    for version in (1, 2):
        status, body = server.post(
            f"/v1/models/mlp/versions/{version}:predict", {"instances": ROWS}
        )
        assert status == 200
        want = expected_mlp(mlps[version])
        np.testing.assert_allclose(body["predictions"], want, rtol=1e-5, atol=1e-6)
    status, body = server.post("/v1/models/mlp/versions/7:predict", {"instances": ROWS})
    assert status == 404
    assert body == {"error": "Servable not found for request: Specific(mlp, 7)"}


def test_model_status(server):
    status, body = server.get("/v1/models/mlp")
    assert status == 200
    ok = {"error_code": "OK", "error_message": ""}
    assert body == {
        "model_version_status": [
            {"version": "2", "state": "AVAILABLE", "status": ok},
            {"version": "1", "state": "AVAILABLE", "status": ok},
        ]
    }
    status, body = server.get("/v1/models/mlp/versions/1")
    assert status == 200 and body["model_version_status"] == [
        {"version": "1", "state": "AVAILABLE", "status": ok}
    ]
    assert server.get("/v1/models/nope") == (
        404,
        {"error": "Could not find any versions of model nope"},
    )
    assert server.get("/v1/models") == (400, {"error": "Missing model name in request."})


def test_metadata_lists_signatures(server):
    status, body = server.get("/v1/models/multi/metadata")
    assert status == 200
    assert body["model_spec"] == {"name": "multi", "signature_name": "", "version": "1"}
    signatures = body["metadata"]["signature_def"]["signature_def"]
    assert sorted(signatures) == ["serving_default", "strings"]
    default = signatures["serving_default"]
    assert default["method_name"] == "tensorflow/serving/predict"
    assert default["inputs"]["a"] == {
        "dtype": "DT_FLOAT",
        "tensor_shape": {
            "dim": [{"size": "-1", "name": ""}, {"size": "2", "name": ""}],
            "unknown_rank": False,
        },
        "name": "serving_default_a:0",
    }
    assert default["inputs"]["b"]["dtype"] == "DT_INT64"
    assert {k: v["dtype"] for k, v in default["outputs"].items()} == {
        "doubled": "DT_INT64",
        "total": "DT_FLOAT",
    }
    assert signatures["strings"]["inputs"]["text"]["dtype"] == "DT_STRING"
    status, body = server.get("/v1/models/mlp/versions/1/metadata")
    assert status == 200 and body["model_spec"]["version"] == "1"
    assert server.get("/v1/models/nope/metadata")[0] == 404


def test_classify_and_regress(server):
    examples = {"examples": [{"x": [1.0, 2.0]}, {"x": [-3.0, 0.5]}]}
    status, body = server.post(
        "/v1/models/examples:classify", examples | {"signature_name": "classify"}
    )
    assert status == 200
    assert body == {"results": [[["pos", 3.0], ["neg", -3.0]], [["neg", 2.5], ["pos", -2.5]]]}
    status, body = server.post(
        "/v1/models/examples:regress", examples | {"signature_name": "regress"}
    )
    assert status == 200 and body == {"results": [12.0, -29.5]}
    # The context is merged into each example; an example's own feature wins.
    with_context = {
        "signature_name": "regress",
        "context": {"x": [1.0, 1.0]},
        "examples": [{}, {"x": [2.0, 0.0]}],
    }
    assert server.post("/v1/models/examples:regress", with_context) == (
        200,
        {"results": [11.0, 20.0]},
    )
    # A signature without examples in and classes/scores out cannot classify.
    status, body = server.post("/v1/models/mlp:classify", examples)
    assert status == 400 and "cannot classify" in body["error"]
    status, body = server.post("/v1/models/examples:regress", {"signature_name": "regress"})
    assert status == 400 and "key 'examples' is expected" in body["error"]


@pytest.mark.parametrize(
    "path, body, status, message",
    [
        ("/v1/models/mlp:predict", "{not json", 400, "JSON Parse error"),
        ("/v1/models/mlp:predict", "", 400, "JSON Parse error: The document is empty"),
        ("/v1/models/mlp:predict", "[1, 2]", 400, "Is not object"),
        ("/v1/models/mlp:predict", {"rows": []}, 400, "Missing 'inputs' or 'instances' key"),
        ("/v1/models/mlp:predict", {"instances": []}, 400, "No values in 'instances' array"),
        (
            "/v1/models/mlp:predict",
            {"instances": ROWS, "inputs": ROWS},
            400,
            "expecting only one of 'inputs' or 'instances'",
        ),
        # Wrong shapes: a row of 3 values where the signature takes 4; ragged rows.
        ("/v1/models/mlp:predict", {"instances": [[1.0, 2.0, 3.0]]}, 400, "takes"),
        (
            "/v1/models/mlp:predict",
            {"instances": [[1.0, 2.0, 3.0, 4.0], [1.0]]},
            400,
            "Expecting tensor size: 4 but got: 1",
        ),
        ("/v1/models/mlp:predict", {"inputs": [[[1.0, 2.0, 3.0, 4.0]]]}, 400, "takes"),
        (
            "/v1/models/mlp:predict",
            {"instances": [["a", "b", "c", "d"]]},
            400,
            'JSON Value: "a" Type: String is not of expected type: float',
        ),
        (
            "/v1/models/multi:predict",
            {"instances": [{"a": [1.0, 2.0]}]},
            400,
            "keys must be equal to: a,b",
        ),
        (
            "/v1/models/multi:predict",
            {"instances": [{"a": [1.0, 2.0], "b": 1.5}]},
            400,
            "is not of expected type: int64",
        ),
        (
            "/v1/models/nope:predict",
            {"instances": ROWS},
            404,
            "Servable not found for request: Latest(nope)",
        ),
        ("/v1/models/mlp:explain", {"instances": ROWS}, 400, "Malformed request: POST"),
        # NaN is a number to TensorFlow Serving's parser: not an int64.
        (
            "/v1/models/multi:predict",
            '{"instances": [{"a": [1.0, 2.0], "b": NaN}]}',
            400,
            "JSON Value: NaN Type: Number is not of expected type: int64",
        ),
        ("/v1/models/mlp:predict", '{"instances": [[NaNa, 1, 2, 3]]}', 400, "JSON Parse error"),
        ("/v2/other", {}, 404, "Malformed request"),
    ],
)
def test_bad_requests_get_error_bodies(server, path, body, status, message):
    got_status, got = server.post(path, body)
    assert got_status == status and list(got) == ["error"]
    assert message in got["error"]
    # The server is still up and serving.
    assert server.post("/v1/models/mlp:predict", {"instances": ROWS[:1]})[0] == 200


def test_nan_and_infinities_in_requests_are_numbers(server, models):
    """TensorFlow Serving reads NaN, Infinity and -Infinity (and Inf) as floats and writes
    non-finite outputs the same way."""
    _, mlps = models
    body = '{"instances": [[NaN, 1.0, 2.0, 3.0], [Infinity, -Inf, 0.5, 1e3], [1, 2, 3, 4]]}'
    rows = [[np.nan, 1.0, 2.0, 3.0], [np.inf, -np.inf, 0.5, 1e3], [1, 2, 3, 4]]
    status, got = server.post("/v1/models/mlp:predict", body)
    assert status == 200, got
    predictions = np.asarray(got["predictions"])
    assert np.isnan(predictions[0]).any()
    np.testing.assert_allclose(predictions, expected_mlp(mlps[2], rows), 1e-5, equal_nan=True)


def test_concurrent_requests_all_succeed(server, models):
    _, mlps = models
    rng = np.random.default_rng(0)
    batches = [rng.normal(size=(1 + k % 4, 4)).astype(np.float32).tolist() for k in range(1000)]

    def client(indices):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        results = []
        for i in indices:
            results.append(
                (
                    i,
                    server.request(
                        "POST", "/v1/models/mlp:predict", {"instances": batches[i]}, conn
                    ),
                )
            )
        conn.close()
        return results

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        shares = [range(k, 1000, 8) for k in range(8)]
        answers = [a for part in pool.map(client, shares) for a in part]
    assert len(answers) == 1000
    every_row = expected_mlp(mlps[2], [row for batch in batches for row in batch])
    starts = np.cumsum([0] + [len(b) for b in batches])
    for i, (status, body) in answers:
        assert status == 200, body
        want = every_row[starts[i] : starts[i + 1]]
        np.testing.assert_allclose(body["predictions"], want, rtol=1e-5, atol=1e-5)
    assert server.process.poll() is None


def test_a_new_version_is_served_without_a_restart(binary, tmp_path):
    base = tmp_path / "model"
    first, second = mlp(1), mlp(2)
    save_mlp(first, base / "1")
    s = Server(
        binary,
        "--model_name=m",
        f"--model_base_path={base}",
        "--file_system_poll_wait_seconds=1",
        log_path=tmp_path / "server.log",
    )
    try:
        body = s.post("/v1/models/m:predict", {"instances": ROWS})[1]
        np.testing.assert_allclose(body["predictions"], expected_mlp(first), rtol=1e-5, atol=1e-6)
        # Written elsewhere and moved in whole, as a trainer publishes a version.
        save_mlp(second, tmp_path / "staging")
        os.rename(tmp_path / "staging", base / "2")
        deadline = time.monotonic() + 60
        while s.get("/v1/models/m/versions/2")[0] != 200:
            assert time.monotonic() < deadline, open(tmp_path / "server.log").read()
            time.sleep(0.2)
        body = s.post("/v1/models/m:predict", {"instances": ROWS})[1]
        np.testing.assert_allclose(body["predictions"], expected_mlp(second), rtol=1e-5, atol=1e-6)
        # The default policy serves the latest version only: version 1 has been unloaded.
        assert s.get("/v1/models/m")[1]["model_version_status"] == [
            {
                "version": "2",
                "state": "AVAILABLE",
                "status": {"error_code": "OK", "error_message": ""},
            },
            {"version": "1", "state": "END", "status": {"error_code": "OK", "error_message": ""}},
        ]
        assert s.post("/v1/models/m/versions/1:predict", {"instances": ROWS})[0] == 404
    finally:
        s.stop()


def test_a_damaged_new_version_leaves_the_served_one_available(binary, tmp_path):
    base = tmp_path / "model"
    first = mlp(1)
    save_mlp(first, base / "1")
    s = Server(
        binary,
        "--model_name=m",
        f"--model_base_path={base}",
        "--file_system_poll_wait_seconds=1",
        log_path=tmp_path / "server.log",
    )
    try:
        (base / "2").mkdir()
        (base / "2" / "saved_model.json").write_text("{ not a model")
        deadline = time.monotonic() + 60
        while "failed" not in open(tmp_path / "server.log").read():
            assert time.monotonic() < deadline, open(tmp_path / "server.log").read()
            time.sleep(0.2)
        status, body = s.post("/v1/models/m:predict", {"instances": ROWS})
        assert status == 200, body
        np.testing.assert_allclose(body["predictions"], expected_mlp(first), rtol=1e-5, atol=1e-6)
    finally:
        s.stop()


def test_a_tensorflow_written_model_is_served_with_tensorflows_outputs(binary, tmp_path):
    import shutil

    fixtures = os.path.join(REPO, "tests", "fixtures", "tf_saved_model")
    shutil.copytree(os.path.join(fixtures, "keras_mlp"), tmp_path / "model" / "1")
    with open(os.path.join(fixtures, "keras_mlp_reference.json")) as f:
        reference = json.load(f)
    rows = np.reshape(reference["input:features"]["values"], reference["input:features"]["shape"])
    want = np.reshape(reference["output:output_0"]["values"], reference["output:output_0"]["shape"])
    s = Server(
        binary,
        "--model_name=keras",
        f"--model_base_path={tmp_path / 'model'}",
        log_path=tmp_path / "server.log",
    )
    try:
        status, body = s.post("/v1/models/keras:predict", {"instances": rows.tolist()})
        assert status == 200, body
        np.testing.assert_allclose(body["predictions"], want, rtol=1e-5, atol=1e-6)
        columns = {"inputs": {"features": rows.tolist()}, "signature_name": "serve"}
        status, body = s.post("/v1/models/keras:predict", columns)
        assert status == 200, body
        np.testing.assert_allclose(body["outputs"], want, rtol=1e-5, atol=1e-6)
        signature = s.get("/v1/models/keras/metadata")[1]["metadata"]["signature_def"]
        inputs = signature["signature_def"]["serving_default"]["inputs"]["features"]
        assert inputs["dtype"] == "DT_FLOAT"
        assert [d["size"] for d in inputs["tensor_shape"]["dim"]] == ["-1", "8"]
        # Tensor names and method as TensorFlow's SignatureDef gives them.
        assert inputs["name"] == "serving_default_features:0"
        outputs = signature["signature_def"]["serving_default"]["outputs"]["output_0"]
        assert outputs["name"] == "StatefulPartitionedCall_1:0"
        assert signature["signature_def"]["serving_default"]["method_name"] == (
            "tensorflow/serving/predict"
        )
        status, body = s.post("/v1/models/keras:predict", {"instances": [[1.0, 2.0]]})
        assert status == 400 and "error" in body
        assert s.process.poll() is None
    finally:
        s.stop()


def test_a_tensorflow_model_with_lookup_tables_is_served(binary, tmp_path):
    """Keras StringLookup/IntegerLookup: hash tables the server makes at load, string inputs."""
    import shutil

    fixtures = os.path.join(REPO, "tests", "fixtures", "tf_saved_model")
    name = "keras_string_and_integer_lookup"
    shutil.copytree(os.path.join(fixtures, name), tmp_path / "model" / "3")
    with open(os.path.join(fixtures, f"{name}_reference.json")) as f:
        reference = json.load(f)

    def array(key):
        return np.reshape(reference[key]["values"], reference[key]["shape"])

    columns = {"words": array("input:words").tolist(), "codes": array("input:codes").tolist()}
    s = Server(
        binary,
        "--model_name=lookup",
        f"--model_base_path={tmp_path / 'model'}",
        log_path=tmp_path / "server.log",
    )
    try:
        status, body = s.post("/v1/models/lookup:predict", {"inputs": columns})
        assert status == 200, body
        np.testing.assert_allclose(body["outputs"], array("output:output_0"), rtol=1e-5, atol=1e-6)
    finally:
        s.stop()


def test_flag_and_config_mistakes_stop_the_server_with_a_message(binary, tmp_path):
    def run(*flags):
        return subprocess.run([binary, *flags], capture_output=True, text=True, timeout=60)

    missing = run("--model_base_path=/nowhere")
    assert missing.returncode == 2 and "--rest_api_port is required" in missing.stderr
    config = tmp_path / "bad.config"
    config.write_text('model_config_list { config { name: "a" base_pth: "/x" } }')
    bad = run("--rest_api_port=1", f"--model_config_file={config}")
    assert bad.returncode == 1
    assert (
        'message type "tensorflow.serving.ModelConfig" has no field named "base_pth"' in bad.stderr
    )
    assert run("--help").returncode == 0
