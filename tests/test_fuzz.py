"""Each fuzz target of tests/fuzz.py, run by atheris (libFuzzer, guided by the coverage of
nbtext's own code) for a fixed number of inputs from a seeded start and a few real seeds: no
crash, and every document accounted for. A failing input is left in the test's folder, and
its bytes are shown."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import TICKETS, run

FUZZ = Path(__file__).with_name("fuzz.py")
#: Inputs tried per target: ten to twenty seconds each under Python 3.11 on this project's machines.
RUNS = {"lines": 15_000, "tables": 15_000, "mail": 50_000, "mbox": 30_000, "model": 15_000}


def seeds(target: str, folder: Path) -> None:
    """A few inputs to start from, of the kind each target reads."""
    tickets = sorted((TICKETS / "train" / "billing").iterdir())[:3]
    texts = [path.read_bytes() for path in tickets]
    examples = {
        "lines": [b"\x00billing\t" + texts[0] + b"shipping\tparcel lost\n\nlabel\ttext\n",
                  b'\x01{"label": "a", "text": "hi"}\n{"label": true, "text": "x"}\n',
                  b"\x02__label__a hello world\r__label__b hi\r"],
        "tables": [b'billing,"a ""quoted"" field\nover two lines"\n\nshipping,plain\n', b"a;b\n1;2\n"],
        "mail": [b"Subject: =?utf-8?q?caf=C3=A9?=\nContent-Type: multipart/alternative; boundary=b\n\n--b\n"
                 b"Content-Type: text/html; charset=gb2312\n\n<p>hi</p>\n--b--\n", texts[0]],
        "mbox": [b"From a@b.org Thu Sep 26 11:11:54 2002\nSubject: 1\n\nFrom what I saw\n\n"
                 b"From x@[10.0.0.1] [ufa]  Thu Sep 26 11:12:01 2002\nX-Status: D\n\nhi\n",
                 b"From a\nSubject: 1\n\nFrom b\nSubject: 2\n"],
    }
    if target == "model":
        model = folder / "seed.joblib"
        run(["train", TICKETS / "train", "-o", model, "--ngram-range", "1,1", "--min-df", "10"])
        examples["model"] = [model.read_bytes()]
        model.unlink()
    for i, data in enumerate(examples[target]):
        (folder / f"seed-{i}").write_bytes(data)


@pytest.mark.parametrize("target", sorted(RUNS))
def test_fuzzing_finds_no_crash_and_no_document_unaccounted(target, tmp_path):
    try:
        import atheris  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("atheris, a test extra, is not installed (CI is set, so it must be)")
        pytest.skip("the fuzzer, atheris, is a test extra: pip install -e '.[test]'")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seeds(target, corpus)
    # The count of inputs ends the run, not a clock: a slower machine or an older dependency
    # tries the same inputs for longer (the mail target, 18 s under Python 3.11, took 121 s
    # under 3.10 with charset-normalizer 3.3), and the subprocess's timeout catches a hang.
    done = subprocess.run([sys.executable, str(FUZZ), target, f"-runs={RUNS[target]}", "-seed=1",
                           "-max_len=8192", "-rss_limit_mb=4096",
                           f"-artifact_prefix={tmp_path}{os.sep}", str(corpus)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    found = sorted(path for path in tmp_path.iterdir() if path.name.startswith(("crash-", "timeout-", "oom-")))
    shown = "".join(f"\n{path.name}: {path.read_bytes()!r}" for path in found)
    assert done.returncode == 0 and not found, done.stderr[-3000:] + shown
    assert f"Done {RUNS[target]:d} runs" in done.stderr
