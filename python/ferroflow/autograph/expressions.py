"""Expression rewrites done before statements are converted: `not` that works on symbolic
tensors, and `super()` that still works from inside a generated function."""

import ast

from ferroflow.autograph import templates
from ferroflow.autograph.analysis import SCOPES, own_scope_walk


def convert_not(body):
    """`not x` → `ag__.not_(x)` in `body` (in place): Python's `not` unless `x` is a symbolic
    tensor. Returns whether there was any."""
    converter = _NotToOperator()
    body[:] = [converter.visit(stmt) for stmt in body]
    return converter.changed


class _NotToOperator(ast.NodeTransformer):
    changed = False

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        self.changed = True
        return templates.expression("ag__.not_(ag__x)", node, ag__x=node.operand)

    def generic_visit(self, node):
        if isinstance(node, SCOPES):
            return node
        return super().generic_visit(node)


def name_super_arguments(body, function_node):
    """`super()` finds its class and instance through the frame it runs in; code moved into a
    generated function must name them: `super(__class__, self)`."""
    params = [*function_node.args.posonlyargs, *function_node.args.args]
    if not params:
        return
    for node in own_scope_walk(body):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "super"
            and not node.args
            and not node.keywords
        ):
            node.args = [
                templates.place(ast.Name(id="__class__", ctx=ast.Load()), node),
                templates.place(ast.Name(id=params[0].arg, ctx=ast.Load()), node),
            ]
