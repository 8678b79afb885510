"""Which variables code may still read: a backward liveness analysis over a function's
statements, so that a converted `if` or loop outputs the variables read after it, and a
variable it assigns on one path only is an error only when something reads it later."""

import ast
from typing import NamedTuple

from ferroflow.autograph.analysis import LOOPS, bound_names, read_names

_WITH = (ast.With, ast.AsyncWith)
# Blocks the analysis does not follow path by path (`TryStar` and `Match` are newer Pythons').
_OPAQUE = tuple(getattr(ast, name) for name in ("Try", "TryStar", "Match") if hasattr(ast, name))


class Jumps(NamedTuple):
    """What is live where the innermost loop's `break` and `continue` go."""

    at_break: frozenset
    at_continue: frozenset


def live_after_each(stmts, live_out, jumps=None):
    """For each statement of a block, the names possibly read after it before being assigned,
    given `live_out`, the names live after the block."""
    live = set(live_out)
    after = []
    for stmt in reversed(stmts):
        after.append(live)
        live = _live_before(stmt, live, jumps)
    after.reverse()
    return after


def live_before(stmts, live_out, jumps=None):
    live = set(live_out)
    for stmt in reversed(stmts):
        live = _live_before(stmt, live, jumps)
    return live


def loop_header(loop, body, live_after, jumps=None):
    """The names live where each iteration starts (before the test, or before the next item):
    the names live after `body`, the loop's body (maybe rewritten)."""
    after = live_before(loop.orelse, live_after, jumps)  # a normal exit runs the else block
    head_reads = read_names([loop.test]) if isinstance(loop, ast.While) else set()
    header = after | head_reads
    while True:  # a fixed point over the back edge; the sets only grow
        body_in = live_before(body, header, Jumps(frozenset(live_after), frozenset(header)))
        if not isinstance(loop, ast.While):
            body_in = (body_in - set(bound_names([loop.target]))) | read_names([loop.target])
        grown = after | head_reads | body_in
        if grown == header:
            return header
        header = grown


def _live_before(stmt, live, jumps):
    if isinstance(stmt, ast.If):
        body = live_before(stmt.body, live, jumps)
        return read_names([stmt.test]) | body | live_before(stmt.orelse, live, jumps)
    if isinstance(stmt, LOOPS):
        header = loop_header(stmt, stmt.body, live, jumps)
        return header if isinstance(stmt, ast.While) else header | read_names([stmt.iter])
    if isinstance(stmt, ast.Break):
        return set(jumps.at_break) if jumps else set(live)
    if isinstance(stmt, ast.Continue):
        return set(jumps.at_continue) if jumps else set(live)
    if isinstance(stmt, _WITH):
        targets = [item.optional_vars for item in stmt.items if item.optional_vars is not None]
        body = live_before(stmt.body, live, jumps) - set(bound_names(targets))
        return body | read_names([item.context_expr for item in stmt.items])
    if isinstance(stmt, _OPAQUE):
        # Every read counts, and a jump inside may go anywhere it can.
        jumped = (jumps.at_break | jumps.at_continue) if jumps else frozenset()
        return set(live) | read_names([stmt]) | jumped
    return (set(live) - set(bound_names([stmt]))) | read_names([stmt])
