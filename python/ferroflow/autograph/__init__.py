"""AutoGraph: the source converter `tf.function` applies to Python functions, so that their
`if`, `while` and `for` statements run as `tf.cond`/`tf.while_loop` when their condition is a
tensor of the trace, and as plain Python otherwise.

Pipeline: `loader` reads the function's source into an AST; `expressions` rewrites `not` and
`super()`, and `calls` wraps each call so that the functions it reaches are converted too
while tracing; `exits` rewrites `return`, `break` and `continue` into assignments; `converter`
(with `analysis` and `liveness` to pick each statement's variables) turns each statement into
a call to `operators`, which decides at run time between Python and staging, with
`staged_values`' rules for the values that cross a staged statement; `loader` compiles the
result back into a function with the original's closure cells and line numbers.
"""

from ferroflow.autograph import experimental
from ferroflow.autograph.api import do_not_convert, to_code, to_graph

__all__ = ["do_not_convert", "experimental", "to_code", "to_graph"]
