"""The package's type hints hold: mypy over nbtext/, as pyproject.toml configures it."""

from __future__ import annotations

import subprocess
import sys

from .conftest import REPO


def test_mypy_finds_no_type_errors(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path)], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found")
