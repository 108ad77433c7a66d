"""The engine is pure: no I/O, no clock, no global randomness, nothing imported that does them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import speakerbot.addresses
import speakerbot.engine

ENGINE = Path(speakerbot.engine.__file__).parent
# Pure modules outside the engine that it shares with the rest (held to the same rules).
SHARED = [Path(speakerbot.addresses.__file__)]
ALLOWED_MODULES = {
    "__future__", "bisect", "collections.abc", "copy", "dataclasses", "datetime", "decimal",
    "difflib", "enum",
    "fractions", "functools", "hashlib", "hmac", "idna", "itertools", "json", "math", "msgspec",
    "operator", "re", "string",
    "types", "typing", "speakerbot.addresses", "speakerbot.engine.durations",
}
FORBIDDEN_CALLS = {"now", "utcnow", "today", "time", "monotonic", "open", "random", "getenv"}


def _imports(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_engine_modules_import_only_pure_modules() -> None:
    sources = sorted(ENGINE.rglob("*.py")) + SHARED
    assert len(sources) >= 8
    for path in sources:
        tree = ast.parse(path.read_text(), str(path))
        for module in _imports(tree):
            assert module in ALLOWED_MODULES or module.startswith("speakerbot.engine"), (
                f"{path.name} imports {module}"
            )


def test_engine_code_never_reads_the_clock_or_files() -> None:
    for path in sorted(ENGINE.rglob("*.py")) + SHARED:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                assert name not in FORBIDDEN_CALLS, f"{path.name}:{node.lineno} calls {name}()"


def test_importing_the_engine_loads_no_io_library() -> None:
    probe = (
        "import sys, speakerbot.engine, speakerbot.engine.codec;"
        "bad = {'socket', 'sqlite3', 'sqlalchemy', 'smtplib', 'imaplib', 'jinja2', 'random',"
        " 'apscheduler', 'imapclient', 'aiosmtpd', 'email', 'asyncio', 'subprocess'};"
        "print(sorted(bad & set(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"
