"""Every ```python block of the README runs as written, in a fresh process on a fresh embedded store."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text("utf-8"), flags=re.S)


@pytest.mark.models
@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_block_runs(code, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLEET_MEMORY_")}
    env["FLEET_MEMORY_HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]


def test_readme_starts_with_the_two_commands():
    text = README.read_text("utf-8")
    first_block = re.search(r"```bash\n(.*?)```", text, flags=re.S).group(1).strip().splitlines()
    assert [line.split("#")[0].strip() for line in first_block] == ["make demo", "make test"]
    assert "make test" in (README.parent / ".ci" / "run").read_text("utf-8")
