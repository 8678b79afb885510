"""The time loop of Keras's recurrent layers (Keras 3's `backend.rnn` under TensorFlow).

A step maps ``(input_t, states)`` to ``(output_t, new_states)``. With a mask, a masked step
keeps the previous states and outputs the previous (masked) output, or zeros when
``zero_output_for_mask``; the output before the first step is zeros. Eagerly the loop is
Python; inside a trace it is one staged `tf.while_loop` over a `TensorArray` (the cell's
ops appear once in the graph), unless ``unroll``."""

from ferroflow import nest
from ferroflow.array_ops import (
    cast,
    constant,
    expand_dims,
    gather,
    reverse,
    shape,
    stack,
    transpose,
    where,
    zeros_like,
)
from ferroflow.dtypes import bool as _bool
from ferroflow.framework_ops import executing_eagerly

__all__ = ["rnn"]


def _time_major(x):
    return transpose(x, [1, 0, *range(2, x.shape.rank)])


def _select(mask_t, new, old):
    """``new`` where the step is unmasked, else ``old``; ``mask_t`` is ``(batch,)`` bool."""
    m = mask_t
    for _ in range(new.shape.rank - 1):
        m = expand_dims(m, -1)
    return where(m, new, old)


def _masked_step(step, x_t, mask_t, prev_output, states, zero_output_for_mask):
    output, new_states = step(x_t, states)
    if mask_t is None:
        return output, new_states
    fill = zeros_like(output) if zero_output_for_mask or prev_output is None else prev_output
    output = _select(mask_t, output, fill)
    flat = [_select(mask_t, n, o) for n, o in zip(nest.flatten(new_states), nest.flatten(states))]
    return output, nest.pack_sequence_as(new_states, flat)


def rnn(
    step,
    inputs,
    initial_states,
    go_backwards=False,
    mask=None,
    unroll=False,
    zero_output_for_mask=False,
    return_all_outputs=True,
):
    """Runs ``step`` over axis 1 of ``inputs`` (batch major). Returns ``(last_output,
    outputs, new_states)``: ``outputs`` is ``(batch, time, ...)``, or ``(batch, 1, ...)``
    holding the last output when not ``return_all_outputs``."""
    xs = _time_major(inputs)
    if mask is not None:
        if mask.dtype != _bool:
            mask = cast(mask, _bool)
        if mask.shape.rank == 3:
            mask = mask[:, :, 0]
        mask = transpose(mask, [1, 0])
    if go_backwards:
        xs = reverse(xs, [0])
        if mask is not None:
            mask = reverse(mask, [0])
    steps = xs.shape[0]
    if unroll or (executing_eagerly() and steps is not None):
        return _python_loop(
            step, xs, mask, initial_states, zero_output_for_mask, return_all_outputs
        )
    return _graph_loop(step, xs, mask, initial_states, zero_output_for_mask, return_all_outputs)


def _python_loop(step, xs, mask, states, zero_output_for_mask, return_all_outputs):
    outputs, prev_output = [], None
    for t in range(xs.shape[0]):
        mask_t = None if mask is None else mask[t]
        # Before the first step, the output a masked step repeats is zeros.
        prev_output, states = _masked_step(
            step, xs[t], mask_t, prev_output, states, zero_output_for_mask
        )
        if return_all_outputs or not outputs:
            outputs.append(prev_output)
        else:
            outputs[0] = prev_output
    stacked = stack(outputs, axis=1)
    return prev_output, stacked, states


def _zeros_of(example, xs):
    """Zeros shaped like ``example`` (a step output) that do not read it, so the example
    step's ops are dead code in the graph that runs; the batch size may be dynamic."""
    from ferroflow.array_ops import concat, zeros

    dims = example.shape.as_list()
    if None not in dims:
        return zeros(dims, example.dtype)
    if None in dims[1:]:
        return zeros_like(example)
    return zeros(concat([shape(xs)[1:2], dims[1:]], 0), example.dtype)


def _graph_loop(step, xs, mask, initial_states, zero_output_for_mask, return_all_outputs):
    from ferroflow.control_flow import while_loop
    from ferroflow.tensor_array_ops import TensorArray

    steps = xs.shape[0]
    n = shape(xs)[0] if steps is None else steps
    # The step's output structure and dtype, from a step on the first input (Keras does
    # the same); in a trace only its static shape is read.
    output_zero = _zeros_of(step(xs[0], initial_states)[0], xs)
    flat_init = nest.flatten(initial_states)
    # Only a returned sequence needs a TensorArray: the last output is a loop variable.
    outputs_ta = (
        [TensorArray(output_zero.dtype, size=n, element_shape=output_zero.shape)]
        if return_all_outputs
        else []
    )

    def body(t, *carried):
        carried = list(carried)
        ta = carried.pop(0) if return_all_outputs else None
        prev_output, flat_states = carried[0], carried[1:]
        states = nest.pack_sequence_as(initial_states, flat_states)
        mask_t = None if mask is None else gather(mask, t)
        output, new_states = _masked_step(
            step, gather(xs, t), mask_t, prev_output, states, zero_output_for_mask
        )
        written = [ta.write(t, output)] if return_all_outputs else []
        return (t + 1, *written, output, *nest.flatten(new_states))

    results = list(
        while_loop(
            lambda t, *_: t < n,
            body,
            (constant(0), *outputs_ta, output_zero, *flat_init),
            maximum_iterations=n,
        )
    )[1:]
    if return_all_outputs:
        stacked = results.pop(0).stack()
        # The TensorArray's stack does not keep a static number of steps: state it.
        stacked.set_shape([steps, *output_zero.shape.as_list()])
        outputs = _time_major(stacked)
    last_output = results[0]
    if not return_all_outputs:
        outputs = expand_dims(last_output, 1)
    new_states = nest.pack_sequence_as(initial_states, results[1:])
    return last_output, outputs, new_states
