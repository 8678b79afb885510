"""Rewrites `return`, `break` and `continue` into assignments, so that the blocks holding them can
become functions run by `tf.cond`/`tf.while_loop`.

The statements after an `if` that exits in one branch move into the other branch; only when a
branch exits on some of its paths do they go under a guard `if not <flag>:`, which reads a flag
that the exits set. Exits inside loops (for `return`), `try` or `match` are not rewritten:
`Unsupported` is raised and the caller leaves the code as Python wrote it."""

import ast
import copy

from ferroflow.autograph import templates
from ferroflow.autograph.analysis import LOOPS, SCOPES, own_scope_walk

RETVAL = "ag__retval"
DO_RETURN = "ag__do_return"
_WITH = (ast.With, ast.AsyncWith)


class Unsupported(Exception):
    """An exit sits where it cannot be rewritten into an assignment."""


def rewrite_returns(body):
    """The function body with its returns assigning `RETVAL` and one `return RETVAL` at the end;
    `body` itself when no `return` sits inside a block."""
    if not _has_nested_return(body):
        return body

    def replace(node):
        value = node.value if node.value is not None else ast.Constant(value=None)
        retval = templates.statements(f"{RETVAL} = ag__value", node, ag__value=value)
        return [*retval, rewriter.marker(templates.assign(DO_RETURN, "True", node))]

    rewriter = _ExitRewriter((ast.Return,), replace, DO_RETURN, loop_scoped=False)
    new_body, always_returns = rewriter.block(body)
    prelude = []
    if rewriter.guarded:
        prelude.append(templates.assign(DO_RETURN, "False", body[0]))
    else:
        new_body = rewriter.strip_markers(new_body)
    if not always_returns:
        prelude.append(templates.assign(RETVAL, "None", body[0]))
    return [*prelude, *new_body, *templates.statements(f"return {RETVAL}", body[-1])]


def rewrite_loop_jumps(body, break_flag, skip_flag):
    """(body, uses_break): the loop body with `break` setting `break_flag` (the caller adds it to
    the loop condition) and the rest of an iteration after a `break`/`continue` skipped."""
    used = {"break": False}

    def replace(node):
        out = []
        if isinstance(node, ast.Break):
            used["break"] = True
            out.append(templates.assign(break_flag, "True", node))
        out.append(rewriter.marker(templates.assign(skip_flag, "True", node)))
        return out

    rewriter = _ExitRewriter((ast.Break, ast.Continue), replace, skip_flag, loop_scoped=True)
    if not any(rewriter.contains_exit(stmt) for stmt in body):
        return body, False
    new_body, _ = rewriter.block(body)
    if rewriter.guarded:
        new_body = [templates.assign(skip_flag, "False", body[0]), *new_body]
    else:
        new_body = rewriter.strip_markers(new_body)
    return new_body, used["break"]


def _has_nested_return(body):
    for stmt in body:
        if isinstance(stmt, ast.Return):
            continue
        if any(isinstance(node, ast.Return) for node in own_scope_walk([stmt])):
            return True
    return False


class _ExitRewriter:
    def __init__(self, exit_types, replace, flag, loop_scoped):
        self.exit_types = exit_types
        self.replace = replace  # exit node -> the statements standing for it
        self.flag = flag  # set by every exit; guards read it
        self.loop_scoped = loop_scoped  # break/continue in a nested loop are that loop's
        self.markers = set()  # ids of flag assignments, dropped when no guard reads the flag
        self.guarded = False

    def marker(self, stmt):
        self.markers.add(id(stmt))
        return stmt

    def contains_exit(self, node):
        skip = LOOPS if self.loop_scoped else ()
        for sub in own_scope_walk([node], skip=skip):
            if isinstance(sub, self.exit_types):
                return True
            # A nested loop's jumps are its own, but those in its `else` block are ours.
            if self.loop_scoped and isinstance(sub, LOOPS):
                if any(self.contains_exit(stmt) for stmt in sub.orelse):
                    return True
        return False

    def always_exits(self, stmts):
        for stmt in stmts:
            if isinstance(stmt, (*self.exit_types, ast.Raise)):
                return True
            if isinstance(stmt, ast.If) and self.always_exits(stmt.body):
                if self.always_exits(stmt.orelse):
                    return True
            if isinstance(stmt, _WITH) and self.always_exits(stmt.body):
                return True
        return False

    def block(self, stmts):
        """(new statements, whether every path through them exits)."""
        out = []
        for index, stmt in enumerate(stmts):
            if isinstance(stmt, self.exit_types):
                out.extend(self.replace(stmt))
                return out, True
            if not self.contains_exit(stmt):
                out.append(stmt)
                continue
            rest = stmts[index + 1 :]
            if isinstance(stmt, ast.If):
                body_exits = self.always_exits(stmt.body)
                orelse_exits = self.always_exits(stmt.orelse)
                if body_exits and not orelse_exits:
                    # What follows runs only after the else branch: it moves there.
                    body, _ = self.block(stmt.body)
                    orelse, exits = self.block(stmt.orelse + rest)
                    out.append(_if(stmt, body, orelse))
                    return out, exits
                if orelse_exits and not body_exits:
                    body, exits = self.block(stmt.body + rest)
                    orelse, _ = self.block(stmt.orelse)
                    out.append(_if(stmt, body, orelse))
                    return out, exits
                body, _ = self.block(stmt.body)
                orelse, _ = self.block(stmt.orelse)
                out.append(_if(stmt, body, orelse))
                if body_exits and orelse_exits:
                    return out, True
            elif isinstance(stmt, _WITH):
                # A copy: on `Unsupported` later, the caller keeps the original statements.
                body, exits = self.block(stmt.body)
                stmt = copy.copy(stmt)
                stmt.body = body
                out.append(stmt)
                if exits:
                    return out, True
            elif self.loop_scoped and isinstance(stmt, LOOPS):
                stmt = copy.copy(stmt)  # `for ... else: break`: the jump is in the else block
                stmt.orelse, _ = self.block(stmt.orelse)
                out.append(stmt)
            else:
                kind = type(stmt).__name__.lower()
                raise Unsupported(f"a jump out of the `{kind}` block at line {stmt.lineno}")
            if rest:
                # The statement exits on some paths only: the rest runs only if it did not.
                rest_body, exits = self.block(rest)
                self.guarded = True
                guard = templates.statements(f"if ag__.not_({self.flag}):\n    pass", rest[0])[0]
                guard.body = rest_body
                out.append(guard)
                return out, exits
        return out, False

    def strip_markers(self, stmts):
        _StripMarkers(self.markers).visit(ast.Module(body=stmts, type_ignores=[]))
        return [stmt for stmt in stmts if id(stmt) not in self.markers]


def _if(original, body, orelse):
    node = ast.If(test=original.test, body=body or [ast.Pass()], orelse=orelse)
    return ast.copy_location(node, original)


class _StripMarkers(ast.NodeTransformer):
    def __init__(self, markers):
        self.markers = markers

    def generic_visit(self, node):
        if isinstance(node, SCOPES):
            return node
        super().generic_visit(node)
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                kept = [stmt for stmt in block if id(stmt) not in self.markers]
                if not kept and field == "body":
                    kept = [templates.place(ast.Pass(), block[0])]
                setattr(node, field, kept)
        return node
