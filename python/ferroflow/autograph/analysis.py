"""Facts about the names a piece of a function's AST binds and reads in the function's own scope:
what the converter needs to choose the state variables of a converted `if`, `while` or `for`."""

import ast
import collections

# Nodes whose bodies run in a scope of their own: their assignments are not the function's.
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
LOOPS = (ast.For, ast.While, ast.AsyncFor)
# Statements whose blocks may run zero times or stop part way; `Match`/`TryStar` are newer Pythons'.
_UNPREDICTABLE = tuple(
    getattr(ast, name)
    for name in ("For", "While", "AsyncFor", "Try", "TryStar", "Match")
    if hasattr(ast, name)
)


def own_scope_walk(nodes, skip=()):
    """Every node under `nodes` that runs in their scope, not descending into nested functions,
    lambdas and classes (yielded themselves) nor into nodes of the types in `skip`."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, SCOPES) or isinstance(node, skip):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


class _Names(ast.NodeVisitor):
    def __init__(self):
        self.bound = {}  # a dict keeps first-binding order, so generated code is deterministic
        self.read = set()

    def bind(self, name):
        self.bound.setdefault(name, None)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.read.add(node.id)
        else:
            self.bind(node.id)

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name):
            self.read.add(node.target.id)
        self.generic_visit(node)

    def visit_NamedExpr(self, node):
        self.bind(node.target.id)
        self.visit(node.value)

    def visit_FunctionDef(self, node):
        self.bind(node.name)
        for expr in node.decorator_list:
            self.visit(expr)
        self.visit(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        self._nested(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.bind(node.name)
        for expr in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(expr)
        self._nested(node)

    def visit_Lambda(self, node):
        self.visit(node.args)
        self._nested(node)

    def _nested(self, scope):
        # A nested function may run at any later time: what it reads of this scope counts as
        # read here (not its own parameters and locals).
        self.read.update(free_reads(scope))

    def _comprehension(self, node):
        # Its loop targets live in the comprehension's own scope; a walrus in it binds here.
        for generator in node.generators:
            self.visit(generator.iter)
            for condition in generator.ifs:
                self.visit(condition)
        for field in ("elt", "key", "value"):
            if hasattr(node, field):
                self.visit(getattr(node, field))

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Import(self, node):
        for alias in node.names:
            self.bind(alias.asname or alias.name.split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node):
        if node.name:
            self.bind(node.name)
        self.generic_visit(node)

    # `match` patterns (Python 3.10+) bind through these fields.
    def visit_MatchAs(self, node):
        if node.name:
            self.bind(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node):
        if node.name:
            self.bind(node.name)

    def visit_MatchMapping(self, node):
        if node.rest:
            self.bind(node.rest)
        self.generic_visit(node)


def _collect(nodes):
    names = _Names()
    for node in nodes:
        names.visit(node)
    return names


def bound_names(nodes):
    """Names the code binds (assigns, deletes, imports, defines) in its own scope, in order."""
    return list(_collect(nodes).bound)


def read_names(nodes):
    """Names the code reads, including reads by functions and lambdas defined in it."""
    return _collect(nodes).read


def nested_read_counts(nodes):
    """How many times functions, lambdas and classes defined in the code read each name of
    the code's scope."""
    counts = collections.Counter()
    for node in own_scope_walk(nodes):
        if isinstance(node, SCOPES):
            counts.update(free_reads(node))
    return counts


def free_reads(scope):
    """How many times a function, lambda or class (``scope``) reads each name of the scopes
    around it: its reads less its own parameters and locals (a lambda's `x` is not the
    enclosing function's `x`), with the free reads of the scopes nested in it. Decorators,
    defaults and annotations count too (they are read where the scope is defined)."""
    body = [scope.body] if isinstance(scope, ast.Lambda) else list(scope.body)
    outside = []  # evaluated in the enclosing scope
    if not isinstance(scope, ast.Lambda):
        outside += scope.decorator_list
    if isinstance(scope, ast.ClassDef):
        outside += [*scope.bases, *scope.keywords]
    else:
        outside.append(scope.args)
        if getattr(scope, "returns", None) is not None:
            outside.append(scope.returns)
    declared = declared_names(body)
    own = {x for x in bound_names(body) if x not in declared}
    if not isinstance(scope, ast.ClassDef):
        own.update(_parameters(scope.args))
    counts = collections.Counter()
    for node in outside:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                counts[sub.id] += 1
    for node in own_scope_walk(body):
        if isinstance(node, SCOPES):
            # A class's names are not visible in the functions nested in it.
            hidden = set() if isinstance(scope, ast.ClassDef) else own
            counts.update({k: n for k, n in free_reads(node).items() if k not in hidden})
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in own:
            counts[node.id] += 1
    return counts


def _parameters(args):
    names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def declared_names(nodes):
    """{name: "global" or "nonlocal"} for the `global`/`nonlocal` statements of the scope."""
    declared = {}
    for node in own_scope_walk(nodes):
        if isinstance(node, ast.Global):
            declared.update(dict.fromkeys(node.names, "global"))
        elif isinstance(node, ast.Nonlocal):
            declared.update(dict.fromkeys(node.names, "nonlocal"))
    return declared


def definitely_bound(stmts):
    """Names bound on every path through `stmts` (a safe under-estimate: loops and `try` count
    for nothing)."""
    names = set()
    for stmt in stmts:
        if isinstance(stmt, ast.If):
            names |= definitely_bound(stmt.body) & definitely_bound(stmt.orelse)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            names |= set(bound_names([item for item in stmt.items])) | definitely_bound(stmt.body)
        elif isinstance(stmt, _UNPREDICTABLE):
            continue
        else:
            names |= set(bound_names([stmt]))
    return names
