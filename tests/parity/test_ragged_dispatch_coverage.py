"""Which TensorFlow APIs accept RaggedTensors, asked of TensorFlow itself: every public v2
function that TensorFlow's dispatch tables (`dispatch_for_api`, the unary / binary elementwise
and elementwise-assert dispatchers) serve for `RaggedTensor` or `DynamicRaggedShape` arguments
must dispatch on ferroflow's class of the same name. The test lists what ferroflow lacks; the
behaviour of each API is compared in the other `test_ragged*.py` files."""

import json

import pytest

from .harness import make_request

# TensorFlow v2 functions that are not registered themselves but call a registered v1 function
# with the same name (tf.shape calls the v1 shape, ...), so they accept RaggedTensors too.
DELEGATING = {
    "shape",
    "debugging.assert_type",
    "nn.embedding_lookup",
    "nn.embedding_lookup_sparse",
    "nn.safe_embedding_lookup_sparse",
}

# APIs whose ferroflow function takes RaggedTensors itself (no dispatch: its plain path maps the
# rows); test_ragged_dispatch.py compares them with TensorFlow.
NATIVE = {"strings.format", "strings.join"}

# APIs TensorFlow dispatches on RaggedTensor that ferroflow does not have at all (no dense
# version either): a missing API, not a missing dispatch. A name is exempt only while ferroflow
# lacks it; once the API exists it must dispatch.
ABSENT = {
    "image.adjust_brightness",
    "image.adjust_gamma",
    "image.convert_image_dtype",
    "image.random_brightness",
    "image.resize",
    "image.stateless_random_brightness",
    "io.decode_base64",
    "io.decode_compressed",
    "io.encode_base64",
    "math.bessel_i0",
    "math.bessel_i0e",
    "math.bessel_i1",
    "math.bessel_i1e",
    "math.bincount",
    "math.digamma",
    "math.erfc",
    "math.erfcinv",
    "math.erfinv",
    "math.lgamma",
    "math.log_sigmoid",
    "math.multiply_no_nan",
    "math.ndtri",
    "math.nextafter",
    "math.reciprocal_no_nan",
    "math.rint",
    "math.softmax",
    "math.softplus",
    "math.softsign",
    "math.special.bessel_i0",
    "math.special.bessel_i0e",
    "math.special.bessel_i1",
    "math.special.bessel_i1e",
    "math.special.bessel_j0",
    "math.special.bessel_j1",
    "math.special.bessel_k0",
    "math.special.bessel_k0e",
    "math.special.bessel_k1",
    "math.special.bessel_k1e",
    "math.special.bessel_y0",
    "math.special.bessel_y1",
    "math.special.dawsn",
    "math.special.expint",
    "math.special.fresnel_cos",
    "math.special.fresnel_sin",
    "math.special.spence",
    "math.xdivy",
    "math.xlog1py",
    "math.xlogy",
    "math.zeta",
    "nn.embedding_lookup_sparse",
    "nn.experimental.stateless_dropout",
    "nn.safe_embedding_lookup_sparse",
    "nn.silu",
    "nn.softsign",
    "nn.swish",
}


def ragged_dispatch_table(tf, delegating):
    """TensorFlow's side: JSON rows [public name, kind, [dispatching classes]] for every public
    v2 function with a RaggedTensor or DynamicRaggedShape dispatch target."""
    import json
    import types

    from tensorflow.python.ops.ragged import dynamic_ragged_shape, ragged_tensor
    from tensorflow.python.util import dispatch, tf_decorator

    def key(function):
        return id(tf_decorator.unwrap(function)[1])

    kinds = {}
    for kind, apis in (
        ("unary", dispatch.unary_elementwise_apis()),
        ("binary", dispatch.binary_elementwise_apis()),
        ("binary_assert", dispatch._BINARY_ELEMENTWISE_ASSERT_APIS),
    ):
        for api in apis:
            kinds[key(api)] = kind
    classes = {}
    for cls in (ragged_tensor.RaggedTensor, dynamic_ragged_shape.DynamicRaggedShape):
        for api in dispatch.type_based_dispatch_signatures_for(cls):
            classes.setdefault(key(api), set()).add(cls.__name__)

    def walk(module, prefix, out, seen):
        if id(module) in seen:
            return
        seen.add(id(module))
        for name in dir(module):
            if name.startswith("_"):
                continue
            full = prefix + name
            try:
                value = getattr(module, name)
                if isinstance(value, types.ModuleType):
                    # Public API modules only (tensorflow._api.v2.*), not the internal modules
                    # some of them hold as attributes.
                    public = getattr(value, "__name__", "").startswith("tensorflow._api.v2.")
                    if public and "keras" not in full and not full.startswith("compat"):
                        walk(value, full + ".", out, seen)
                elif callable(value):
                    out.setdefault(full, value)
            except (ImportError, AttributeError):
                continue

    public, v1 = {}, {}
    walk(tf, "", public, set())
    walk(tf.compat.v1, "", v1, set())
    rows = []
    for name, api in public.items():
        found = classes.get(key(api))
        if found is None and name in delegating and name in v1:
            found = classes.get(key(v1[name]))
        if found:
            rows.append([name, kinds.get(key(api), "api"), sorted(found)])
    return json.dumps(sorted(rows))


@pytest.fixture(scope="module")
def tensorflow_table(tf_oracle):
    request = make_request(ragged_dispatch_table, (sorted(DELEGATING),))
    tag, *rest = tf_oracle.run(request)
    assert tag == "py", rest
    return json.loads(rest[-1])


def _resolve(module, name):
    for part in name.split("."):
        module = getattr(module, part, None)
        if module is None:
            return None
    return module


def _dispatches(api, cls, kind):
    """Whether ferroflow's `api` serves `cls` through its dispatch tables."""
    from ferroflow import _dispatch

    served = [types for types, _, _ in _dispatch._API.get(api, ())]
    found_kind = _dispatch._KIND.get(api)
    if found_kind is not None:
        served += [types for types, _, _ in _dispatch._ELEMENTWISE[found_kind]]
        if kind != "api" and found_kind != kind:
            return False
    return any(issubclass(cls, types) for types in served)


def _missing(table):
    import ferroflow
    from ferroflow.ragged.dynamic_ragged_shape import DynamicRaggedShape

    ours = {"RaggedTensor": ferroflow.RaggedTensor, "DynamicRaggedShape": DynamicRaggedShape}
    absent, undispatched = [], []
    for name, kind, classes in table:
        if name in NATIVE:
            continue
        api = _resolve(ferroflow, name)
        if api is None:
            absent.append(name)
            continue
        for cls in classes:
            if not _dispatches(api, ours[cls], kind):
                undispatched.append(f"{name} ({kind}, {cls})")
    return absent, undispatched


def test_tensorflow_lists_ragged_apis(tensorflow_table):
    names = {name for name, _, _ in tensorflow_table}
    # A few TensorFlow is known to dispatch, as a check on the walk itself.
    for name in ("concat", "math.reduce_sum", "linalg.matmul", "strings.join", "ones", "shape"):
        assert name in names
    assert DELEGATING <= names, sorted(DELEGATING - names)
    assert len(names) > 200


# APIs whose ragged handlers are not written yet (listed in the note; a ragged call of
# one raises instead of answering). Empty since issue 19's last five landed.
NOT_YET: set[str] = set()


def test_every_ragged_api_dispatches(tensorflow_table):
    absent, undispatched = _missing(tensorflow_table)
    assert NOT_YET <= set(undispatched), sorted(NOT_YET - set(undispatched))
    undispatched = [u for u in undispatched if u not in NOT_YET]
    assert not undispatched, "ferroflow does not dispatch on:\n" + "\n".join(undispatched)
    unexpected = sorted(set(absent) - ABSENT)
    assert not unexpected, f"ferroflow lacks these APIs (not in ABSENT): {unexpected}"


def test_exemptions_are_tensorflows(tensorflow_table):
    """ABSENT and NATIVE name only APIs TensorFlow dispatches on ragged values. (An ABSENT API
    that ferroflow gains must dispatch at once: test_every_ragged_api_dispatches exempts a
    name only while ferroflow lacks it.)"""
    names = {name for name, _, _ in tensorflow_table}
    assert ABSENT | NATIVE <= names, sorted((ABSENT | NATIVE) - names)
