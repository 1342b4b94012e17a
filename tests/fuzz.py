"""Coverage-guided fuzz targets (atheris, which drives libFuzzer) for the readers and the model
loader. Each target takes any bytes and holds nbtext to its promise: no crash (only nbtext's
own errors, each a line for the user), and every document accounted for.

    python tests/fuzz.py TARGET [libFuzzer options] [CORPUS FOLDER]

tests/test_fuzz.py runs each target for a fixed number of runs from a seeded start.
"""

from __future__ import annotations

import csv
import mailbox
import os
import sys
import tempfile

import atheris
import numpy  # noqa: F401  (not instrumented: it is not nbtext's code)

with atheris.instrument_imports(include=["nbtext"]):
    from nbtext.errors import DataError, ModelError
    from nbtext.model import Model
    from nbtext.readers import Columns, LabelledCorpus, ReadReport
    from nbtext.readers.lines import CR_HEAD
    from nbtext.readers.mail import read_message
    from nbtext.readers.mailboxes import DELETED, mbox_messages
    from nbtext.readers.decoding import narrows
    from nbtext.readers.report import too_large

#: A small cap on one document, so that inputs past it are made too.
LIMIT = 4096
SCRATCH = tempfile.mkdtemp(prefix="nbtext-fuzz-")


def _file(name: str, data: bytes) -> str:
    path = os.path.join(SCRATCH, name)
    with open(path, "wb") as handle:
        handle.write(data)
    return path


def _line_count(data: bytes) -> int:
    """How many lines a line reader sees in ``data``: split at LF, or at CR alone where the start
    has CRs and no LF (with_lf_lines), a last line without its end counted."""
    head = data[:CR_HEAD]
    end = b"\r" if b"\n" not in head and b"\r" in head.rstrip(b"\r") else b"\n"
    return data.count(end) + (bool(data) and not data.endswith(end))


def lines(data: bytes) -> None:
    """TSV, JSONL and fastText lines (the first byte picks which): each line is a document, or
    skipped and counted, or the run stops with a DataError that names its line."""
    kind = ("tsv", "jsonl", "ft")[data[0] % 3] if data else "tsv"
    body = data[1:]
    path = _file(f"data.{kind}", body)
    corpus = LabelledCorpus([path], max_document_bytes=LIMIT)
    try:
        documents = list(corpus)
    except DataError:
        return
    numbers = {int(doc.source.rsplit(":", 1)[1]) for doc in documents}
    numbers |= {int(source.rsplit(":", 1)[1]) for sources in corpus.report.skipped.values() for source in sources}
    assert len(documents) == corpus.report.documents
    assert numbers == set(range(1, _line_count(body) + 1)), (numbers, _line_count(body))


def tables(data: bytes) -> None:
    """A CSV table with a header row: each row the csv module reads is a document or a blank line
    counted, or the run stops with a DataError that names its line."""
    path = _file("data.csv", b"label,text\n" + data)
    corpus = LabelledCorpus([path], columns=Columns(), max_document_bytes=LIMIT)
    try:
        documents = list(corpus)
    except DataError:
        return
    with open(path, encoding="utf-8-sig", errors="surrogateescape", newline="") as handle:
        # before Python 3.11 the csv module stops at a NUL, which the reader takes as a character
        rows = sum(1 for _ in csv.reader(line.replace("\0", "\ud800") for line in handle)) - 1
    assert len(documents) + len(corpus.report.skipped.get("blank line", [])) == rows


def mail(data: bytes) -> None:
    """One message, however broken its MIME: one document, never an exception."""
    report = ReadReport()
    doc = read_message(data, "message", "spam", report, ("from", "to", "subject", "content-type"))
    assert isinstance(doc.text, str) and report.documents == report.messages == 1


def mbox(data: bytes) -> None:
    """An mbox: the messages read, and those skipped (deleted, too large) or left in a message
    (a "From " line with no date), add up to the messages Python's mailbox reads."""
    path = _file("box.mbox", data)
    report = ReadReport()
    messages = list(mbox_messages(path, None, report, limit=LIMIT))
    if not data.startswith(b"From ") or narrows(data[:512]):  # no mbox to Python's mailbox, or in UTF-16
        return
    box = mailbox.mbox(path, create=False)
    try:
        theirs = len(box)
    finally:
        box.close()
    skipped = len(report.skipped.get(DELETED, [])) + len(report.skipped.get(too_large(LIMIT), []))
    assert len(messages) + skipped + len(report.from_lines) == theirs, (len(messages), skipped, report.from_lines,
                                                                          theirs)


def model(data: bytes) -> None:
    """Any bytes as a model file: a model, or a ModelError (an UnsafeModelError among them)."""
    path = _file("model.joblib", data)
    try:
        loaded = Model.load(path)
    except ModelError:
        return
    loaded.predict_log_proba(["refund my invoice", ""])


TARGETS = {"lines": lines, "tables": tables, "mail": mail, "mbox": mbox, "model": model}


def main() -> None:
    target = TARGETS[sys.argv[1]]

    def one_input(data: bytes) -> None:
        target(data)

    atheris.Setup([sys.argv[0], *sys.argv[2:]], one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
