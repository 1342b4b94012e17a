"""Whatever comes in, nbtext answers or says why not: memory stays bounded on endless input,
options are held to where the maths holds, encodings are text encodings, and a file named on
the command line that gives no document is an error, the same for every command."""

from __future__ import annotations

import gzip
import resource
import shutil
import subprocess
import sys

import numpy as np
import pytest

from nbtext.analysis import Analyzer
from nbtext.errors import DataError
from nbtext.model import Model
from nbtext.readers import LabelledCorpus, ReadReport, iter_unlabelled

from .conftest import TICKETS, in_bash, nbtext_process, run

#: The cap asked for where a test makes documents past it: 1 MiB.
CAP = 1 << 20


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("bounds") / "tickets.joblib"
    run(["train", TICKETS / "train", "-o", path])
    return path


def peak_kilobytes(*args: str, stdin_command: str | None = None) -> tuple[int, subprocess.CompletedProcess]:
    """The largest resident size of an nbtext process (and its exit), run as a real process;
    with ``stdin_command``, a shell command's output is piped into it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if stdin_command is None:
        done = subprocess.run([sys.executable, "-m", "nbtext", *args], capture_output=True, text=True, timeout=300)
    else:
        done = in_bash(f"{stdin_command} | nbtext {' '.join(args)}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(after, before), done


def test_dev_zero_named_is_skipped_with_memory_bounded(model):
    """``predict MODEL /dev/zero`` grew until the kernel killed it. No more than the cap of a
    document is read; it is skipped and counted, and, named but giving nothing, an error."""
    peak, done = peak_kilobytes("predict", str(model), "/dev/zero")
    assert done.returncode == 1, done.stderr
    assert "1 skipped: larger than 64 MiB, the most one document may be" in done.stderr
    assert "Error: /dev/zero gave no document: skipped, larger than 64 MiB" in done.stderr
    assert peak < 400_000, f"{peak} KB"


def test_an_endless_line_on_stdin_is_skipped_with_memory_bounded(model):
    """A gigabyte line on stdin, between two short ones: they are answered, it is skipped and
    counted by its line number, and memory stays far below its size."""
    peak, done = peak_kilobytes("predict", str(model), "--max-document-size", "16M", "--format", "jsonl",
                                stdin_command="{ echo 'refund please'; yes | tr -d '\\n' | head -c 1000000000; "
                                              "echo; echo 'parcel lost'; }")
    assert done.returncode == 0, done.stderr
    assert [line.split(",")[0] for line in done.stdout.splitlines()] == ['{"line": 1', '{"line": 3']
    assert "1 skipped: larger than 16 MiB, the most one document may be" in done.stderr
    assert peak < 400_000, f"{peak} KB"


def test_a_message_too_large_in_an_mbox_is_skipped_and_the_others_read(tmp_path, model):
    box = tmp_path / "inbox.mbox"
    big = b"x" * (2 * CAP)
    box.write_bytes(b"From a@b.org Thu Sep 26 11:11:54 2002\nSubject: one\n\nrefund please\n\n"
                    b"From a@b.org Thu Sep 26 11:12:54 2002\nSubject: two\n\n" + big + b"\n\n"
                    b"From a@b.org Thu Sep 26 11:13:54 2002\nSubject: three\n\nparcel lost\n")
    result = run(["predict", model, box, "--max-document-size", "1M", "-v"])
    assert [line.split("\t")[0] for line in result.stdout.splitlines()] == [f"{box}:1", f"{box}:3"]
    assert f"1 skipped: larger than 1 MiB, the most one document may be\n  {box}:2\n" in result.stderr
    # the same, compressed, read as it unpacks; and piped
    (tmp_path / "inbox.mbox.gz").write_bytes(gzip.compress(box.read_bytes()))
    packed = run(["predict", model, tmp_path / "inbox.mbox.gz", "--input-format", "mbox", "--max-document-size", "1M"])
    assert len(packed.stdout.splitlines()) == 2 and "1 skipped: larger than 1 MiB" in packed.stderr
    piped = run(["predict", model, "--input-format", "email", "--max-document-size", "1M"], input=box.read_bytes())
    assert len(piped.stdout.splitlines()) == 2 and "1 skipped: larger than 1 MiB" in piped.stderr


def test_a_compressed_message_that_unpacks_past_the_cap_is_skipped(tmp_path, model):
    """A few kilobytes of gzip that unpack to 100 MB, in a maildir (as Dovecot keeps messages
    compressed): skipped and counted, unpacked no further than the cap."""
    maildir = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (maildir / sub).mkdir(parents=True)
    (maildir / "cur" / "1600000000.M1P1.host:2,S").write_bytes(gzip.compress(b"Subject: hi\n\n" + bytes(100 << 20)))
    (maildir / "cur" / "1600000001.M1P1.host:2,S").write_bytes(b"Subject: refund\n\nmy invoice\n")
    result = run(["predict", model, maildir])
    assert len(result.stdout.splitlines()) == 1
    assert "1 skipped: larger than 64 MiB, the most one document may be" in result.stderr


def test_a_long_line_of_a_line_file_is_skipped_by_its_line(tmp_path):
    data = tmp_path / "data.tsv"
    data.write_bytes(b"billing\trefund please\nshipping\t" + b"far " * CAP + b"\ntechnical\tapp crashes\n"
                     b"billing\tinvoice wrong\nshipping\tparcel lost\n")
    corpus = LabelledCorpus([str(data)], max_document_bytes=CAP)
    assert [doc.source for doc in corpus] == [f"{data}:1", f"{data}:3", f"{data}:4", f"{data}:5"]
    assert corpus.report.skipped == {"larger than 1 MiB, the most one document may be": [f"{data}:2"]}


def test_a_table_row_past_the_cap_is_an_error_naming_its_line(tmp_path):
    """A quoted CSV field may hold line breaks, so only its quotes say where a row ends: a row
    past the cap cannot be skipped safely, and stops the run at its line, read no further."""
    data = tmp_path / "data.csv"
    data.write_text('label,text\nbilling,"refund"\nshipping,"' + "far\n" * (CAP // 3) + '"\n')
    with pytest.raises(DataError, match=rf"{data}:3: a row of more than 1 MiB, the most one document may be"):
        list(LabelledCorpus([str(data)], max_document_bytes=CAP))


@pytest.mark.parametrize("given, size", [("64M", 64 << 20), ("1G", 1 << 30), ("500K", 500 << 10), ("2048", 2048),
                                         ("1MiB", 1 << 20), ("1MB", 10**6), ("1.5M", 3 << 19)])
def test_a_size_is_read_as_head_reads_one(given, size, model):
    assert run(["predict", model, "--max-document-size", given], input="refund\n").exit_code == 0
    from nbtext.cli.options import ByteSize

    assert ByteSize().convert(given, None, None) == size


@pytest.mark.parametrize("given", ["0", "-5", "lots", "1Ki", "2T", "1X"])
def test_a_size_that_is_none_is_a_usage_error(given, model):
    result = run(["predict", model, "--max-document-size", given], input="refund\n", expect=2)
    assert "Invalid value for '--max-document-size'" in result.stderr


def test_filter_passes_a_message_past_the_cap_through_whole_and_says_so(tmp_path):
    """One message larger than the cap: filter gives no verdict (exit 3), and with --passthrough
    the message still goes on, every byte of it, as it does on any error."""
    spam = tmp_path / "filter.joblib"
    run(["train", TICKETS / "train", "-o", spam, "--spam-label", "billing"])
    message = b"Subject: refund\n\n" + b"my invoice is wrong\n" * 200_000
    done = subprocess.run([sys.executable, "-m", "nbtext", "filter", "--passthrough", str(spam),
                           "--max-document-size", "1M"], input=message, capture_output=True)
    assert done.returncode == 3 and done.stdout == message
    assert b"<stdin>: a message of more than 1 MiB, the most one document may be" in done.stderr


@pytest.mark.parametrize("encoding", ["rot13", "base64", "hex", "zlib", "bz2", "uu", "quopri", "undefined"])
@pytest.mark.parametrize("command", ["train", "eval", "predict"])
def test_an_encoding_that_is_no_text_encoding_is_a_usage_error(encoding, command, model, tmp_path):
    """``--encoding rot13`` (or base64, hex, zlib, bz2, uu) ended in a LookupError traceback:
    Python's codecs turn text into text, or bytes into bytes, with them."""
    args = {"train": ["train", TICKETS / "train", "-o", tmp_path / "m.joblib"],
            "eval": ["eval", model, TICKETS / "test"], "predict": ["predict", model]}[command]
    result = run([*args, "--encoding", encoding], input="refund\n", expect=2)
    assert f"Error: Invalid value for '--encoding': {encoding}" in result.stderr
    assert "try utf-8, latin-1 or cp1252" in result.stderr
    with pytest.raises(DataError, match="try utf-8"):
        iter_unlabelled(["-"], ReadReport(), encoding=encoding).__next__()


def test_alpha_is_held_to_where_probabilities_hold(model, tmp_path):
    """``--alpha 1e308`` was taken, and gave NaN probabilities with numpy's warnings. Past 1e9
    it is refused, with the range; at 1e9, the probabilities are finite and sum to one."""
    refused = run(["train", TICKETS / "train", "-o", tmp_path / "m.joblib", "--alpha", "1e308"], expect=2)
    assert "Invalid value for '--alpha': 1e+308 is not in the range 0<x<=1000000000.0." in refused.stderr
    run(["train", TICKETS / "train", "-o", tmp_path / "m.joblib", "--alpha", "1e9"])
    proba = Model.load(tmp_path / "m.joblib").predict_proba(["refund please", "parcel lost"])
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1)
    grid = run(["tune", TICKETS / "train", "-o", tmp_path / "t.joblib", "--grid", '{"alpha": [1e308]}'], expect=2)
    assert "alpha 1e+308: the smoothing must be a number above 0 and at most 1e+09" in grid.stderr


def test_processes_are_held_to_what_a_machine_runs(model):
    result = run(["predict", model, "--jobs", "100000"], input="refund\n", expect=2)
    assert "Invalid value for '-j' / '--jobs': 100000 is not in the range 1<=x<=256." in result.stderr
    cluster = run(["predict", model, "--dask", "local:100000", TICKETS / "test"], expect=1)
    assert "--dask local:100000: a local cluster of 1 to 256 worker processes" in cluster.stderr


def test_any_ngram_range_ends_where_the_text_does():
    """``--tokens marks --ngram-range 1,20000`` (the plain path) ran for minutes: it made each n
    up to 20,000 for each document. N-grams longer than a text are none."""
    text = "Earn $500 NOW!! or never"
    assert Analyzer(tokens="marks", ngram_range=(1, 10**9))(text) == Analyzer(tokens="marks", ngram_range=(1, 8))(text)
    assert Analyzer(tokens="marks", ngram_range=(20, 10**9))(text) == []


@pytest.mark.parametrize("command", ["predict", "filter", "learn"])
def test_a_file_named_that_gives_no_document_is_an_error_for_every_command(command, model, tmp_path):
    """``predict MODEL /bin/ls`` exited 0 with no output, where filter exited 3 and eval 1. One
    policy: an input named on the command line that gives no document (a file skipped, a
    folder of which every file is) is an error, after the other inputs are answered; files
    skipped inside a folder that gave others are counted, not errors; an empty folder is none."""
    spam = tmp_path / "filter.joblib"
    run(["train", TICKETS / "train", "-o", spam, "--spam-label", "billing"])
    good = sorted((TICKETS / "test" / "billing").iterdir())[0]
    binaries = tmp_path / "bins"
    binaries.mkdir()
    shutil.copyfile(sys.executable, binaries / "python")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    shutil.copyfile(sys.executable, mixed / "python")
    shutil.copyfile(good, mixed / good.name)
    (tmp_path / "empty").mkdir()
    failed = {"predict": 1, "filter": 3, "learn": 1}[command]

    def call(*paths):
        if command == "learn":
            return run(["learn", spam, "--spam", *paths], expect=None)
        return run([command, model if command == "predict" else spam, *paths], expect=None)

    named = call(good, sys.executable) if command != "filter" else call(binaries)
    assert named.exit_code == failed
    assert " gave no document: " in named.stderr.splitlines()[-1]
    if command == "predict":
        assert named.stdout.startswith(f"{good}\t")  # the others answered first
    if command == "learn":
        assert Model.load(spam).summary.get("learned") is None  # nothing learned from the rest either
    assert call(binaries).exit_code == failed
    assert call(mixed).exit_code == 0 and "1 skipped: not text" in call(mixed).stderr
    assert call(tmp_path / "empty").exit_code == 0


def test_train_refuses_to_write_a_model_without_a_data_folder_it_was_given(tmp_path):
    binaries = tmp_path / "bins" / "misc"
    binaries.mkdir(parents=True)
    shutil.copyfile(sys.executable, binaries / "python")
    result = run(["train", TICKETS / "train", tmp_path / "bins", "-o", tmp_path / "m.joblib"], expect=1)
    assert f"Error: {tmp_path / 'bins'} gave no document: every entry of it was skipped" in result.stderr
    assert not (tmp_path / "m.joblib").exists()


def test_learn_still_takes_a_quiet_nights_empty_maildir(tmp_path):
    spam = tmp_path / "filter.joblib"
    run(["train", TICKETS / "train", "-o", spam, "--spam-label", "billing"])
    junk = tmp_path / "Junk"
    for sub in ("cur", "new", "tmp"):
        (junk / sub).mkdir(parents=True)
    result = run(["learn", spam, "--spam", junk / "new"])
    assert "nothing to learn" in result.stderr


def test_a_worker_process_stays_within_bounds_too(model, tmp_path):
    """With --jobs, the workers read the folders' files themselves: the cap goes with them."""
    folder = tmp_path / "docs" / "x"
    folder.mkdir(parents=True)
    (folder / "big.txt").write_bytes(b"word " * CAP)
    (folder / "small.txt").write_text("refund please")
    process = nbtext_process("predict", model, tmp_path / "docs", "--jobs", "2", "--max-document-size", "1M",
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0 and out.decode().count("\n") == 1 and b"1 skipped: larger than 1 MiB" in err
