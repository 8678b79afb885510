"""Describes what a SavedModel directory holds: ops, attrs, calls, object graph, signatures.

Run with TensorFlow's interpreter (the repository's `.venv-tf`); it reads the protos with
TensorFlow's own `saved_model_pb2`, so it shows what TensorFlow wrote, not what ferroflow reads:

    .venv-tf/bin/python tools/tf_saved_model_ops.py SAVED_MODEL_DIR [...]
    .venv-tf/bin/python tools/tf_saved_model_ops.py --json SAVED_MODEL_DIR [...]   # as data
    .venv-tf/bin/python tools/tf_saved_model_ops.py --dump graph --dump while DIR  # and nodes

The report has, per directory: sizes and node counts; op types of the MetaGraph's GraphDef and
of the function library with counts and the attrs each carries (an example value); which
functions are called through call/control-flow ops; function-level and argument attrs; the
SavedObjectGraph's node kinds and concrete functions' captures; signature_defs; the saver_def;
the checkpoint keys of variables/ (and which object each belongs to); asset_file_defs.
"""

import argparse
import collections
import json
import os
import pathlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import saved_model_pb2, trackable_object_graph_pb2  # noqa: E402

# Ops whose attrs name the functions they run, by attr name.
CALL_OPS = {
    "StatefulPartitionedCall": ("f",),
    "PartitionedCall": ("f",),
    "If": ("then_branch", "else_branch"),
    "StatelessIf": ("then_branch", "else_branch"),
    "While": ("cond", "body"),
    "StatelessWhile": ("cond", "body"),
    "Case": ("branches",),
    "StatelessCase": ("branches",),
}
EXAMPLE_CHARS = 60


def dtype_name(enum):
    # DT_INVALID (0) is legal in a TensorInfo: the init op's "output" is an operation.
    return tf.dtypes.as_dtype(enum).name if enum else "DT_INVALID"


def brief(attr):
    """A short text of one AttrValue, enough to see its kind and a typical value."""
    kind = attr.WhichOneof("value")
    if kind == "type":
        text = dtype_name(attr.type)
    elif kind == "shape":
        text = str(tf.TensorShape(attr.shape))
    elif kind == "tensor":
        text = f"tensor<{dtype_name(attr.tensor.dtype)}{tf.TensorShape(attr.tensor.tensor_shape)}>"
    elif kind == "func":
        text = f"func {attr.func.name}"
    elif kind == "list":
        fields = [f.name for f, _ in attr.list.ListFields()]
        items = []
        for field in fields:
            for item in getattr(attr.list, field):
                if field == "type":
                    items.append(dtype_name(item))
                elif field == "shape":
                    items.append(str(tf.TensorShape(item)))
                elif field == "func":
                    items.append(item.name)
                else:
                    items.append(repr(item))
        text = f"list({'/'.join(fields) or 'empty'})[{', '.join(items)}]"
    elif kind == "s":
        text = repr(attr.s)
    else:
        text = repr(getattr(attr, kind)) if kind else "unset"
    return text if len(text) <= EXAMPLE_CHARS else text[: EXAMPLE_CHARS - 3] + "..."


class OpTable:
    """Counts op types and remembers, per op type, its attr names with one example value."""

    def __init__(self):
        self.counts = collections.Counter()
        self.attrs = collections.defaultdict(dict)

    def add(self, node):
        self.counts[node.op] += 1
        for name, value in node.attr.items():
            self.attrs[node.op].setdefault(name, brief(value))


def directory_size(path):
    return sum(p.stat().st_size for p in pathlib.Path(path).rglob("*") if p.is_file())


def read_saved_model(path):
    proto = saved_model_pb2.SavedModel()
    proto.ParseFromString((pathlib.Path(path) / "saved_model.pb").read_bytes())
    return proto


def function_calls(fdef_or_graph_nodes):
    """(op, attr, function name) for every function-valued attr of the nodes."""
    for node in fdef_or_graph_nodes:
        for name, value in node.attr.items():
            if value.HasField("func"):
                yield node.op, name, value.func.name
            elif value.HasField("list"):
                for func in value.list.func:
                    yield node.op, name, func.name


def object_graph_summary(graph):
    kinds = collections.Counter()
    identifiers = collections.Counter()
    for node in graph.nodes:
        kind = node.WhichOneof("kind")
        kinds[kind] += 1
        if kind == "user_object":
            identifiers[node.user_object.identifier] += 1
    return kinds, identifiers


def analyse(path):
    """Everything the report prints, as plain data (so --json can dump it)."""
    saved_model = read_saved_model(path)
    meta = saved_model.meta_graphs[0]
    graph, library = meta.graph_def, meta.graph_def.library
    outer = OpTable()
    for node in graph.node:
        outer.add(node)
    inner = OpTable()
    function_attrs = collections.Counter()
    arg_attrs = collections.Counter()
    node_count_in_functions = 0
    for fdef in library.function:
        function_attrs.update(fdef.attr.keys())
        for per_arg in fdef.arg_attr.values():
            arg_attrs.update(per_arg.attr.keys())
        for node in fdef.node_def:
            inner.add(node)
        node_count_in_functions += len(fdef.node_def)
    calls = collections.Counter()
    for node_op, attr, name in function_calls(graph.node):
        calls[(f"graph:{node_op}", attr, name)] += 1
    for fdef in library.function:
        for node_op, attr, name in function_calls(fdef.node_def):
            calls[(f"{fdef.signature.name}:{node_op}", attr, name)] += 1
    kinds, identifiers = object_graph_summary(meta.object_graph_def)
    concrete = {}
    for name, function in meta.object_graph_def.concrete_functions.items():
        concrete[name] = {"bound_inputs": list(function.bound_inputs)}
    bound_kinds = collections.Counter()
    for function in meta.object_graph_def.concrete_functions.values():
        for index in function.bound_inputs:
            bound_kinds[meta.object_graph_def.nodes[index].WhichOneof("kind")] += 1
    signatures = {}
    for key, sig in meta.signature_def.items():
        signatures[key] = {
            "method_name": sig.method_name,
            "inputs": {k: describe_tensor_info(v) for k, v in sig.inputs.items()},
            "outputs": {k: describe_tensor_info(v) for k, v in sig.outputs.items()},
        }
    variables_prefix = pathlib.Path(path) / "variables" / "variables"
    checkpoint, keys = [], {}
    if variables_prefix.with_suffix(".index").exists():
        checkpoint = [[k, list(s)] for k, s in tf.train.list_variables(str(variables_prefix))]
        keys = checkpoint_keys(variables_prefix)
    return {
        "path": str(path),
        "sizes": {
            "saved_model.pb": (pathlib.Path(path) / "saved_model.pb").stat().st_size,
            "variables/": directory_size(pathlib.Path(path) / "variables"),
            "assets/": directory_size(pathlib.Path(path) / "assets"),
        },
        "files": sorted(
            str(p.relative_to(path)) for p in pathlib.Path(path).rglob("*") if p.is_file()
        ),
        "saved_model_schema_version": saved_model.saved_model_schema_version,
        "meta_graphs": len(saved_model.meta_graphs),
        "tags": list(meta.meta_info_def.tags),
        "tensorflow_version": meta.meta_info_def.tensorflow_version,
        "stripped_default_attrs": meta.meta_info_def.stripped_default_attrs,
        "stripped_op_list": len(meta.meta_info_def.stripped_op_list.op),
        "graph_nodes": len(graph.node),
        "graph_versions": {"producer": graph.versions.producer},
        "functions": len(library.function),
        "function_nodes": node_count_in_functions,
        "function_names": sorted(f.signature.name for f in library.function),
        "gradients": {g.function_name: g.gradient_func for g in library.gradient},
        "registered_gradients": [
            [g.gradient_func, g.registered_op_type] for g in library.registered_gradients
        ],
        "graph_ops": dict(sorted(outer.counts.items())),
        "graph_op_attrs": {k: dict(sorted(v.items())) for k, v in sorted(outer.attrs.items())},
        "function_ops": dict(sorted(inner.counts.items())),
        "function_op_attrs": {k: dict(sorted(v.items())) for k, v in sorted(inner.attrs.items())},
        "function_attrs": dict(sorted(function_attrs.items())),
        "function_attr_examples": function_attr_examples(library),
        "arg_attrs": dict(sorted(arg_attrs.items())),
        "calls": sorted([*key, count] for key, count in calls.items()),
        "object_graph_kinds": dict(sorted(kinds.items())),
        "user_object_identifiers": dict(sorted(identifiers.items())),
        "concrete_functions": concrete,
        "bound_input_kinds": dict(sorted(bound_kinds.items())),
        "object_graph_nodes": [
            {**describe_object(node), "checkpoint_keys": keys.get(index, [])}
            for index, node in enumerate(meta.object_graph_def.nodes)
        ],
        "signatures": signatures,
        "saver_def": {
            "filename_tensor_name": meta.saver_def.filename_tensor_name,
            "save_tensor_name": meta.saver_def.save_tensor_name,
            "restore_op_name": meta.saver_def.restore_op_name,
            "version": meta.saver_def.version,
        },
        "checkpoint": checkpoint,
        "asset_file_defs": [[a.tensor_info.name, a.filename] for a in meta.asset_file_def],
    }


def checkpoint_keys(prefix):
    """Node id -> the checkpoint keys of its attributes.

    The checkpoint's TrackableObjectGraph numbers its nodes as the SavedObjectGraph does, so a
    SavedVariable's value is the tensor under its node's VARIABLE_VALUE key.
    """
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(
        tf.train.load_checkpoint(str(prefix)).get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    )
    return {
        index: [a.checkpoint_key for a in node.attributes]
        for index, node in enumerate(graph.nodes)
        if node.attributes
    }


def function_attr_examples(library):
    examples = {}
    for fdef in library.function:
        for name, value in fdef.attr.items():
            examples.setdefault(name, brief(value))
    return dict(sorted(examples.items()))


def describe_tensor_info(info):
    return {
        "name": info.name,
        "dtype": dtype_name(info.dtype),
        "shape": str(tf.TensorShape(info.tensor_shape)),
    }


def describe_object(node):
    """One SavedObject: its kind, a detail, and the names of its children."""
    kind = node.WhichOneof("kind")
    value = getattr(node, kind)
    if kind == "user_object":
        detail = value.identifier
    elif kind == "variable":
        shape = tf.TensorShape(value.shape)
        detail = f"{value.name} {dtype_name(value.dtype)}{shape} trainable={value.trainable}"
    elif kind == "function":
        detail = f"concrete={list(value.concrete_functions)}"
    elif kind == "bare_concrete_function":
        detail = f"{value.concrete_function_name} keywords={list(value.argument_keywords)}"
    elif kind == "constant":
        detail = value.operation
    elif kind == "captured_tensor":
        detail = f"{value.name} <- {value.concrete_function}"
    elif kind == "asset":
        detail = f"asset_file_def_index={value.asset_file_def_index}"
    else:
        detail = ""
    children = [c.local_name for c in node.children]
    return {"kind": kind, "detail": detail, "children": children}


def print_report(info):
    print(f"== {info['path']}")
    print(f"sizes: {info['sizes']}")
    print(f"files: {info['files']}")
    print(
        f"schema {info['saved_model_schema_version']}, meta_graphs {info['meta_graphs']}, "
        f"tags {info['tags']}, tf {info['tensorflow_version']}, producer "
        f"{info['graph_versions']['producer']}, stripped_default_attrs "
        f"{info['stripped_default_attrs']}, stripped_op_list {info['stripped_op_list']} ops"
    )
    print(
        f"graph nodes {info['graph_nodes']}; functions {info['functions']} "
        f"with {info['function_nodes']} nodes"
    )
    for where in ("graph", "function"):
        print(f"-- {where} ops (count: attrs)")
        for op, count in info[f"{where}_ops"].items():
            attrs = ", ".join(f"{k}={v}" for k, v in info[f"{where}_op_attrs"].get(op, {}).items())
            print(f"  {op} x{count}: {attrs}")
    print("-- functions:")
    for name in info["function_names"]:
        print(f"  {name}")
    print(f"-- function attrs: {info['function_attrs']}")
    print(f"   examples: {info['function_attr_examples']}")
    print(f"-- arg attrs: {info['arg_attrs']}")
    print(f"-- gradients: {info['gradients']} registered: {info['registered_gradients']}")
    print("-- calls (caller:op attr -> callee xN):")
    for caller, attr, callee, count in info["calls"]:
        print(f"  {caller} {attr} -> {callee} x{count}")
    print(f"-- object graph kinds: {info['object_graph_kinds']}")
    print(f"   user_object identifiers: {info['user_object_identifiers']}")
    print(f"   bound_inputs point at: {info['bound_input_kinds']}")
    for index, node in enumerate(info["object_graph_nodes"]):
        keys = f" checkpoint={node['checkpoint_keys']}" if node["checkpoint_keys"] else ""
        print(f"  [{index}] {node['kind']} {node['detail']} children={node['children']}{keys}")
    for name, function in info["concrete_functions"].items():
        print(f"  concrete {name}: bound_inputs={function['bound_inputs']}")
    print("-- signatures:")
    for key, sig in info["signatures"].items():
        print(f"  {key} ({sig['method_name']})")
        for side in ("inputs", "outputs"):
            for name, tensor in sig[side].items():
                print(f"    {side[:-1]} {name}: {tensor}")
    print(f"-- saver_def: {info['saver_def']}")
    print(f"-- asset_file_defs (tensor, filename): {info['asset_file_defs']}")
    print("-- checkpoint keys:")
    for key, shape in info["checkpoint"]:
        print(f"  {key} {shape}")


def node_line(node):
    attrs = ", ".join(
        f"{k}={brief(v)}" for k, v in sorted(node.attr.items()) if k != "_output_shapes"
    )
    return f"  {node.name} = {node.op}({', '.join(node.input)}) {{{attrs}}}"


def dump_nodes(graph, pattern):
    """Prints the graph's or matching functions' nodes, with signatures and returns."""
    if pattern == "graph":
        print("== graph nodes")
        for node in graph.node:
            print(node_line(node))
    for fdef in graph.library.function:
        if pattern not in fdef.signature.name:
            continue
        sig = fdef.signature
        args = ", ".join(f"{a.name}: {dtype_name(a.type)}" for a in sig.input_arg)
        outs = ", ".join(f"{a.name}: {dtype_name(a.type)}" for a in sig.output_arg)
        stateful = " stateful" if sig.is_stateful else ""
        print(f"== function {sig.name}({args}) -> ({outs}){stateful}")
        print(f"  control outputs: {list(sig.control_output)}")
        for node in fdef.node_def:
            print(node_line(node))
        print(f"  ret: {dict(fdef.ret)} control_ret: {dict(fdef.control_ret)}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=pathlib.Path)
    parser.add_argument("--json", action="store_true", help="print the data as JSON")
    parser.add_argument(
        "--dump",
        metavar="NAME",
        action="append",
        default=[],
        help="also print the nodes of the functions whose name contains NAME ('graph': the "
        "MetaGraph's own GraphDef); may be repeated",
    )
    args = parser.parse_args(argv)
    for path in args.paths:
        for pattern in args.dump:
            dump_nodes(read_saved_model(path).meta_graphs[0].graph_def, pattern)
    infos = [analyse(path) for path in args.paths]
    if args.json:
        print(json.dumps(infos, indent=1))
    else:
        for info in infos:
            print_report(info)


if __name__ == "__main__":
    main()
