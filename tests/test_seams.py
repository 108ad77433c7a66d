"""The seams of docs/architecture.md, checked: no import circle, private names kept inside
their modules, a service of plain handlers, and no test switch read from the environment.

Read from the source with ``ast``, so that an import inside a function counts as much as
one at the top.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "speakerbot"
MAX_FRONT_LINES = 199


@cache
def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


@cache
def _tree(name: str) -> ast.Module:
    return ast.parse(_modules()[name].read_text())


def _imported_from(name: str, node: ast.ImportFrom) -> str:
    """The absolute module an ``import from`` names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    base = name.split(".")
    if _modules()[name].name != "__init__.py":
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _imports(name: str) -> Iterator[tuple[str, str | None]]:
    """(module, imported name) for every import of the package's own code in a module."""
    for node in ast.walk(_tree(name)):
        if isinstance(node, ast.ImportFrom):
            source = _imported_from(name, node)
            if source.split(".")[0] == "speakerbot":
                for alias in node.names:
                    yield source, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "speakerbot":
                    yield alias.name, None


def _graph() -> dict[str, set[str]]:
    """Which of the package's modules each module imports (a submodule named by an
    ``import from`` of its package counts as that submodule)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name in modules:
        for source, imported in _imports(name):
            whole = f"{source}.{imported}" if imported else source
            target = whole if whole in modules else source
            if target in modules and target != name:
                graph[name].add(target)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        circles.append(sorted(component))
            elif target not in index:
                index[target] = low[target] = len(index)
                stack.append(target)
                on_stack.add(target)
                work.append((target, iter(sorted(graph[target]))))
            elif target in on_stack:
                low[node] = min(low[node], index[target])
    return circles


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_the_package() -> None:
    assert _circles(_graph()) == []


def test_private_names_stay_inside_their_modules() -> None:
    crossing = sorted(
        f"{name} imports {imported} from {source}"
        for name in _modules()
        for source, imported in _imports(name)
        if imported and imported.startswith("_") and not imported.startswith("__"))
    assert crossing == []


def _own_classes(name: str) -> set[str]:
    """Names in a module that stand for the package's own classes: those it defines, and
    those it imports from the package, with the modules it imports by an alias."""
    tree = _tree(name)
    own = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _imported_from(name, node).startswith("speakerbot"):
            own.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            own.update(alias.asname or alias.name for alias in node.names
                       if alias.name.startswith("speakerbot"))
    return own


def _root_name(node: ast.expr) -> str:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.value if not isinstance(node, ast.Call) else node.func
    return node.id if isinstance(node, ast.Name) else ""


def test_no_service_class_inherits_from_the_package() -> None:
    inheriting = []
    for name in _modules():
        if not name.startswith("speakerbot.service"):
            continue
        own = _own_classes(name)
        inheriting += [f"{name}.{node.name}({_root_name(base)})"
                       for node in ast.walk(_tree(name)) if isinstance(node, ast.ClassDef)
                       for base in node.bases if _root_name(base) in own]
    assert inheriting == []


def test_the_service_front_is_thin() -> None:
    (front,) = [node for node in _tree("speakerbot.service.game").body
                if isinstance(node, ast.ClassDef) and node.name == "GameService"]
    assert (front.end_lineno or 0) - front.lineno + 1 <= MAX_FRONT_LINES


def test_the_environment_is_read_only_by_config_and_entry_points() -> None:
    readers = sorted(
        f"{name}:{node.lineno}"
        for name in _modules()
        if not name.startswith(("speakerbot.config", "speakerbot.entrypoints"))
        for node in ast.walk(_tree(name))
        if (isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv", "environb"})
        or (isinstance(node, ast.Name) and node.id in {"environ", "getenv"}))
    assert readers == []


def test_no_event_type_is_found_by_discovery() -> None:
    discovering = sorted(
        f"{name}:{node.lineno}"
        for name in _modules()
        for node in ast.walk(_tree(name))
        if isinstance(node, ast.Attribute) and node.attr == "__subclasses__")
    assert discovering == []
