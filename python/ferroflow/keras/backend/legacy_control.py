"""The legacy Keras 2 ``K.*`` control flow: ``rnn``, ``switch``, ``map_fn``, ``foldl``,
``foldr`` and symbolic ``gradients``."""

import ferroflow as tf

__all__ = ["foldl", "foldr", "gradients", "map_fn", "rnn", "switch"]


def map_fn(fn, elems, name=None, dtype=None):
    """``fn`` applied to each slice of ``elems`` along axis 0, the results stacked."""
    return tf.map_fn(fn, elems, name=name, dtype=dtype)


def foldl(fn, elems, initializer=None, name=None):
    """``fn(acc, x)`` folded over ``elems`` from the first slice."""
    return tf.foldl(fn, elems, initializer=initializer, name=name)


def foldr(fn, elems, initializer=None, name=None):
    """``fn(acc, x)`` folded over ``elems`` from the last slice."""
    return tf.foldr(fn, elems, initializer=initializer, name=name)


def gradients(loss, variables):
    """Symbolic gradients of ``loss`` with respect to ``variables`` (inside a
    `tf.function`; eagerly TensorFlow raises and so does this)."""
    return tf.gradients(loss, variables)


def switch(condition, then_expression, else_expression):
    """``then_expression`` where ``condition`` holds, else ``else_expression``: a scalar
    condition picks a branch (callables are called only for the branch taken); a tensor
    condition selects elementwise, broadcast over the expressions' trailing axes."""
    if condition.dtype != tf.bool:
        condition = tf.cast(condition, "bool")
    cond_rank = condition.shape.rank
    if not cond_rank:
        then_fn = then_expression if callable(then_expression) else lambda: then_expression
        else_fn = else_expression if callable(else_expression) else lambda: else_expression
        return tf.cond(condition, then_fn, else_fn)
    if callable(then_expression):
        then_expression = then_expression()
    if callable(else_expression):
        else_expression = else_expression()
    expr_rank = then_expression.shape.rank
    if cond_rank > expr_rank:
        raise ValueError(
            "Rank of `condition` should be less than or equal to rank of `then_expression` "
            f"and `else_expression`. ndim(condition)={cond_rank}, "
            f"ndim(then_expression)={expr_rank}"
        )
    if cond_rank > 1:
        # Trailing size-1 axes, tiled up to the expressions' shape.
        cond_shape = tf.concat([tf.shape(condition), [1] * (expr_rank - cond_rank)], axis=0)
        condition = tf.reshape(condition, cond_shape)
        expr_shape = tf.shape(then_expression)
        multiples = tf.where(expr_shape - cond_shape > 0, expr_shape, tf.ones_like(expr_shape))
        condition = tf.tile(condition, multiples)
    return tf.where(condition, then_expression, else_expression)


def _swap_batch_time(x):
    return tf.transpose(x, [1, 0, *range(2, x.shape.rank)])


def rnn(
    step_function,
    inputs,
    initial_states,
    go_backwards=False,
    mask=None,
    constants=None,
    unroll=False,
    input_length=None,
    time_major=False,
    zero_output_for_mask=False,
    return_all_outputs=True,
):
    """Runs ``step_function(input_t, states + constants) -> (output_t, new_states)`` over
    the time axis of ``inputs`` (axis 1, or 0 when ``time_major``). Returns
    ``(last_output, outputs, new_states)``; a masked step keeps the previous states and
    repeats the previous output (zeros with ``zero_output_for_mask``)."""
    from ferroflow.keras.layers.rnn._loop import rnn as run_loop

    if tf.nest.is_nested(inputs):
        raise NotImplementedError("K.rnn over nested inputs is not supported by ferroflow.")
    if input_length is not None:
        raise NotImplementedError(
            "K.rnn's `input_length` is not supported by ferroflow; pass a `mask` instead."
        )
    if inputs.shape.rank < 3:
        raise ValueError(f"Shape {inputs.shape} must have rank at least 3")
    if unroll and not inputs.shape[0 if time_major else 1]:
        raise ValueError("Unrolling requires a fixed number of timesteps.")
    constants = tuple(constants or ())
    if time_major:
        inputs = _swap_batch_time(inputs)
        if mask is not None:
            mask = _swap_batch_time(mask) if mask.shape.rank >= 2 else mask

    def step(x_t, states):
        return step_function(x_t, tuple(states) + constants)

    last_output, outputs, new_states = run_loop(
        step,
        inputs,
        initial_states,
        go_backwards=go_backwards,
        mask=mask,
        unroll=unroll,
        zero_output_for_mask=zero_output_for_mask,
        return_all_outputs=return_all_outputs,
    )
    if time_major:
        outputs = _swap_batch_time(outputs)
    return last_output, outputs, new_states
