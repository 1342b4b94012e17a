"""Shared test helpers: the real corpora (through ../shared/corpora/get) and a CLI runner."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result

from nbtext.cli import cli

REPO = Path(__file__).resolve().parent.parent
SHARED_GET = REPO.parent / "shared" / "corpora" / "get"
TICKETS = REPO / "corpora" / "support-tickets"


def library_guide_example() -> str:
    """The Python example of the library's guide (docs/guides/library.md), as a user would paste it."""
    section = (REPO / "docs" / "guides" / "library.md").read_text()
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def corpus_path(name: str) -> Path:
    """The unpacked shared corpus NAME; skip where ../shared is absent, fail under CI."""
    if not SHARED_GET.exists():
        message = f"corpus {name!r} needs ../shared/corpora beside the repository"
        if os.environ.get("CI"):
            pytest.fail(message + " (CI is set, so it must be there)")
        pytest.skip(message)
    done = subprocess.run([str(SHARED_GET), name], check=True, capture_output=True, text=True)
    return Path(done.stdout.strip())


def assert_same_counts(left: dict, right: dict) -> None:
    """Two models' stored counts (a model file's ``counts``, or ``FrozenCounts.to_dict()``) are
    equal byte for byte: the same terms, classes, entries, values and dtypes."""
    assert left.keys() == right.keys()
    for key in left:
        ours, theirs = left[key], right[key]
        if isinstance(ours, dict):
            assert ours.keys() == theirs.keys(), key
            assert all(ours[k].tobytes() == theirs[k].tobytes() for k in ours), key
        elif isinstance(ours, np.ndarray):
            assert ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes(), key
        else:
            assert ours == theirs, key


def run(args: list[str], *, input: str | bytes | None = None, expect: int | None = 0) -> Result:
    """Invoke nbtext in-process; on an unexpected exit code (any, with ``expect=None``) show
    everything it printed."""
    result = CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)
    if expect is not None and result.exit_code != expect:
        raise AssertionError(
            f"nbtext {' '.join(map(str, args))} exited {result.exit_code}, expected {expect}\n"
            f"--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
        )
    return result


def numpy_imports_by_itself(module: str) -> bool:
    """Whether ``import numpy`` alone imports ``module``, which nbtext then cannot avoid
    (numpy 1.24 imports numpy.ma, 2.4 does not)."""
    code = f"import sys, numpy; print({module!r} in sys.modules)"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "True\n"


def nbtext_process(*args: str, **kwargs) -> subprocess.Popen:
    """nbtext as a real process (for pipes, signals and cold starts)."""
    return subprocess.Popen([sys.executable, "-m", "nbtext", *map(str, args)], **kwargs)


def nbtext_command(folder: Path) -> Path:
    """An ``nbtext`` command in ``folder`` (made) that runs this Python's nbtext, as an install
    puts one on PATH: for tests that find it by PATH, as a user's shell, cron or procmail do."""
    folder.mkdir(parents=True, exist_ok=True)
    command = folder / "nbtext"
    command.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m nbtext "$@"\n')
    command.chmod(0o755)
    return command


def in_bash(script: str, **kwargs) -> subprocess.CompletedProcess:
    """``script`` run by bash, where ``nbtext`` is this Python's (for <(...) and named pipes)."""
    return subprocess.run(["bash", "-c", f'nbtext() {{ "{sys.executable}" -m nbtext "$@"; }}\n{script}'],
                          capture_output=True, text=True, timeout=300, **kwargs)


def on_a_terminal(*args: str, streams: tuple[str, ...] = ("stdout",), stdout=subprocess.DEVNULL,
                  escapes: bool = False) -> str:
    """What nbtext writes to a real terminal (a pseudo-terminal) on ``streams``, stdout, stderr
    or both, its escapes left out unless asked for; stdout goes to ``stdout`` where it is not
    among them."""
    import pty

    leader, follower = pty.openpty()
    process = nbtext_process(*args, stdout=follower if "stdout" in streams else stdout,
                             stderr=follower if "stderr" in streams else subprocess.DEVNULL)
    os.close(follower)
    written = b""
    with contextlib.suppress(OSError):  # Linux ends a pty whose other side closed with EIO
        while chunk := os.read(leader, 65536):
            written += chunk
    os.close(leader)
    assert process.wait() == 0
    shown = written.decode().replace("\r\n", "\n")
    return shown if escapes else re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown)


@pytest.fixture(scope="session")
def tickets_model(tmp_path_factory) -> Path:
    """A model trained through the CLI on the project's own corpus."""
    path = tmp_path_factory.mktemp("models") / "tickets.joblib"
    run(["train", TICKETS / "train", "-o", path])
    return path


@pytest.fixture(scope="session")
def sms(tmp_path_factory) -> Path:
    """SMS spam split by its published protocol: a folder with train.tsv (the first 30% of the
    lines) and test.tsv (the rest)."""
    lines = (corpus_path("sms-spam") / "SMSSpamCollection").read_bytes().splitlines(keepends=True)
    folder = tmp_path_factory.mktemp("sms")
    cut = int(len(lines) * 0.3)
    (folder / "train.tsv").write_bytes(b"".join(lines[:cut]))
    (folder / "test.tsv").write_bytes(b"".join(lines[cut:]))
    return folder


def assert_same_matrix(left, right) -> None:
    """Two CountMatrix objects hold the same rows, columns and values, exactly."""
    for part in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(left, part), getattr(right, part), err_msg=part)


def needs_compiled(module, what: str):
    """Skip where nbtext was built without a C compiler (``module`` is None), but fail under CI,
    which builds it."""
    return pytest.mark.skipif(module is None and not os.environ.get("CI"),
                              reason=f"nbtext was installed without a C compiler: no compiled {what}")
