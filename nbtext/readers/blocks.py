"""Line files and tables read in parts by byte range, each part read apart (by a cluster's
workers), the parts together giving the documents the whole file gives, named alike (FILE:LINE).

A part is the records that start in its byte range. Where a record starts is told by the
bytes alone: after a line feed, for the line formats and TSV; for CSV, after a line feed that
an even number of double quotes comes before, as CSV writes quotes (a field in quotes, a quote
inside it doubled). So each part needs two numbers about the bytes before it, which a first
pass over the parts gives (``scan``): its line feeds (for the line numbers) and whether its
double quotes are odd. Each part also finds where the next part starts, by the same rule, and
reads to there: no record is read twice or split.

A CSV may put a bare quote inside a field that is not quoted (``5" screen``), which Python's
csv reader keeps as text: the count of quotes is then thrown off, and a part may start inside
a record. The part before it then ends inside a quoted field, which the table reader finds;
that is an error (``cannot be split``), never a record split. A file whose lines end in CR
alone is read as one part.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from ..errors import DataError
from ..limits import MAX_DOCUMENT_BYTES
from .decoding import check_encoding
from .document import Document
from .filekinds import by_name, not_text
from .files import file_size, open_binary
from .layout import suffix
from .lines import (
    CR_HEAD,
    bounded_lines,
    check_splits_into_lines,
    read_labelled_lines,
    told_format,
    with_lf_lines,
)
from .report import ReadReport
from .tables import DELIMITERS, Columns, UnclosedQuote, read_jsonl_fields, read_table

#: Bytes of a line file per part: a few seconds of a worker's reading and counting.
BLOCK_BYTES = 32 * 2**20
_CHUNK = 1 << 20


@dataclass(frozen=True)
class LineFile:
    """A line file or table to read in parts, and how its parts are read: as labelled lines of
    ``fmt`` (tsv, jsonl, fasttext), as a ``table`` by its header, or as JSON ``records`` by
    their fields (``columns``)."""

    path: str
    kind: str
    fmt: str | None
    encoding: str
    size: int
    columns: Columns | None = None
    delimiter: str = ","
    quoted: bool = False
    #: A table's header line, put before each part's rows.
    header: bytes = b""
    #: Whether the file must be read as one part: its lines end in CR alone, or its header holds
    #: a quoted line break.
    whole: bool = False
    limit: int | None = MAX_DOCUMENT_BYTES


@dataclass(frozen=True)
class Block:
    """The records of ``file`` that start in bytes [start, end), and what the bytes before
    ``start`` and ``end`` hold: the line feeds before ``start``, and whether an odd number of
    double quotes comes before each (CSV only)."""

    file: LineFile
    start: int
    end: int
    lines_before: int = 0
    odd_at_start: bool = False
    odd_at_end: bool = False

    @property
    def size(self) -> int:
        return self.end - self.start

    def read(self, report: ReadReport) -> Iterator[Document]:
        """The part's documents, in order, with what happened counted in ``report``."""
        file = self.file
        with open_binary(file.path) as handle:
            start = record_start(handle, self.start, self.odd_at_start, file)
            stop = record_start(handle, self.end, self.odd_at_end, file)
            handle.seek(self.start)
            data = handle.read(stop - self.start)
        line = self.lines_before + line_ends(data[:start - self.start], file) + 1
        data = data[start - self.start:]
        stream: BinaryIO = io.BytesIO(data)
        if start == 0 and file.kind != "table":  # as the whole file is read: its start tells how lines end
            stream = with_lf_lines(stream)
        if file.kind == "lines":
            assert file.fmt is not None
            return read_labelled_lines(bounded_lines(stream, file.limit), file.path, file.fmt, report,
                                       encoding=file.encoding, first_line=line)
        if file.kind == "records":
            assert file.columns is not None
            return read_jsonl_fields(file.path, file.columns, report, encoding=file.encoding, limit=file.limit,
                                     stream=stream, first_line=line)
        if start > 0:  # the header row first, so that the rows are read by its names
            stream = io.BytesIO(file.header + data)
        rows = read_table(file.path, file.delimiter, file.columns or Columns(), report, encoding=file.encoding,
                          quoted=file.quoted, limit=file.limit, stream=stream, line_offset=max(0, line - 2))
        return _whole_rows(rows, file, line, ends_file=stop >= file.size)


def _whole_rows(rows: Iterator[Document], file: LineFile, line: int, ends_file: bool) -> Iterator[Document]:
    """A part's rows; where the part ends inside a quoted field and the file goes on, the error
    that says the file cannot be split, rather than the table's own."""
    try:
        yield from rows
    except UnclosedQuote:
        if ends_file:
            raise
        raise DataError(f"{file.path}: cannot be split into parts safely after line {line}: its double quotes do "
                        "not pair up as CSV writes them (a quote inside a field that is not quoted, such as "
                        '5" screen); read it without `dask`, or quote such fields') from None


def line_file(path: str, fmt: str | None, *, encoding: str = "utf-8", columns: Columns | None = None,
              limit: int | None = MAX_DOCUMENT_BYTES, size: int | None = None) -> LineFile:
    """How to read ``path`` in parts, as a LabelledCorpus (or, with ``columns`` whose label is
    None, predict) reads it in format ``fmt``: csv, tsv or jsonl, read by ``columns`` where
    given; tsv, jsonl or fasttext lines; None, told by the first line. ``size`` is its bytes
    where known already (a URL's size is a round trip to ask for)."""
    encoding = check_encoding(encoding)
    with open_binary(path) as handle:
        head = handle.read(CR_HEAD)
    first = head[:head.index(b"\n") + 1] if b"\n" in head else head
    if size is None:
        size = file_size(path)
    whole = b"\n" not in head and b"\r" in head.rstrip(b"\r")
    base = LineFile(path, "lines", fmt, encoding, size, columns, whole=whole, limit=limit)
    if fmt == "csv" or (fmt == "tsv" and columns is not None):
        quoted = fmt == "csv"
        delimiter = "\t" if fmt == "tsv" else DELIMITERS.get(suffix(path), ",")
        header = first if first.endswith(b"\n") else b""
        odd_header = header.count(b'"') % 2 == 1 if quoted else False
        return dataclasses.replace(base, kind="table", delimiter=delimiter, quoted=quoted, header=header,
                                   whole=whole or not header or odd_header)
    if columns is not None:
        return dataclasses.replace(base, kind="records", fmt="jsonl")
    if first:
        check_splits_into_lines(head, encoding, path)
    if fmt is None and first:
        fmt = told_format(first, path, by_name(not_text(first), path))
    return dataclasses.replace(base, fmt=fmt or "tsv")


def byte_ranges(file: LineFile, block_bytes: int = BLOCK_BYTES) -> list[tuple[int, int]]:
    """The byte ranges of ``file``'s parts: one for a file that must be read whole.

    >>> byte_ranges(LineFile("a.tsv", "lines", "tsv", "utf-8", 25), block_bytes=10)
    [(0, 10), (10, 20), (20, 25)]
    """
    if file.whole or file.size <= block_bytes:
        return [(0, file.size)]
    return [(start, min(start + block_bytes, file.size)) for start in range(0, file.size, block_bytes)]


def scan(file: LineFile, start: int, end: int) -> tuple[int, int]:
    """The line ends (``line_ends``), and the double quotes, in bytes [start, end) of ``file``."""
    lines = quotes = 0
    with open_binary(file.path) as handle:
        handle.seek(start)
        left = end - start
        while left > 0 and (chunk := handle.read(min(_CHUNK, left))):
            left -= len(chunk)
            after = handle.read(1) if chunk.endswith(b"\r") else b""  # a CR LF cut in two is one line end
            if after:
                handle.seek(-1, io.SEEK_CUR)
            lines += line_ends(chunk, file, after)
            quotes += chunk.count(b'"')
    return lines, quotes


def line_ends(data: bytes, file: LineFile, after: bytes = b"") -> int:
    r"""The lines that end in ``data`` as ``file``'s reader counts them: at each LF, and for a
    table (read as text, as Python reads files) at each CR that no LF follows, ``after`` being
    the byte that follows ``data``.

    >>> table, lines = LineFile("a.csv", "table", None, "utf-8", 0), LineFile("a.tsv", "lines", "tsv", "utf-8", 0)
    >>> line_ends(b"a\rb\r\nc\n", table), line_ends(b"a\r", table, b"\n"), line_ends(b"a\rb\n", lines)
    (3, 0, 1)
    """
    ends = data.count(b"\n")
    if file.kind == "table":
        ends += data.count(b"\r") - (data + after).count(b"\r\n")
    return ends


def blocks_of(file: LineFile, ranges: Sequence[tuple[int, int]], scans: Sequence[tuple[int, int]]) -> list[Block]:
    """``file``'s parts, given what ``scan`` found in each of its ``ranges``.

    >>> f = LineFile("a.csv", "table", None, "utf-8", 30, quoted=True)
    >>> [(b.start, b.lines_before, b.odd_at_start, b.odd_at_end)
    ...  for b in blocks_of(f, [(0, 10), (10, 20), (20, 30)], [(2, 1), (1, 0), (3, 2)])]
    [(0, 0, False, True), (10, 2, True, True), (20, 3, True, True)]
    """
    blocks, lines, quotes = [], 0, 0
    for (start, end), (newlines, quoted) in zip(ranges, scans):
        odd = file.quoted and quotes % 2 == 1
        lines, quotes = lines + newlines, quotes + quoted
        blocks.append(Block(file, start, end, lines_before=lines - newlines, odd_at_start=odd,
                            odd_at_end=file.quoted and quotes % 2 == 1))
    return blocks


def record_start(handle: BinaryIO, position: int, odd: bool, file: LineFile) -> int:
    """Where the first record that starts at or after ``position`` starts (the file's size
    where none does); ``odd``: whether an odd number of double quotes comes before ``position``
    (for CSV, whose quoted fields may hold line feeds)."""
    if position <= 0:
        return 0
    if position >= file.size:
        return file.size
    handle.seek(position - 1)
    if handle.read(1) == b"\n" and not odd:
        return position
    at_chunk = position
    while chunk := handle.read(_CHUNK):
        at = 0
        while (found := chunk.find(b"\n", at)) >= 0:
            if file.quoted:
                odd ^= chunk.count(b'"', at, found) % 2 == 1
            if not odd:
                return at_chunk + found + 1
            at = found + 1
        if file.quoted:
            odd ^= chunk.count(b'"', at) % 2 == 1
        at_chunk += len(chunk)
    return file.size
