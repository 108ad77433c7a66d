"""The house rules of docs/architecture.md, checked: small modules, short and simple functions.

Migrations are exempt: each is a flat list of table definitions, written once and never
changed.
"""

from __future__ import annotations

import ast
from pathlib import Path

from radon.complexity import cc_rank, cc_visit
from radon.visitors import Class, Function

PACKAGE = Path(__file__).resolve().parents[1] / "speakerbot"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
WORST_GRADE = "C"


def _sources() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "migrations" not in path.parts)


def test_the_package_is_found() -> None:
    assert len(_sources()) > 50


def test_no_module_is_over_500_lines() -> None:
    long = {str(path.relative_to(PACKAGE)): lines for path in _sources()
            if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES}
    assert long == {}


def test_no_function_is_over_60_lines() -> None:
    long = {}
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}"] = lines
    assert long == {}


def _blocks(source: str) -> list[Function]:
    """Every function, method and closure of a module, however deeply nested."""
    found: dict[tuple[int, int, str], Function] = {}
    waiting: list[Function | Class] = list(cc_visit(source))
    while waiting:
        block = waiting.pop()
        if isinstance(block, Class):
            waiting += block.methods + block.inner_classes
        else:
            found[(block.lineno, block.col_offset, block.name)] = block
            waiting += block.closures
    return list(found.values())


def test_the_complexity_check_sees_methods() -> None:
    source = "class A:\n    def f(self, x):\n" + "".join(
        f"        if x == {n}:\n            return {n}\n" for n in range(25)) + "        return 0\n"
    assert [cc_rank(block.complexity) for block in _blocks(source)] == ["D"]


def test_no_function_is_more_complex_than_grade_c() -> None:
    worse = {}
    for path in _sources():
        for block in _blocks(path.read_text()):
            grade = cc_rank(block.complexity)
            if grade > WORST_GRADE:
                worse[f"{path.relative_to(PACKAGE)}:{block.lineno} {block.name}"] = grade
    assert worse == {}
