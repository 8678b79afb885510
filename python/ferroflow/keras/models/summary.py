"""`Model.summary()`: Keras 3's table of layers, output shapes and parameter counts. Keras draws
it with `rich`; this draws the same box table in plain text, with rich's column sizing, word
wrapping and ellipses, so the printed text is the same."""

import math
import os
import re
import shutil
import sys

from ferroflow import nest

__all__ = ["print_summary"]

_BITS_PER_DTYPE = {
    **{f"float{i}": i for i in (16, 32, 64)},
    **{f"int{i}": i for i in (8, 16, 32, 64)},
    **{f"uint{i}": i for i in (8, 16, 32, 64)},
    "bfloat16": 16,
    "bool": 1,
    "complex64": 64,
    "complex128": 128,
}

# rich's HEAVY_HEAD box: (left, fill, divider, right) for each horizontal rule.
_TOP = ("┏", "━", "┳", "┓")
_HEAD_RULE = ("┡", "━", "╇", "┩")
_ROW_RULE = ("├", "─", "┼", "┤")
_BOTTOM = ("└", "─", "┴", "┘")
_HEAD_EDGE = "┃"
_ROW_EDGE = "│"

_WORD = re.compile(r"\s*\S+\s*")
_TRAILING_SPACE = re.compile(r"\s+$")


# --- counting -------------------------------------------------------------------------------


def _unique(weights):
    seen, unique = set(), []
    for w in weights:
        if id(w) not in seen:
            seen.add(id(w))
            unique.append(w)
    return unique


def _count_params(weights):
    return int(sum(math.prod(tuple(w.shape)) for w in weights))


def _memory_size(weights):
    bits = 0
    for w in _unique(weights):
        name = getattr(w.dtype, "name", str(w.dtype))
        if name not in _BITS_PER_DTYPE:
            raise ValueError(f"Invalid dtype: {name}")
        bits += math.prod(tuple(w.shape)) * _BITS_PER_DTYPE[name]
    return bits / 8


def _readable_memory_size(size):
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


# --- cell contents --------------------------------------------------------------------------


def _format_shape(shape):
    return f"({', '.join(str(d) for d in shape)})"


def _shapes_from_first_call(layer):
    """Output shapes of a layer built by eager calls (no nodes), for the inputs of its first
    call: its `compute_output_shape` where it has one (as Keras), else its call rerun on zeros
    shaped like those inputs with a batch of 1, and that batch size put back."""
    from ferroflow.array_ops import zeros
    from ferroflow.keras import _symbolic

    specs = layer.__dict__.get("_first_call_specs")
    if specs is None:
        return None
    flat_specs = nest.flatten(specs)
    if not all(hasattr(s, "shape") and s.shape.is_fully_defined() for s in flat_specs):
        return None
    try:
        shapes = layer.compute_output_shape(
            nest.map_structure(lambda s: tuple(s.shape.as_list()), specs)
        )
    except Exception:  # NotImplementedError, or a layer that needs more than shapes
        shapes = None
    if _is_shape(shapes):
        return _format_shape(shapes)
    batch = flat_specs[0].shape[0] if flat_specs[0].shape.rank else None

    def zeros_like_spec(spec):
        dims = list(spec.shape)
        if dims:
            dims[0] = 1
        return zeros(dims, spec.dtype)

    kwargs = {"training": False} if _symbolic.accepts_call_argument(layer, "training") else {}
    try:
        outputs = layer.call(nest.map_structure(zeros_like_spec, specs), **kwargs)
    except Exception:  # the summary shows "?" for what it cannot infer
        return None

    def restored(t):
        dims = list(t.shape)
        if dims and batch is not None:
            dims[0] = batch
        return _format_shape(dims)

    return nest.map_structure(restored, outputs)


def _is_shape(value):
    return isinstance(value, tuple) and all(d is None or isinstance(d, int) for d in value)


def _map_shapes(fn, shapes):
    """``fn`` over a structure whose leaves are shape tuples."""
    if _is_shape(shapes):
        return fn(shapes)
    if isinstance(shapes, dict):
        return {k: _map_shapes(fn, v) for k, v in shapes.items()}
    return type(shapes)(_map_shapes(fn, s) for s in shapes)


def _format_layer_shape(layer):
    nodes = layer.__dict__.get("_inbound_nodes")
    if nodes is not None and len(nodes):
        output_shapes = nest.map_structure(lambda x: _format_shape(x.shape), nodes[-1].outputs)
    elif getattr(layer, "built", False) and _has_output_shape(layer):
        output_shapes = _map_shapes(_format_shape, layer.output_shape)
    elif getattr(layer, "built", False):
        output_shapes = _shapes_from_first_call(layer)
        if output_shapes is None:
            return "?"
    else:
        return "?"
    flat = nest.flatten(output_shapes)
    if len(flat) == 1:
        return flat[0]
    return str(output_shapes).replace("'", "")


def _has_output_shape(layer):
    try:
        shape = layer.output_shape
    except AttributeError:
        return False
    return isinstance(shape, (tuple, list, dict))


def _params_field(layer):
    if not hasattr(layer, "built"):
        return "0"
    if not layer.built:
        return "0 (unbuilt)"
    return f"{_count_params(_unique(layer.weights)):,}"


def _connections(layer, relevant_nodes):
    nodes = layer.__dict__.get("_inbound_nodes") or ()
    parts = []
    for node in nodes:
        if relevant_nodes and node not in relevant_nodes:
            continue
        for x in node.input_tensors:
            operation, node_index, tensor_index = x._keras_history
            parts.append(f"{operation.name}[{node_index}][{tensor_index}]")
    return ", ".join(parts) or "-"


# --- layout ---------------------------------------------------------------------------------


def _layers_and_layout(model):
    """(layers to list, whether the model reads as a plain stack, the model's nodes)."""
    from ferroflow.keras.models.functional import Functional

    if not isinstance(model, Functional):
        return list(model.layers), True, set()
    nodes_by_depth = model._nodes_by_depth
    sequential_like = True
    nodes = []
    for depth_nodes in nodes_by_depth.values():
        if len(depth_nodes) > 1 or (
            len(depth_nodes) == 1 and len(depth_nodes[0].input_tensors) > 1
        ):
            sequential_like = False
            break
        nodes += depth_nodes
    if sequential_like:
        # A layer called more than once (shared) needs the "Connected to" column.
        for layer in model.layers:
            calls = [n for n in (layer.__dict__.get("_inbound_nodes") or ()) if n in nodes]
            if len(calls) > 1:
                sequential_like = False
                break
    relevant = {n for depth_nodes in nodes_by_depth.values() for n in depth_nodes}
    return list(model._operations), sequential_like, relevant


def _layer_range_bounds(layers, layer_range):
    if layer_range is None:
        return 0, len(layers)
    if len(layer_range) != 2:
        raise ValueError(
            "layer_range must be a list or tuple of length 2. Received: "
            f"layer_range = {layer_range} of length {len(layer_range)}"
        )
    if not isinstance(layer_range[0], str) or not isinstance(layer_range[1], str):
        raise ValueError(f"layer_range should contain string type only. Received: {layer_range}")
    lower = [i for i, layer in enumerate(layers) if re.match(layer_range[0], layer.name)]
    upper = [i for i, layer in enumerate(layers) if re.match(layer_range[1], layer.name)]
    if not lower or not upper:
        raise ValueError(
            f"Passed layer_names do not match the layer names in the model. Received: {layer_range}"
        )
    if min(lower) > max(upper):
        return min(upper), max(lower) + 1
    return min(lower), max(upper) + 1


# --- rich's table rendering -----------------------------------------------------------------


def _ratio_reduce(total, ratios, maximums, values):
    ratios = [ratio if maximum else 0 for ratio, maximum in zip(ratios, maximums)]
    total_ratio = sum(ratios)
    if not total_ratio:
        return list(values)
    remaining = total
    result = []
    for ratio, maximum, value in zip(ratios, maximums, values):
        if ratio and total_ratio > 0:
            distributed = min(maximum, round(ratio * remaining / total_ratio))
            result.append(value - distributed)
            remaining -= distributed
            total_ratio -= ratio
        else:
            result.append(value)
    return result


def _column_widths(line_length, positions, count):
    """Widths of the columns, padding included and borders excluded, as rich sizes fixed-width
    columns into a table of ``line_length`` characters."""
    widths, current = [], 0
    relative = all(p <= 1 for p in positions)
    for position in positions:
        width = (int(position * line_length) if relative else int(position)) - current
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width)
        current += width
    space = line_length - (count + 1)
    widths = [min(w + 2, space) for w in widths]
    if sum(widths) > space:
        widths = _ratio_reduce(sum(widths) - space, [1] * count, widths, widths)
    return widths


def _divide_line(text, width):
    """Offsets where rich breaks ``text`` into lines of ``width`` (words too long for a line
    stay whole, to be cut with an ellipsis)."""
    breaks, offset = [], 0
    for match in _WORD.finditer(text):
        start, word = match.start(), match.group(0)
        word_length = len(word.rstrip())
        if width - offset >= word_length:
            offset += len(word)
        elif word_length > width:
            if start:
                breaks.append(start)
            offset = len(word)
        elif offset and start:
            breaks.append(start)
            offset = len(word)
    return breaks


def _truncate(text, width):
    return text[: width - 1] + "…" if len(text) > width else text


def _wrap(text, width, justify):
    lines = []
    for raw in text.split("\n"):
        bounds = [0, *_divide_line(raw, width), len(raw)]
        for start, end in zip(bounds, bounds[1:]):
            piece = raw[start:end]
            if len(piece) > width:
                trailing = _TRAILING_SPACE.search(piece)
                if trailing:
                    piece = piece[: len(piece) - min(len(trailing.group(0)), len(piece) - width)]
            if justify == "left":
                piece = _truncate(piece, width).ljust(width)
            elif justify == "center":
                piece = _truncate(piece.rstrip(), width)
                piece = (" " * ((width - len(piece)) // 2) + piece).ljust(width)
            else:
                piece = _truncate(piece.rstrip(), width).rjust(width)
            lines.append(piece)
    return lines


def _render_row(cells, widths, alignment, edge, bottom_aligned):
    wrapped = [_wrap(cell, w - 2, a) for cell, w, a in zip(cells, widths, alignment)]
    height = max(len(lines) for lines in wrapped)
    for i, lines in enumerate(wrapped):
        blank = [" " * (widths[i] - 2)] * (height - len(lines))
        wrapped[i] = blank + lines if bottom_aligned else lines + blank
    return [
        edge + edge.join(f" {wrapped[c][row]} " for c in range(len(cells))) + edge
        for row in range(height)
    ]


def _rule(widths, parts):
    left, fill, divider, right = parts
    return left + divider.join(fill * w for w in widths) + right


def _render_table(header, alignment, rows, widths):
    lines = [_rule(widths, _TOP)]
    lines += _render_row(header, widths, alignment, _HEAD_EDGE, bottom_aligned=True)
    lines.append(_rule(widths, _HEAD_RULE))
    for i, row in enumerate(rows):
        if i:
            lines.append(_rule(widths, _ROW_RULE))
        lines += _render_row(row, widths, alignment, _ROW_EDGE, bottom_aligned=False)
    lines.append(_rule(widths, _BOTTOM))
    return lines


def _console_width():
    # rich's console width: $COLUMNS, else a terminal on a standard stream, else 80.
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit():
        return int(columns)
    for fd in (0, 1, 2):
        try:
            return os.get_terminal_size(fd).columns
        except OSError:
            continue
    return 80


# --- the summary ----------------------------------------------------------------------------


def print_summary(
    model,
    line_length=None,
    positions=None,
    print_fn=None,
    expand_nested=False,
    show_trainable=False,
    layer_range=None,
):
    """Prints ``model``'s summary table, or passes it to ``print_fn`` as one string."""
    layers, sequential_like, relevant_nodes = _layers_and_layout(model)
    if sequential_like:
        default_line_length = 88
        positions = positions or [0.45, 0.80, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #"]
        alignment = ["left", "left", "right"]
    else:
        default_line_length = 108
        positions = positions or [0.3, 0.56, 0.74, 1.0]
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        alignment = ["left", "left", "right", "left"]
    if show_trainable:
        default_line_length += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header.append("Trainable")
        alignment.append("center")
    default_line_length = min(default_line_length, shutil.get_terminal_size().columns - 4)
    line_length = line_length or default_line_length
    widths = _column_widths(line_length, positions, len(header))

    def fields(layer, prefix):
        row = [
            f"{prefix}{layer.name} ({type(layer).__name__})",
            _format_layer_shape(layer),
            _params_field(layer),
        ]
        if not sequential_like:
            row.append(_connections(layer, relevant_nodes))
        if show_trainable:
            if getattr(layer, "weights", None):
                row.append("Y" if layer.trainable else "N")
            else:
                row.append("-")
        return row

    def layer_rows(layer, level=0):
        rows = [fields(layer, "   " * level + "└ " if level else "")]
        nested = getattr(layer, "layers", None) if expand_nested else None
        for sublayer in nested or ():
            rows += layer_rows(sublayer, level + 1)
        return rows

    start, end = _layer_range_bounds(layers, layer_range)
    rows = [row for layer in layers[start:end] for row in layer_rows(layer)]
    console_width = _console_width()
    table = [line[:console_width] for line in _render_table(header, alignment, rows, widths)]

    trainable = _unique(model.trainable_weights)
    non_trainable = _unique(model.non_trainable_weights)
    optimizer = getattr(model, "optimizer", None)
    optimizer_built = bool(getattr(model, "compiled", False) and getattr(optimizer, "built", False))
    optimizer_variables = _unique(optimizer.variables) if optimizer_built else []
    total_count = sum(_count_params(w) for w in (trainable, non_trainable, optimizer_variables))
    total_size = sum(_memory_size(w) for w in (trainable, non_trainable, optimizer_variables))

    def count_line(label, count, size):
        return f" {label}: {count:,} ({_readable_memory_size(size)})"

    lines = [f'Model: "{model.name}"', *table]
    lines.append(count_line("Total params", total_count, total_size))
    lines.append(count_line("Trainable params", _count_params(trainable), _memory_size(trainable)))
    lines.append(
        count_line(
            "Non-trainable params", _count_params(non_trainable), _memory_size(non_trainable)
        )
    )
    if optimizer_built:
        lines.append(
            count_line(
                "Optimizer params",
                _count_params(optimizer_variables),
                _memory_size(optimizer_variables),
            )
        )
    text = "\n".join(lines) + "\n"
    if print_fn is None:
        sys.stdout.write(text)
    else:
        print_fn(text)
