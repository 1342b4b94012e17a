"""Tables and manifests: CSV/TSV with a header row, JSONL with named fields, path<TAB>label lists.

CSV rows keep their quoting rules (embedded newlines, doubled quotes); TSV rows are read as
written, one a line, as the header-less TSV of LABEL<TAB>TEXT lines is: a quote there is part
of the text. Fields may be very long. A row without a label is an error naming the file and
line, unless the caller asked to skip such rows, which are then counted; a row whose fields do
not fit the header, or a quoted field that never closes, is always an error: reading on would
join or split documents.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import io
import math
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

from ..errors import DataError, OptionsError
from ..phrasing import size_text
from .decoding import (
    ESCAPE_BYTES,
    WIDE_HEAD,
    decode,
    decode_file,
    marked_encoding,
    text_encoding,
    unescape,
    without_bom,
)
from .document import Document
from .filekinds import check_not_compressed, file_not_text
from .files import file_size, open_binary, read_bytes
from .lines import (
    CR_HEAD,
    bounded_lines,
    check_splits_into_lines,
    json_kind,
    json_text,
    numbered_lines,
    with_lf_lines,
)
from .report import ReadReport, TooLarge

# The csv module refuses fields over 128 KiB by default; documents can be far longer.
csv.field_size_limit(sys.maxsize)

DELIMITERS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}

#: Before Python 3.11 the csv module stops at a NUL ("line contains NUL"). A NUL goes through it
#: as this lone surrogate, which no decoding makes (invalid bytes are escaped as U+DC00-U+DCFF).
_NUL_STAND_IN = "\ud800" if sys.version_info < (3, 11) else None


class UnclosedQuote(DataError):
    """A CSV field's opening double quote that the rest of the file does not close."""


@dataclass(frozen=True)
class Columns:
    """Which columns (tables) or dotted field paths (JSONL) hold the text, label and id, and the
    ``numeric`` and ``categorical`` ones read beside them. With ``text_optional``, a table or
    record without the text column is read without text: its other columns are the document.
    With ``label_separator``, a label cell holds a document's several labels (``grain|wheat``);
    a JSON list of labels is read as several labels either way."""

    text: str = "text"
    label: str | None = "label"
    id: str | None = None
    skip_unlabelled: bool = False
    numeric: tuple[str, ...] = ()
    categorical: tuple[str, ...] = ()
    text_optional: bool = False
    label_separator: str | None = None

    def __post_init__(self) -> None:
        named = {self.text: "text", self.label: "label", self.id: "id"}
        for name in self.numeric + self.categorical:
            if name in named:
                raise OptionsError(f"column {name!r} is the {named[name]} column; it cannot also be read as a number "
                                   "or a category")
        check_names(self.numeric, self.categorical)

    @property
    def values(self) -> tuple[str, ...]:
        """The numeric and categorical columns, in that order."""
        return self.numeric + self.categorical


def check_names(numeric: Sequence[str], categorical: Sequence[str]) -> None:
    """An OptionsError where a column is named twice among the numeric and categorical ones."""
    names = list(numeric) + list(categorical)
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise OptionsError(f"column {twice[0]!r} is named twice among the numeric and categorical columns")


def read_table(path: str, delimiter: str, columns: Columns, report: ReadReport, *, encoding: str, quoted: bool,
               progress: Callable[[int], None] | None = None, limit: int | None = None,
               stream: BinaryIO | None = None, line_offset: int = 0) -> Iterator[Document]:
    """One Document per data row of a CSV/TSV file with a header row; ``quoted`` reads CSV
    quoting. A CSV whose header has semicolons and no comma is read by semicolons, as Excel
    writes CSV where the decimal mark is a comma (German, French, Dutch...). A row of more than
    ``limit`` characters is an error, no more than that of it read: where a quoted field may hold
    line breaks, only the quotes say where a row ends, so one cannot be skipped safely.

    ``stream``, where given, is read in place of the file ``path`` names: a part of it read apart
    (``blocks``), its header row put first, whose rows are ``line_offset`` lines further on in
    the file than in the stream."""
    if stream is None:
        with open_binary(path) as opened:
            yield from read_table(path, delimiter, columns, report, encoding=encoding, quoted=quoted, limit=limit,
                                  stream=opened)
        if progress is not None:
            progress(file_size(path))
        return
    head = stream.read(16)
    stream.seek(0)
    check_not_compressed(head, path)
    codec, marked = text_encoding(encoding, head, path), marked_encoding(head, encoding)
    # As open(path, encoding=codec, newline="") reads a file: rows may end in CR, LF or CR LF.
    handle = io.TextIOWrapper(stream, encoding=codec, errors=ESCAPE_BYTES, newline="")
    try:
        first = handle.readline(-1 if limit is None else limit + 2)
        if delimiter == "," and ";" in first and "," not in first:
            delimiter = ";"
        handle.seek(0)
        lines = _Lines(handle, path, limit, line_offset)
        rows = csv.reader(lines, delimiter=delimiter, quoting=csv.QUOTE_MINIMAL if quoted else csv.QUOTE_NONE)
        header = next(rows, None)
        if header is None:
            return
        lines.row_read()
        if columns.text_optional and columns.text.strip() not in (name.strip() for name in header):
            columns = dataclasses.replace(columns, text=None)  # type: ignore[arg-type]
        wanted = [name for name in (columns.text, columns.label, columns.id, *columns.values) if name is not None]
        options: dict[str | None, str] = {columns.id: "`id_column`", columns.label: "`label_column`",
                                          columns.text: "`text_column`",
                   **dict.fromkeys(columns.numeric, "`numeric_columns`"),
                   **dict.fromkeys(columns.categorical, "`categorical_columns`")}
        index = _column_index(path, header, wanted, options, delimiter)
        needed = max(index.values()) + 1
        last_line = 1 + line_offset  # of the row before: the header
        for row in rows:
            first_line, last_line = last_line + 1, rows.line_num + line_offset
            lines.row_read()
            where = f"{path}:{first_line}"
            if lines.ended and quoted:  # only an open quote makes the reader go past the last line for a row
                raise UnclosedQuote(f"{where}: the double quote that opens a field in this row never closes, so the "
                                "rest of the file would be one field (a quote inside a quoted field is written "
                                'twice: "")')
            if not row:
                report.skip("blank line", where)
                continue
            fits = len(row) == len(header) or (len(row) >= needed and not any(map(str.strip, row[len(header):])))
            if not fits:
                raise DataError(_misfit(path, (first_line, last_line), len(row), header, delimiter, quoted))
            if _NUL_STAND_IN:
                row = [field.replace(_NUL_STAND_IN, "\0") for field in row]
            fields = {name: row[i] for name, i in index.items()}
            yield from _document(fields.get, where, columns, report, codec, marked)
    finally:
        handle.detach()  # the stream is its opener's to close


def _column_index(path: str, header: list[str], wanted: list[str], options: dict[str | None, str],
                  delimiter: str) -> dict[str, int]:
    """Where each wanted column is, its name matched without the spaces around it (a header
    typed as "label, text"); a name missing or found twice is an error."""
    names = [name.strip() for name in header]
    index = {}
    for name in wanted:
        found = [i for i, other in enumerate(names) if other == name.strip()]
        if not found:  # the defaults (text, label) are easily missed: name the option that sets the one sought
            raise DataError(f"{path}: no column {name!r} (set by {options[name]}); the header has: "
                            f"{_names(header)}{_other_delimiter(header, delimiter)}")
        if len(found) > 1:
            numbers = ", ".join(str(i + 1) for i in found)
            raise DataError(f"{path}: the header names {name!r} in {len(found)} columns ({numbers}): which one to read "
                            "is not clear")
        index[name] = found[0]
    return index


class _Lines:
    """A table's lines for the csv reader, which notes when they run out; a row of more than
    ``limit`` characters, over the lines it takes, is a DataError, with no more than that held."""

    def __init__(self, handle: Any, path: str, limit: int | None, line_offset: int = 0) -> None:
        self.handle, self.path, self.limit = handle, path, limit
        self.ended = False
        self._line = line_offset  # lines given, and those before the stream's
        self._row_start, self._row_size = 1, 0  # the row being read: its first line, its characters

    def __iter__(self) -> Iterator[str]:
        read = functools.partial(self.handle.readline, -1 if self.limit is None else self.limit + 2)
        for line in iter(read, ""):
            self._line += 1
            self._row_size += len(line)
            if self.limit is not None and self._row_size - len(line) + len(line.rstrip("\r\n")) > self.limit:
                raise DataError(f"{self.path}:{self._row_start}: a row of more than {size_text(self.limit)}, the most "
                                "one document may be; where a quoted field may hold line breaks, a row cannot be "
                                "skipped safely: raise the cap, or split the text")
            yield line.replace("\0", _NUL_STAND_IN) if _NUL_STAND_IN else line
        self.ended = True

    def row_read(self) -> None:
        """The csv reader gave a row: the next starts after the lines it took."""
        self._row_start, self._row_size = self._line + 1, 0


def _names(header: list[str]) -> str:
    """A header's names for a message, each cut short: a header that is really a first row
    of data holds whole texts."""
    return ", ".join(name if len(name) <= 40 else name[:37] + "..." for name in header).replace("\t", "\\t")


def _other_delimiter(header: list[str], delimiter: str) -> str:
    """A hint where the first line is split by the other delimiter: a TSV read as CSV."""
    if delimiter == "," and any("\t" in name for name in header):
        return "; its first line has tabs: `input_format` tsv reads a tab-separated file"
    if delimiter == "\t" and len(header) == 1 and "," in header[0]:
        return "; its first line has commas and no tab: `input_format` csv reads a comma-separated file"
    return ""


def _misfit(path: str, lines: tuple[int, int], count: int, header: list[str], delimiter: str, quoted: bool) -> str:
    """The error for a row (over ``lines``, first and last) with more or fewer fields than its
    header: a text that was split, or a quote that closed late and joined rows."""
    breaks = ("a line break" if count < len(header) else
              {"\t": "a tab", ";": "a semicolon"}.get(delimiter, "a comma"))
    fields = f"{count} field{'s' if count != 1 else ''}"
    if quoted and lines[1] > lines[0]:
        hint = f'the row runs on to line {lines[1]}: check its quotes (one inside a quoted field is written twice: "")'
    elif quoted:
        hint = f"a field holding {breaks} must be in double quotes"
    else:
        hint = (f"{breaks} in a text splits it, as TSV is read as written; "
                "for fields in double quotes, as CSV writes them, read it with `input_format` csv")
    return f"{path}:{lines[0]}: {fields} where the header has {len(header)} ({_names(header)}): {hint}"


def read_jsonl_fields(path: str, columns: Columns, report: ReadReport, *, encoding: str,
                      progress: Callable[[int], None] | None = None, limit: int | None = None,
                      stream: BinaryIO | None = None, first_line: int = 1) -> Iterator[Document]:
    """One Document per line of a JSONL file, fields found by dotted paths (``meta.lang``); a
    line of more than ``limit`` bytes is skipped and counted. ``stream``, where given, is read in
    place of the file: a part of it read apart (``blocks``), whose first line is ``first_line``."""
    if stream is None:
        with open_binary(path, buffering=CR_HEAD) as handle:
            yield from read_jsonl_fields(path, columns, report, encoding=encoding, progress=progress, limit=limit,
                                         stream=with_lf_lines(handle))
        return
    lines = bounded_lines(stream, limit)
    for number, where, raw in numbered_lines(lines, path, report, progress, first_line):
        if number == 1:
            check_splits_into_lines(raw, encoding, path)
        if not raw.strip():
            report.skip("blank line", where)
            continue
        text, replaced = decode(raw, encoding)
        try:
            record = json.loads(text)
        except json.JSONDecodeError as error:
            raise DataError(f"{where}: not valid JSON ({error.msg}, column {error.colno})") from None
        for doc in _document(lambda field: _dotted(record, field), where, columns, report, encoding):
            yield doc if not replaced else _mark_replaced(doc, report)


def read_manifest(path: str, report: ReadReport, *, encoding: str, skip_unlabelled: bool = False,
                  progress: Callable[[int], None] | None = None, limit: int | None = None) -> Iterator[Document]:
    """Documents listed in a ``path<TAB>label`` file; relative paths are from its folder. A
    document listed is named, so one that cannot be read, is no text, or is larger than
    ``limit`` bytes is an error; a line of the list longer than that is skipped and counted."""
    base = os.path.dirname(os.path.abspath(path))
    with open(path, "rb", buffering=CR_HEAD) as handle:
        for number, where, raw in numbered_lines(bounded_lines(with_lf_lines(handle), limit), path, report):
            if number == 1:
                check_splits_into_lines(raw, encoding, path)
            line = without_bom(raw, encoding).rstrip(b"\r\n").decode(encoding, ESCAPE_BYTES)
            if not line.strip():
                report.skip("blank line", where)
                continue
            name, _, label = line.partition("\t")
            if not label.strip():
                if skip_unlabelled:
                    report.skip("no label", where)
                    continue
                raise DataError(f"{where}: no label; expected PATH<TAB>LABEL (or pass `skip_unlabelled`)")
            document = os.path.join(base, name)
            try:
                data = read_bytes(document, limit=limit)
            except TooLarge as error:
                raise DataError(f"{where}: {name} is {error.reason}") from None
            except OSError as error:
                raise DataError(f"{where}: cannot read {name}: {error.strerror}") from None
            except ValueError:  # a NUL, or an escaped byte the file system cannot take back
                raise DataError(f"{where}: {name!r} cannot be a file name") from None
            kind = file_not_text(data[:WIDE_HEAD], document)
            if kind is not None:  # listed by name, as a file that cannot be read is
                raise DataError(f"{where}: {name} is not text ({kind})")
            text, replaced, marked, page = decode_file(data, encoding)
            yield report.add(Document(text, label.strip(), document), replaced=replaced, marked=marked, page=page)
            if progress is not None:
                progress(len(data))


def _document(get: Callable[[str], object], where: str, columns: Columns, report: ReadReport,
              encoding: str, marked: str | None = None) -> Iterator[Document]:
    """The Document of one row or record, its fields got by name: a JSON record's text must be
    a string, and its label and id strings or numbers, as in JSONL read without field options.
    ``marked`` is the encoding a byte order mark chose over ``encoding``, if one did."""
    text = "" if columns.text is None else get(columns.text)
    has_text = columns.text is not None and not (text is _MISSING and columns.text_optional)
    if text is _MISSING:
        if not columns.text_optional:
            raise DataError(f"{where}: no {columns.text!r} field (set by `text_field`)")
        text = ""
    if not isinstance(text, str):
        raise DataError(f"{where}: {columns.text!r} is {json_kind(text)}; the text must be a string")
    text, replaced = unescape(text, encoding)
    labels: list[str | None] = [None]
    if columns.label is not None:
        if not columns.skip_unlabelled and get(columns.label) is _MISSING:  # not a null label: no such field
            raise DataError(f"{where}: no {columns.label!r} field (set by `label_field`; or pass `skip_unlabelled`)")
        labels = [*dict.fromkeys(_labels(get(columns.label), columns, where, encoding))]
        if not labels:
            if columns.skip_unlabelled:
                report.skip("no label", where)
                return
            raise DataError(f"{where}: no label in {columns.label!r} (or pass `skip_unlabelled`)")
    source = where
    if columns.id is not None:
        ident = _scalar(get(columns.id), columns.id, where)
        source = where if ident in (None, "") else json_text(ident)
    values = _values(get, where, columns, report) if columns.values else None
    # A document of several labels is read as one copy a label, as a file in several class folders is.
    for label in labels:
        yield report.add(Document(text, label, source, values=values), replaced=replaced, marked=marked,
                         text=has_text)


def _labels(value: object, columns: Columns, where: str, encoding: str) -> list[str]:
    """The labels a label cell or field holds, stripped, empty ones left out: one, a JSON list's
    each, or the pieces ``columns.label_separator`` splits it into."""
    values = value if isinstance(value, list) else [value]
    labels = []
    for one in values:
        one = _scalar(one, columns.label, where)
        if one is not None:
            label = unescape(json_text(one), encoding)[0]
            labels += label.split(columns.label_separator) if columns.label_separator else [label]
    return [label.strip() for label in labels if label.strip()]


def _values(get: Callable[[str], object], where: str, columns: Columns, report: ReadReport) -> dict[str, Any]:
    """A row's numeric and categorical cells: numbers (NaN where empty) and strings (None where
    empty), each empty one counted; a DataError naming the row and column for a cell that is not
    a number in a numeric column."""
    values: dict[str, Any] = {}
    for name in columns.numeric:
        cell = get(name)
        if isinstance(cell, str):
            cell = cell.strip()
        if cell in (None, "", _MISSING):
            values[name] = math.nan
            report.missing_values[name] += 1
            continue
        try:
            number = float(cell) if isinstance(cell, (str, int, float)) and not isinstance(cell, bool) else None
        except ValueError:
            number = None
        if number is None or not math.isfinite(number):
            shown = repr(cell) if isinstance(cell, str) else json_kind(cell)
            raise DataError(f"{where}: column {name!r} holds {shown[:60]}, not a number (`numeric_columns`; an empty "
                            "cell is a missing value)")
        values[name] = number
    for name in columns.categorical:
        cell = get(name)
        if isinstance(cell, (dict, list)):
            raise DataError(f"{where}: column {name!r} holds {json_kind(cell)}; a category is a string or a number")
        value = None if cell in (None, _MISSING) else json_text(cell).strip()
        if not value:
            report.missing_values[name] += 1
            value = None
        values[name] = value
    return values


def _scalar(value: object, name: str | None, where: str) -> object:
    """A label's or id's value, None where it is absent or null."""
    if isinstance(value, (dict, list)):
        raise DataError(f"{where}: {name!r} is {json_kind(value)}; it must be a string or a number")
    return None if value is _MISSING else value


#: What ``_dotted`` finds where a record has no such field (null is None).
_MISSING = object()


def _dotted(record: object, path: str) -> object:
    for key in path.split("."):
        if not isinstance(record, dict) or key not in record:
            return _MISSING
        record = record[key]
    return record


def _mark_replaced(doc: Document, report: ReadReport) -> Document:
    report.replaced.append(doc.source)
    return doc
