"""The AST transformation: a function's own `if`, `while` and `for` statements become calls to
`operators`, which run them as Python or stage them as `tf.cond`/`tf.while_loop` at run time.

Each converted statement turns into small functions defined in place: its branches or loop body
(declaring `nonlocal` the names they assign, so they still assign the user's variables),
`get_state`/`set_state` to read and write those variables, and the operator call itself."""

import ast
import collections

from ferroflow.autograph import analysis, calls, exits, expressions, liveness, templates
from ferroflow.autograph.analysis import LOOPS, SCOPES, own_scope_walk

_BLOCK_FIELDS = ("body", "orelse", "finalbody")


class NotConvertible(Exception):
    """The function cannot be converted as a whole (a generator, say); it runs unchanged."""


def convert_function(node, filename="<unknown>"):
    """Rewrites the `FunctionDef` `node` (from `filename`) in place. Returns whether anything
    was converted."""
    if isinstance(node, ast.AsyncFunctionDef):
        raise NotConvertible("async functions are not converted")
    if any(isinstance(sub, (ast.Yield, ast.YieldFrom)) for sub in own_scope_walk(node.body)):
        raise NotConvertible("generators are not converted")
    node.decorator_list = []
    docstring = node.body[:1] if ast.get_docstring(node, clean=False) is not None else []
    body = node.body[len(docstring) :]
    changed = calls.wrap_calls(body)
    changed = expressions.convert_not(body) or changed
    expressions.name_super_arguments(body, node)
    try:
        body = exits.rewrite_returns(body)
    except exits.Unsupported:
        pass  # Returns inside loops or `try`: the statements holding them stay Python.
    converter = _Converter(
        analysis.declared_names(body), analysis.nested_read_counts(body), filename
    )
    body = converter.block(body, live_out=set())
    # A name assigned only inside generated functions must still be a local of this function,
    # as it was, for their `nonlocal` declarations: bind it in code that never runs.
    unbound = [name for name in converter.nonlocals if name not in converter.declared]
    if unbound:
        never = templates.statements("if False:\n    pass", body[0])[0]
        never.body = [templates.assign(name, "None", body[0]) for name in sorted(unbound)]
        body.insert(0, never)
    node.body = docstring + body
    return changed or converter.changed


class _Converter:
    def __init__(self, declared, nested_reads, filename):
        self.declared = declared  # the function's `global`/`nonlocal` names
        self.nested_reads = nested_reads  # Counter: reads by nested functions, per name
        self.filename = filename
        self.nonlocals = set()
        self.changed = False
        self._count = 0
        self._jumps = None  # where `break`/`continue` of the innermost Python loop lead

    def block(self, stmts, live_out):
        out = []
        for stmt, live_after in zip(stmts, liveness.live_after_each(stmts, live_out, self._jumps)):
            out.extend(self.statement(stmt, live_after))
        return out

    def loop_body(self, body, live_out, jumps):
        outer, self._jumps = self._jumps, jumps
        try:
            return self.block(body, live_out)
        finally:
            self._jumps = outer

    def statement(self, stmt, live_after):
        if isinstance(stmt, SCOPES):
            return [stmt]
        if isinstance(stmt, (ast.If, ast.While, ast.For)):
            reason = _unmovable_reason(stmt)
            if reason is None and isinstance(stmt, ast.If):
                return self._if(stmt, live_after)
            if reason is None:
                try:
                    return self._loop(stmt, live_after)
                except exits.Unsupported as e:
                    reason = str(e)
            if not isinstance(stmt, ast.For):
                self._check_python_test(stmt, reason)
        # Left as Python; the blocks inside may still hold statements to convert.
        if isinstance(stmt, LOOPS):
            header = liveness.loop_header(stmt, stmt.body, live_after, self._jumps)
            jumps = liveness.Jumps(frozenset(live_after), frozenset(header))
            stmt.body = self.loop_body(stmt.body, header, jumps)
            stmt.orelse = self.block(stmt.orelse, live_after)
            return [stmt]
        if isinstance(stmt, (ast.If, ast.With, ast.AsyncWith)):
            inner_live = live_after
        else:  # `try`, `match`: any read may come after any statement
            inner_live = live_after | analysis.read_names([stmt])
        for field in _BLOCK_FIELDS:
            block = getattr(stmt, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(stmt, field, self.block(block, inner_live))
        for handler_or_case in [*getattr(stmt, "handlers", []), *getattr(stmt, "cases", [])]:
            handler_or_case.body = self.block(handler_or_case.body, inner_live)
        return [stmt]

    def _check_python_test(self, stmt, reason):
        """An `if`/`while` left as Python raises a clear error if its test is a tensor of the
        trace, instead of failing when Python asks the tensor for a bool."""
        kind = "if" if isinstance(stmt, ast.If) else "while"
        staged = "tf.cond" if kind == "if" else "tf.while_loop"
        message = (
            f"The `{kind}` statement at line {stmt.lineno} of {self.filename} tests a tensor, "
            f"but AutoGraph cannot convert it to `{staged}`: {reason}."
        )
        stmt.test = templates.expression(
            f"ag__.python_test(ag__test, {message!r})", stmt.test, ag__test=stmt.test
        )
        self.changed = True

    def _if(self, stmt, live_after):
        n = self._next_id()
        names = analysis.bound_names(stmt.body + stmt.orelse)
        in_both = analysis.definitely_bound(stmt.body) & analysis.definitely_bound(stmt.orelse)
        read_later = self._read_later(names, live_after, stmt)
        required = [x for x in names if x in in_both or x in read_later]
        true_fn = self._function(
            f"ag__if_true_{n}", [], self.block(stmt.body, live_after), stmt.body, stmt
        )
        false_fn = self._function(
            f"ag__if_false_{n}", [], self.block(stmt.orelse, live_after), stmt.orelse, stmt
        )
        call = templates.statements(
            f"ag__.if_stmt(ag__test, ag__if_true_{n}, ag__if_false_{n}, ag__get_state_{n}, "
            f"ag__set_state_{n}, {tuple(names)!r}, {tuple(required)!r})",
            stmt,
            ag__test=stmt.test,
        )
        return [true_fn, false_fn, *self._state_functions(n, names, stmt), *call]

    def _loop(self, stmt, live_after):
        n = self._next_id()
        break_flag = f"ag__break_{n}"
        body, uses_break = exits.rewrite_loop_jumps(stmt.body, break_flag, f"ag__skip_{n}")
        head = [stmt.test] if isinstance(stmt, ast.While) else [stmt.target]
        names = analysis.bound_names(head + body)
        # The flag is read by the loop test, which is not in the AST.
        loop_live = liveness.loop_header(stmt, body, live_after, self._jumps) | {break_flag}
        required = self._loop_variables(names, live_after, loop_live, stmt)
        converted_body = self.loop_body(body, loop_live, None)  # its jumps are rewritten
        body_fn = self._function(f"ag__loop_body_{n}", [], converted_body, body, stmt)
        extra_test = f"lambda: ag__.not_({break_flag})" if uses_break else "None"
        state = (f"ag__get_state_{n}", f"ag__set_state_{n}", repr(tuple(names)))
        if isinstance(stmt, ast.While):
            test = templates.statements("return ag__test", stmt.test, ag__test=stmt.test)
            head_fn = self._function(f"ag__loop_test_{n}", [], test, head, stmt)
            call_source = (
                f"ag__.while_stmt(ag__loop_test_{n}, ag__loop_body_{n}, {', '.join(state)}"
            )
            substitutes = {}
        else:
            assign = templates.statements("ag__target = ag__item", stmt.target)
            assign[0].targets = [stmt.target]
            head_fn = self._function(f"ag__loop_target_{n}", ["ag__item"], assign, head, stmt)
            call_source = (
                f"ag__.for_stmt(ag__iter, ag__loop_body_{n}, {', '.join(state)}, "
                f"ag__loop_target_{n}"
            )
            substitutes = {"ag__iter": stmt.iter}
        call = templates.statements(
            f"{call_source}, required={tuple(required)!r}, extra_test={extra_test})",
            stmt,
            **substitutes,
        )
        before = [templates.assign(break_flag, "False", stmt)] if uses_break else []
        after = self._loop_else(stmt, uses_break, break_flag, live_after)
        state_fns = self._state_functions(n, names, stmt)
        return [*before, head_fn, body_fn, *state_fns, *call, *after]

    def _loop_else(self, stmt, uses_break, break_flag, live_after):
        if not stmt.orelse:
            return []
        if not uses_break:
            return self.block(stmt.orelse, live_after)
        guard = templates.statements(f"if ag__.not_({break_flag}):\n    pass", stmt.orelse[0])
        guard[0].body = stmt.orelse
        return self.block(guard, live_after)

    def _loop_variables(self, names, live_after, loop_live, stmt):
        """TensorFlow's loop variables among `names`, in its order: those read after the loop,
        then those an iteration may read before assigning them, each sorted by name."""
        read_later = sorted(self._read_later(names, live_after, stmt))
        return read_later + sorted(x for x in names if x in loop_live and x not in read_later)

    def _read_later(self, names, live_after, stmt):
        """Those of `names` whose value after `stmt` may be read: by the code after it, or by
        a function defined elsewhere in the function (it may run at any time)."""
        inside = analysis.nested_read_counts([stmt]) if self.nested_reads else collections.Counter()
        return [x for x in names if x in live_after or self.nested_reads[x] > inside[x]]

    def _function(self, name, params, body, original_block, where):
        assigned = [x for x in analysis.bound_names(original_block) if x not in params]
        self.nonlocals.update(x for x in assigned if self.declared.get(x) != "global")
        self.changed = True
        declarations = templates.declarations(assigned, self.declared, where)
        return templates.function(name, params, body, where, declarations)

    def _state_functions(self, n, names, where):
        readers = "".join(f"lambda: {name}, " for name in names)
        getter = templates.statements(
            f"def ag__get_state_{n}():\n    return ag__.read_names(({readers}))", where
        )
        writes = [f"{name} = ag__values[{i}]" for i, name in enumerate(names)]
        # A variable that had no value gets none back (Python's unbound local).
        unbinds = [f"if {name} is ag__.UNDEFINED:\n    del {name}" for name in names]
        lines = [line for pair in zip(writes, unbinds) for line in pair] or ["pass"]
        setter = templates.statements("\n".join(lines), where)
        setter_fn = templates.function(
            f"ag__set_state_{n}",
            ["ag__values"],
            setter,
            where,
            templates.declarations(names, self.declared, where),
        )
        self.nonlocals.update(x for x in names if self.declared.get(x) != "global")
        return [*getter, setter_fn]

    def _next_id(self):
        self._count += 1
        return self._count


def _unmovable_reason(stmt):
    """Why `stmt` would change meaning inside a generated function, or None. A loop's own
    `break`/`continue` are fine (they get rewritten), and so is its `else` block (it moves out
    with the call)."""
    for node in own_scope_walk([stmt]):
        if isinstance(node, ast.Return):
            return (
                "it holds a `return`, which AutoGraph rewrites only when no `return` of the "
                "function sits inside a loop or a `try` block"
            )
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return "it holds a `global` or `nonlocal` statement"
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return "it holds a `yield` or `await`"
    if not isinstance(stmt, LOOPS) and _escaping_jumps([stmt]):
        return "it holds a `break` or `continue` of a loop that stays a Python loop"
    return None


def _escaping_jumps(stmts):
    for node in own_scope_walk(stmts, skip=LOOPS):
        if isinstance(node, (ast.Break, ast.Continue)):
            return True
        if isinstance(node, LOOPS) and _escaping_jumps(node.orelse):
            return True
    return False
