"""Writes src/saved_model/to_tensorflow/op_signatures.tsv: the argument and attribute names of
every TensorFlow op the SavedModel exporter may emit, read from TensorFlow's own op registry.

Run with the TensorFlow environment's Python:
    .venv-tf/bin/python tools/tf_op_signatures.py OP_NAMES_FILE

OP_NAMES_FILE lists ferroflow's primitives' TensorFlow names (one per line; `_core.op_registry`);
the ops the exporter builds around them (calls, control flow, variables, savers) are added here.
Each line: name, inputs, outputs, required attributes, stateful. An argument is `name:kind`
where kind is `T` (its type attribute), `=N` (a fixed DataType enum), `T*N` (N of type T)
or `[Tin]` (a type list); required attributes are those without a default, as `name:type`.
"""

import sys

from tensorflow.python.framework import op_def_registry

EXTRAS = """Const Identity IdentityN NoOp Placeholder ReadVariableOp AssignVariableOp VarHandleOp
If StatelessIf Case StatelessCase While StatelessWhile StatefulPartitionedCall PartitionedCall
StridedSlice Reshape Transpose Sum Mean Prod Max Min All Any Pad PadV2 MirrorPad Tile GatherV2
GatherNd ScatterNd Fill Shape Split SplitV Pack ExpandDims Squeeze Range SaveV2 RestoreV2
MergeV2Checkpoints StringJoin ShardedFilename StaticRegexFullMatch Select SelectV2 Relu Relu6
Elu Selu Softplus LeakyRelu Gelu MaxPool AvgPool FusedBatchNormV3 Softmax LogSoftmax MatMul
BatchMatMulV2 Conv2D DepthwiseConv2dNative BiasAdd Cast ArgMax ArgMin Cumsum Cumprod
BroadcastTo ConcatV2 EnsureShape Assert PrintV2 StringFormat Where TopKV2 ZerosLike OnesLike
AddN DisableCopyOnRead Erf Sqrt Square Rsqrt Tanh Sigmoid Exp Log Neg Abs Minimum Maximum
AddV2 Sub Mul RealDiv FloorDiv FloorMod Pow SquaredDifference Equal NotEqual Less LessEqual
Greater GreaterEqual LogicalAnd LogicalOr LogicalNot Softsign SparseSoftmaxCrossEntropyWithLogits
SoftmaxCrossEntropyWithLogits Unique""".split()


def describe_arg(arg):
    if arg.type_list_attr:
        kind = f"[{arg.type_list_attr}]"
    elif arg.number_attr:
        kind = f"{arg.type_attr or '=' + str(arg.type)}*{arg.number_attr}"
    elif arg.type_attr:
        kind = arg.type_attr
    else:
        kind = f"={arg.type}"
    return f"{arg.name}:{kind}"


def main(names_file):
    with open(names_file) as f:
        names = {line.strip() for line in f if line.strip()} | set(EXTRAS)
    lines = []
    for name in sorted(names):
        op = op_def_registry.get(name)
        if op is None:
            continue  # ferroflow-only names (EagerPyFunc's kin) have no TensorFlow op
        required = [f"{a.name}:{a.type}" for a in op.attr if not a.HasField("default_value")]
        lines.append(
            "\t".join(
                [
                    op.name,
                    ",".join(describe_arg(a) for a in op.input_arg),
                    ",".join(describe_arg(a) for a in op.output_arg),
                    ",".join(required),
                    "1" if op.is_stateful else "0",
                ]
            )
        )
    out = "src/saved_model/to_tensorflow/op_signatures.tsv"
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} ops written to {out}")


if __name__ == "__main__":
    main(sys.argv[1])
