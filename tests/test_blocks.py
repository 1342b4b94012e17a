"""Line files and tables read in byte ranges (as a cluster's workers read them): the parts together
give the documents of the whole file, named by the same lines, and what was read is reported
alike, whatever the cut; a CSV that cannot be cut safely is an error, never a split record."""

from __future__ import annotations

import csv
import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbtext.errors import DataError
from nbtext.readers import LabelledCorpus, ReadReport
from nbtext.readers.blocks import blocks_of, byte_ranges, line_file, scan
from nbtext.readers.tables import Columns

from .conftest import corpus_path


def in_parts(path, fmt, columns=None, block_bytes=4096):
    """The documents of ``path`` read part by part, and the report of all the parts."""
    file = line_file(str(path), fmt, columns=columns)
    ranges = byte_ranges(file, block_bytes)
    report, documents = ReadReport(), []
    for block in blocks_of(file, ranges, [scan(file, start, end) for start, end in ranges]):
        documents += block.read(report)
    return documents, report, len(ranges)


def whole(path, fmt, columns=None):
    corpus = LabelledCorpus([str(path)], input_format=fmt, columns=columns)
    return list(corpus), corpus.report


def assert_read_alike(path, fmt, columns=None, block_bytes=4096):
    (parts, parts_report, count), (documents, report) = in_parts(path, fmt, columns, block_bytes), whole(path, fmt,
                                                                                                           columns)
    assert count > 1 or block_bytes >= path.stat().st_size
    assert [(d.text, d.label, d.source, d.values) for d in parts] == \
           [(d.text, d.label, d.source, d.values) for d in documents]
    for name in ("documents", "labels", "replaced", "empty", "skipped", "past_ascii", "missing_values"):
        assert getattr(parts_report, name) == getattr(report, name), name
    assert sorted(parts_report.texts) == sorted(report.texts)
    return documents


@pytest.fixture(scope="module")
def sms_rows():
    """The SMS spam collection's (label, text) rows, as bytes decode them (some are not UTF-8)."""
    raw = (corpus_path("sms-spam") / "SMSSpamCollection").read_bytes()
    return [line.decode("utf-8", "replace").split("\t", 1) for line in raw.splitlines()]


@pytest.mark.parametrize("block_bytes", [997, 4096, 65536])
def test_the_sms_tsv_read_in_parts_is_read_as_whole(block_bytes):
    path = corpus_path("sms-spam") / "SMSSpamCollection"
    documents = assert_read_alike(path, "tsv", block_bytes=block_bytes)
    assert len(documents) == 5574 and documents[-1].source.endswith("SMSSpamCollection:5574")


def test_crlf_lines_a_header_and_blank_lines_in_parts(tmp_path, sms_rows):
    path = tmp_path / "sms.tsv"
    lines = ["label\ttext"] + [f"{label}\t{text}" if i % 50 else "" for i, (label, text) in enumerate(sms_rows)]
    path.write_bytes("\r\n".join(lines).encode())
    documents = assert_read_alike(path, None, block_bytes=3001)
    assert len(documents) == len(sms_rows) - len(range(0, len(sms_rows), 50))


def test_fasttext_and_jsonl_lines_in_parts(tmp_path, sms_rows):
    fasttext, jsonl = tmp_path / "sms.txt", tmp_path / "sms.jsonl"
    fasttext.write_text("".join(f"__label__{label} {text}\n" for label, text in sms_rows))
    jsonl.write_text("".join(json.dumps({"label": label, "text": text}) + "\n" for label, text in sms_rows))
    assert len(assert_read_alike(fasttext, "fasttext", block_bytes=5000)) == 5574
    assert len(assert_read_alike(jsonl, None, block_bytes=5000)) == 5574


def test_jsonl_fields_with_a_number_in_parts(tmp_path, sms_rows):
    path = tmp_path / "sms.jsonl"
    path.write_text("".join(json.dumps({"y": label, "meta": {"t": text}, "n": len(text)}) + "\n"
                            for label, text in sms_rows))
    columns = Columns(text="meta.t", label="y", numeric=("n",))
    documents = assert_read_alike(path, "jsonl", columns, block_bytes=7000)
    assert documents[0].values == {"n": float(len(sms_rows[0][1]))}


def write_csv(path, rows, header=("label", "text", "length")):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)


def test_a_csv_whose_quoted_fields_hold_line_breaks_is_cut_between_records(tmp_path, sms_rows):
    """Every tenth text's sentences on lines of their own, and some with quotes in them: the
    quoted fields span lines, and a cut in one must move to the end of its record."""
    rows = [(label, text.replace(". ", '.\n"quoted" ') if i % 10 == 0 else text, len(text))
            for i, (label, text) in enumerate(sms_rows)]
    path = tmp_path / "sms.csv"
    write_csv(path, rows)
    for block_bytes in (1000, 4099, 30000):
        documents = assert_read_alike(path, "csv", Columns(numeric=("length",)), block_bytes)
        assert [doc.text for doc in documents] == [text for _, text, _ in rows]
    assert any("\n" in doc.text for doc in documents)


def test_a_csv_with_a_bare_quote_that_a_cut_would_split_is_refused(tmp_path):
    """A quote inside a field that is not quoted (5" screen) is text to the csv reader, but
    throws off the count of quotes: the part that a cut lands in cannot be told safely. The
    whole file reads; in parts, the error says so, and no record is split."""
    path = tmp_path / "bare.csv"
    write_csv(path, [("spam", f"line {i}\nand more", i) for i in range(400)])
    path.write_bytes(path.read_bytes().replace(b"\r\n", b'\r\nham,a 5" screen,1\r\n', 1))
    assert len(whole(path, "csv")[0]) == 401
    with pytest.raises(DataError) as error:
        in_parts(path, "csv", block_bytes=1000)
    assert str(error.value).startswith(f"{path}: cannot be split into parts safely after line ")
    assert "a quote inside a field that is not quoted" in str(error.value)


def test_a_file_whose_lines_end_in_cr_alone_is_one_part(tmp_path, sms_rows):
    path = tmp_path / "mac.tsv"
    path.write_bytes("".join(f"{label}\t{text}\r" for label, text in sms_rows[:500]).encode())
    file = line_file(str(path), "tsv")
    assert file.whole and byte_ranges(file, 100) == [(0, path.stat().st_size)]
    assert len(assert_read_alike(path, "tsv", block_bytes=path.stat().st_size)) == 500


_fields = st.text(alphabet=st.sampled_from(list('ab ",\n\r\té')), max_size=12)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from(["x", "y"]), _fields), min_size=1, max_size=40),
       block_bytes=st.integers(1, 64))
def test_any_csv_as_csv_writes_it_reads_alike_in_parts_of_any_size(tmp_path_factory, rows, block_bytes):
    path = tmp_path_factory.mktemp("csv") / "rows.csv"
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows([("label", "text"), *rows])
    path.write_bytes(buffer.getvalue().encode())
    try:
        documents, report = whole(path, "csv")
    except DataError:  # a row the table reader refuses whole (a text that is only a CR) is refused in parts too
        with pytest.raises(DataError):
            in_parts(path, "csv", block_bytes=block_bytes)
        return
    parts, parts_report, _ = in_parts(path, "csv", block_bytes=block_bytes)
    assert [(d.text, d.label, d.source) for d in parts] == [(d.text, d.label, d.source) for d in documents]
    assert parts_report.skipped == report.skipped
