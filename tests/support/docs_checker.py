"""The Python checker of docs/verifying.md, taken as a reader would copy it and run alone."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from .patience import patience

DOC = Path(__file__).resolve().parents[2] / "docs" / "verifying.md"


def docs_checker() -> str:
    """Return the one fenced ``python`` block of docs/verifying.md."""
    blocks = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(encoding="utf-8"),
                        re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, "docs/verifying.md must hold exactly one python block"
    return str(blocks[0])


def run_docs_checker(export: Path) -> subprocess.CompletedProcess[str]:
    """Run the docs' checker on ``export`` in an isolated interpreter (no speakerbot)."""
    script = export.parent / "check_draws.py"
    script.write_text(docs_checker(), encoding="utf-8")
    return subprocess.run([sys.executable, "-I", str(script), str(export)], cwd=export.parent,
                          capture_output=True, text=True, timeout=patience(60),
                          check=False)
