"""From a live function to the AST of its source, and from the converted AST back to a live
function with the original's globals, closure cells and defaults, compiled under the original
file name and line numbers so that tracebacks point at the user's code."""

import __future__

import ast
import functools
import inspect
import operator
import types

from ferroflow.autograph import templates

_FACTORY = "ag__factory"
OPERATORS_NAME = "ag__"  # the name the converted code calls its runtime helpers by
_FUTURE_FLAGS = functools.reduce(
    operator.or_, (getattr(__future__, name).compiler_flag for name in __future__.all_feature_names)
)


class SourceUnavailable(Exception):
    """No source (exec, REPL, builtins) or source that no longer matches the code object."""


def parse_function(func):
    """The `FunctionDef` of `func`, at the line numbers and columns of its source file."""
    try:
        # From the code object: a function's `__wrapped__` (functools.wraps) must not redirect.
        lines, first_line = inspect.getsourcelines(func.__code__)
    except (OSError, TypeError) as e:
        raise SourceUnavailable(str(e)) from None
    source = "".join(lines)
    indented = lines[0][:1] in (" ", "\t")
    if indented:
        # A method or nested function: a block around it parses it without moving its columns.
        source = "if 1:\n" + source
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        raise SourceUnavailable(f"the source does not parse: {e}") from None
    node = tree.body[0].body[0] if indented else tree.body[0]
    owner = owner_class(func)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise SourceUnavailable("the source is not a def statement")
    if node.name != func.__code__.co_name or _arg_names(node, owner) != _code_arg_names(func):
        raise SourceUnavailable("the source on disk does not match the function")
    ast.increment_lineno(node, first_line - (2 if indented else 1))
    return node


def owner_class(func):
    """The name of the innermost class around `func`'s definition, or None: private names are
    mangled with it, and `super()` needs its `__class__` cell. In a qualified name a function
    is followed by `<locals>`, a class by one of its members."""
    parts = func.__qualname__.split(".")
    for name, following in zip(parts[-2::-1], parts[:0:-1]):
        if name != "<locals>" and following != "<locals>":
            return name
    return None


def compile_function(node, func):
    """The code object of the converted `node`. The def is compiled inside a factory function
    taking the original's free variables, so they stay free variables (closure cells), inside
    a class of the owner's name when there is one."""
    owner = owner_class(func)
    # Inside a class statement, the class provides `__class__` itself.
    free = [name for name in func.__code__.co_freevars if name != "__class__" or owner is None]
    params = ", ".join([OPERATORS_NAME, *free])
    factory = templates.statements(f"def {_FACTORY}({params}):\n    pass", node)[0]
    # The def binds its name in the factory; a recursive call must still find what it found
    # before: a global, unless the name was a free variable already.
    own_name = [] if node.name in free else [templates.place(ast.Global(names=[node.name]), node)]
    factory.body = [*own_name, node]
    path = [_FACTORY, node.name]
    outer = factory
    if owner is not None:
        outer = templates.statements(f"class {owner}:\n    pass", node)[0]
        outer.body = [factory]
        path.insert(0, owner)
    module = ast.fix_missing_locations(ast.Module(body=[outer], type_ignores=[]))
    flags = func.__code__.co_flags & _FUTURE_FLAGS
    code = compile(module, func.__code__.co_filename, "exec", flags=flags, dont_inherit=True)
    for name in path:
        code = next(
            c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name
        )
    return code


def make_function(func, code, operators_module):
    """A function running `code` with the globals, closure cells and defaults of `func`."""
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    cells[OPERATORS_NAME] = types.CellType(operators_module)
    closure = tuple(cells[name] for name in code.co_freevars)
    new = types.FunctionType(code, func.__globals__, func.__name__, func.__defaults__, closure)
    new.__kwdefaults__ = func.__kwdefaults__
    new.__qualname__ = func.__qualname__
    new.__module__ = func.__module__
    new.__doc__ = func.__doc__
    new.__annotations__ = func.__annotations__
    new.__dict__.update(func.__dict__)
    return new


def _arg_names(node, owner):
    args = node.args
    names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return [_mangle(name, owner) for name in names]


def _code_arg_names(func):
    code = func.__code__
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return list(code.co_varnames[:count])


def _mangle(name, owner):
    if owner is None or not name.startswith("__") or name.endswith("__"):
        return name
    return f"_{owner.lstrip('_')}{name}"
