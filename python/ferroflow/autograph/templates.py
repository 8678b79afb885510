"""Builders for the code the converter generates. Generated nodes take the source position of
the user statement they replace, so a traceback through them still names the user's line."""

import ast
import textwrap


def statements(source, where, **substitutes):
    """Parses `source`, places every node at `where`, then puts the AST nodes in `substitutes`
    in place of the names `source` gives them (user code keeps its own positions)."""
    tree = ast.parse(textwrap.dedent(source))
    for node in ast.walk(tree):
        place(node, where)
    return _Substitute(substitutes).visit(tree).body


def expression(source, where, **substitutes):
    return statements(source, where, **substitutes)[0].value


def place(node, where):
    if "lineno" in node._attributes:
        node.lineno = where.lineno
        node.col_offset = where.col_offset
        node.end_lineno = getattr(where, "end_lineno", where.lineno)
        node.end_col_offset = getattr(where, "end_col_offset", where.col_offset)
    return node


def function(name, params, body, where, scope_declarations=()):
    """`def name(*params): <declarations> <body>`."""
    node = statements(f"def {name}({', '.join(params)}):\n    pass", where)[0]
    node.body = [*scope_declarations, *body] or [place(ast.Pass(), where)]
    return node


def declarations(names, declared, where):
    """`global`/`nonlocal` statements that make a generated function's assignments to `names`
    reach the converted function's variables, as the user's own statements did."""
    globals_ = [name for name in names if declared.get(name) == "global"]
    nonlocals = [name for name in names if declared.get(name) != "global"]
    out = []
    if globals_:
        out.append(place(ast.Global(names=globals_), where))
    if nonlocals:
        out.append(place(ast.Nonlocal(names=nonlocals), where))
    return out


def assign(name, value_source, where):
    return statements(f"{name} = {value_source}", where)[0]


class _Substitute(ast.NodeTransformer):
    def __init__(self, substitutes):
        self.substitutes = substitutes

    def visit_Name(self, node):
        return self.substitutes.get(node.id, node)
