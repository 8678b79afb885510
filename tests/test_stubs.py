"""The type stub `python/ferroflow/_core.pyi` against the live extension `ferroflow._core`.

The stub is parsed with `ast` (never imported), so these checks see exactly what a type checker
sees: the names it declares, each function's parameters, and the Tensor class's members.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

_core = pytest.importorskip("ferroflow._core")

STUB = Path(__file__).resolve().parents[1] / "python" / "ferroflow" / "_core.pyi"

# Class metadata every class has in its own __dict__; not members a stub declares.
CLASS_METADATA = {"__doc__", "__module__", "__dict__", "__weakref__", "__qualname__"}


def _stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text(encoding="utf-8"), filename=str(STUB))


def _stub_module_names(tree: ast.Module) -> dict[str, ast.AST]:
    """Public module-level functions and classes of the stub (imports and _aliases skipped)."""
    names: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if not node.name.startswith("_"):
                names[node.name] = node
    return names


def _stub_class(tree: ast.Module, name: str) -> ast.ClassDef:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise AssertionError(f"{STUB.name} declares no class {name!r}")


def _is_property(fn: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "property" for d in fn.decorator_list)


def _class_members(cls: ast.ClassDef) -> tuple[dict[str, list[ast.FunctionDef]], set[str]]:
    """(methods and properties by name, overloads included; names of annotated attributes)."""
    defs: dict[str, list[ast.FunctionDef]] = {}
    attrs: set[str] = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            attrs.add(node.target.id)
        elif isinstance(node, ast.Assign):
            attrs.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return defs, attrs


_NO_DEFAULT = object()


def _stub_params(fn: ast.FunctionDef) -> list[tuple[str, inspect._ParameterKind, object]]:
    """(name, kind, default) for each parameter; defaults as literals, else the node's source."""
    a = fn.args
    positional = [(p, inspect.Parameter.POSITIONAL_ONLY) for p in a.posonlyargs]
    positional += [(p, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in a.args]
    defaults: list[object] = [_NO_DEFAULT] * (len(positional) - len(a.defaults))
    defaults += [_literal(d) for d in a.defaults]
    params = [(p.arg, kind, d) for (p, kind), d in zip(positional, defaults)]
    if a.vararg:
        params.append((a.vararg.arg, inspect.Parameter.VAR_POSITIONAL, _NO_DEFAULT))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        params.append(
            (p.arg, inspect.Parameter.KEYWORD_ONLY, _NO_DEFAULT if d is None else _literal(d))
        )
    if a.kwarg:
        params.append((a.kwarg.arg, inspect.Parameter.VAR_KEYWORD, _NO_DEFAULT))
    return params


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except ValueError:
        return ast.unparse(node)


def _live_params(sig: inspect.Signature) -> list[tuple[str, inspect._ParameterKind, object]]:
    return [
        (p.name, p.kind, _NO_DEFAULT if p.default is inspect.Parameter.empty else p.default)
        for p in sig.parameters.values()
    ]


def _describe(params: list[tuple[str, inspect._ParameterKind, object]]) -> str:
    parts = []
    for name, kind, default in params:
        prefix = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
        text = prefix.get(kind, "") + name
        if default is not _NO_DEFAULT:
            text += "=..." if default is Ellipsis else f"={default!r}"
        parts.append(text)
    return "(" + ", ".join(parts) + ")"


def _param_mismatches(
    what: str,
    stub: list[tuple[str, inspect._ParameterKind, object]],
    live: list[tuple[str, inspect._ParameterKind, object]],
) -> list[str]:
    """Differences in names, kinds and defaults. A positional-only parameter's name is not part
    of the interface, so only its position is compared. PyO3 writes some defaults (negative
    numbers) as `...` in `__text_signature__`; for those the stub need only have a default."""
    header = f"{what}: stub {_describe(stub)} != live {_describe(live)}"
    if len(stub) != len(live):
        return [f"{header}: {len(stub)} parameters in the stub, {len(live)} live"]
    problems = []
    for (s_name, s_kind, s_default), (l_name, l_kind, l_default) in zip(stub, live):
        if s_kind != l_kind:
            problems.append(
                f"{header}: {s_name!r} is {s_kind.description}, live {l_kind.description}"
            )
        elif s_name != l_name and l_kind != inspect.Parameter.POSITIONAL_ONLY:
            problems.append(f"{header}: parameter {s_name!r} is named {l_name!r} live")
        elif (s_default is _NO_DEFAULT) != (l_default is _NO_DEFAULT):
            problems.append(f"{header}: {l_name!r} has a default in only one of them")
        elif l_default not in (_NO_DEFAULT, Ellipsis) and (
            s_default != l_default or type(s_default) is not type(l_default)
        ):
            problems.append(f"{header}: {l_name!r} defaults to {s_default!r}, live {l_default!r}")
    return problems


def _live_module_names() -> dict[str, object]:
    return {n: getattr(_core, n) for n in dir(_core) if not n.startswith("_")}


def _fail(title: str, problems: list[str]) -> None:
    if problems:
        pytest.fail(f"{title} ({len(problems)}):\n  " + "\n  ".join(problems), pytrace=False)


def test_stub_declares_exactly_the_module_names():
    live = _live_module_names()
    stub = _stub_module_names(_stub_tree())
    problems = [f"missing from {STUB.name}: {n}" for n in sorted(live.keys() - stub.keys())]
    problems += [
        f"in {STUB.name} but not in ferroflow._core: {n}" for n in sorted(stub.keys() - live.keys())
    ]
    for name in sorted(live.keys() & stub.keys()):
        is_class = isinstance(live[name], type)
        if is_class != isinstance(stub[name], ast.ClassDef):
            kind = "a class" if is_class else "a function"
            problems.append(f"{name} is {kind} in ferroflow._core but not in {STUB.name}")
    _fail(f"{STUB.name} and ferroflow._core export different names", problems)


def test_module_function_parameters_match():
    stub = _stub_module_names(_stub_tree())
    problems = []
    for name, obj in sorted(_live_module_names().items()):
        if isinstance(obj, type) or not callable(obj):
            continue
        node = stub.get(name)
        if not isinstance(node, ast.FunctionDef):
            continue  # reported by test_stub_declares_exactly_the_module_names
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError) as e:
            problems.append(f"{name}: no signature on the live function ({e})")
            continue
        problems += _param_mismatches(name, _stub_params(node), _live_params(sig))
    _fail(f"module functions whose parameters differ from {STUB.name}", problems)


def _own_tensor_members() -> dict[str, object]:
    """Everything `_core.Tensor` defines itself (not inherited from object), dunders and private
    helpers included. PyO3 gives a class without a constructor a `__new__` that refuses to build
    it; the stub then rightly declares none, so it is left out here once that refusal is seen."""
    cls = _core.Tensor
    members = {n: v for n, v in vars(cls).items() if n not in CLASS_METADATA}
    if "__new__" in members:
        with pytest.raises(TypeError):
            cls()
        del members["__new__"]
    return members


def test_tensor_members_match():
    defs, attrs = _class_members(_stub_class(_stub_tree(), "Tensor"))
    live = _own_tensor_members()
    declared = defs.keys() | attrs
    problems = [f"missing from the stub's Tensor: {n}" for n in sorted(live.keys() - declared)]
    problems += [
        f"in the stub's Tensor but not on _core.Tensor: {n}" for n in sorted(declared - live.keys())
    ]
    for name in sorted(live.keys() & declared):
        value = live[name]
        if inspect.isgetsetdescriptor(value) or isinstance(value, property):
            if not (name in defs and all(_is_property(f) for f in defs[name])):
                problems.append(f"Tensor.{name} is a property on _core.Tensor, not in the stub")
        elif name in defs and any(_is_property(f) for f in defs[name]):
            problems.append(f"Tensor.{name} is a property in the stub, not on _core.Tensor")
        elif name in defs:
            try:
                sig = inspect.signature(value)
            except (TypeError, ValueError):
                continue  # no text signature to compare against
            live_params = _live_params(sig)[1:]  # self
            for fn in defs[name]:
                stub_params = _stub_params(fn)[1:]
                problems += _param_mismatches(f"Tensor.{name}", stub_params, live_params)
    _fail("Tensor members that differ between _core.Tensor and the stub", problems)
