"""Files with one document per line: TSV, JSONL, fastText, and plain lines for prediction."""

from __future__ import annotations

import codecs
import io
import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO

from ..errors import DataError
from .report import Document, ReadReport, decode, unescape

LINE_FORMATS = ("tsv", "jsonl", "fasttext")
#: The way to read a file that is one JSON array of records, not JSONL.
JSON_ARRAY = "write a JSON array's records one a line (jq -c '.[]') to read them as JSONL"
_FASTTEXT_PREFIX = "__label__"
#: What separates fastText's words: any of these, not only a space (its labels end at a tab too).
_FASTTEXT_SPACE_CHARS = " \t\v\f\r\x00"
_FASTTEXT_SPACE = re.compile(f"[{_FASTTEXT_SPACE_CHARS}]+")


def sniff(first_line: bytes) -> str | None:
    """The labelled line format that ``first_line`` looks like, or None."""
    stripped = first_line.removeprefix(codecs.BOM_UTF8).lstrip()
    if stripped.startswith(_FASTTEXT_PREFIX.encode()):
        return "fasttext"
    if stripped.startswith(b"{"):
        return "jsonl"
    if b"\t" in first_line:
        return "tsv"
    return None


def read_labelled_lines(
    lines: Iterable[bytes],
    source: str,
    fmt: str,
    report: ReadReport,
    *,
    encoding: str,
    progress: Callable[[int], None] | None = None,
) -> Iterator[Document]:
    """One labelled Document per non-blank line of ``lines`` in format ``fmt``.

    Blank lines are skipped and counted; a line that does not fit the format is a DataError
    naming the file and line.
    """
    parse = _PARSERS[fmt]
    for number, raw in enumerate(lines, 1):
        if progress is not None:
            progress(len(raw))
        where = f"{source}:{number}"
        raw = raw.rstrip(b"\r\n")
        if not raw.strip():
            report.skip("blank line", where)
            continue
        text, replaced = decode(raw, encoding)
        label, body = parse(text, where)
        if fmt == "jsonl":  # JSON may escape what no decoding gives: a lone surrogate (\udce9)
            body, lossy = unescape(body, encoding)
            label = unescape(label, encoding)[0]
            replaced = replaced or lossy
        if number == 1 and fmt == "tsv" and _is_header(label, body, where):
            report.skip("header row", where)
            continue
        label = label.strip()
        if not label:
            raise DataError(f"{where}: empty label")
        yield report.add(Document(body, label, where), replaced=replaced)


def _is_header(label: str, body: str, where: str) -> bool:
    """Whether a TSV's first line is a header naming its columns, as pandas and spreadsheets
    write one: ``label<TAB>text`` is skipped (it would train a class 'label'); the other order
    means the rows are TEXT<TAB>LABEL, which only the table reader takes."""
    names = (label.strip().lower(), body.strip().lower())
    if names == ("text", "label"):
        raise DataError(f"{where}: a header 'text<TAB>label': these rows put the text first; read them as a "
                        "table: --text-column text --label-column label")
    return names == ("label", "text")


def _parse_tsv(text: str, where: str) -> tuple[str, str]:
    label, tab, body = text.partition("\t")
    if not tab:
        raise DataError(f"{where}: no TAB in line; expected LABEL<TAB>TEXT (or set --input-format)")
    return label, body


def _parse_jsonl(text: str, where: str) -> tuple[str, str]:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise DataError(f"{where}: not valid JSON ({error.msg}, column {error.colno})") from None
    if not isinstance(record, dict) or not {"label", "text"} <= record.keys():
        raise DataError(f'{where}: expected an object with "label" and "text"{_what_it_is(record)}')
    label, body = record["label"], record["text"]
    if not isinstance(body, str):
        raise DataError(f'{where}: "text" must be a string')
    if isinstance(label, (dict, list)) or label is None:
        raise DataError(f'{where}: "label" must be a string or a number')
    return json_text(label), body


def _what_it_is(record: object) -> str:
    """What a JSONL line that is no labelled record holds, and the way to read it."""
    if isinstance(record, dict):
        names = ", ".join(json.dumps(name) for name in itertools.islice(record, 8))
        return f"; it has {names}: name its fields with --text-field and --label-field" if record else ""
    if isinstance(record, list):
        return f"; the line is a list: {JSON_ARRAY}"
    return f"; the line is {json_kind(record)}"


def json_text(value: object) -> str:
    """A JSON label's or id's value as the line spells it: ``true``, where Python says ``True``.

    >>> [json_text(value) for value in ("spam", True, 0, 2.5, float("inf"))]
    ['spam', 'true', '0', '2.5', 'Infinity']
    """
    return value if isinstance(value, str) else json.dumps(value)


def json_kind(value: object) -> str:
    """What a JSON value is, for a message: "an object", "a list", "a string"..."""
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "true or false", type(None): "null"}
    return kinds.get(type(value), "a number")


def _parse_fasttext(text: str, where: str) -> tuple[str, str]:
    head, *rest = _FASTTEXT_SPACE.split(text.lstrip(_FASTTEXT_SPACE_CHARS), maxsplit=1)
    if not head.startswith(_FASTTEXT_PREFIX):
        raise DataError(f"{where}: line does not start with {_FASTTEXT_PREFIX}LABEL")
    body = rest[0] if rest else ""
    if _FASTTEXT_PREFIX in body:  # fastText takes every word with the prefix as a label
        labels = [word for word in _FASTTEXT_SPACE.split(body) if word.startswith(_FASTTEXT_PREFIX)]
        if labels:
            raise DataError(f"{where}: {1 + len(labels)} labels ({head}, {', '.join(labels)}); nbtext gives a "
                            f"document one class: keep one {_FASTTEXT_PREFIX}LABEL a line")
    return head[len(_FASTTEXT_PREFIX):], body


_PARSERS = {"tsv": _parse_tsv, "jsonl": _parse_jsonl, "fasttext": _parse_fasttext}


def with_lf_lines(stream: BinaryIO) -> BinaryIO:
    """``stream``, or where its start has carriage returns between its lines and no line feed
    (classic Mac OS ended lines so, and Excel for Mac's "Mac" text formats still do), the same
    with each CR read as LF. Split at LF alone, such a file was one line, its documents run
    together into the first one.

    >>> with_lf_lines(io.BytesIO(b"spam\\twin\\rham\\tnoon\\r")).read()
    b'spam\\twin\\nham\\tnoon\\n'
    >>> with_lf_lines(io.BytesIO(b"spam\\twin\\r\\nham\\tnoon\\r\\n")).read()
    b'spam\\twin\\r\\nham\\tnoon\\r\\n'
    """
    if not hasattr(stream, "peek"):  # to look at its start without taking it
        stream = io.BufferedReader(_Reread(stream), CR_HEAD)
    head = stream.peek(CR_HEAD)[:CR_HEAD]
    if b"\n" in head or b"\r" not in head.rstrip(b"\r"):
        return stream
    return io.BufferedReader(_Reread(stream, cr_as_lf=True), CR_HEAD)


#: How much of a stream's start tells that carriage returns end its lines: open a file with a
#: buffer this large for ``with_lf_lines`` to see that much of it.
CR_HEAD = 1 << 16


class _Reread(io.RawIOBase):
    """A binary stream as a raw one (which a buffered reader can wrap), each CR read as LF
    where ``cr_as_lf``. Closing it leaves the stream open: whoever opened that closes it."""

    def __init__(self, stream: BinaryIO, *, cr_as_lf: bool = False) -> None:
        self._read = getattr(stream, "read1", stream.read)
        self._cr_as_lf = cr_as_lf

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._read(len(buffer))
        if self._cr_as_lf:
            data = data.replace(b"\r", b"\n")
        buffer[:len(data)] = data
        return len(data)


def iter_line_batches(stream: BinaryIO, chunk_size: int = 1 << 16,
                      lines_per_batch: int = 1000) -> Iterator[list[bytes]]:
    """Complete lines of ``stream`` as soon as they arrive, in batches, line ends kept off.

    A read that fills the whole chunk means more is waiting, so its lines are held for the next
    read, up to ``lines_per_batch``; a shorter read hands out all it completed. So a slow writer
    gets an answer per line, and a fast one gets large batches (scoring 32 lines at a time is
    about 1.7 times slower than 1,000). A very long line is joined once, not re-copied.
    """
    read = getattr(stream, "read1", stream.read)
    pending: list[bytes] = []
    batch: list[bytes] = []
    while chunk := read(chunk_size):
        if b"\n" in chunk:
            first, *rest = chunk.split(b"\n")
            batch += [b"".join(pending) + first, *rest[:-1]]
            pending = [rest[-1]] if rest[-1] else []
        else:
            pending.append(chunk)
        if batch and (len(chunk) < chunk_size or len(batch) >= lines_per_batch):
            yield [line.removesuffix(b"\r") for line in batch]
            batch = []
    if pending:
        batch.append(b"".join(pending))
    if batch:
        yield [line.removesuffix(b"\r") for line in batch]
