"""Files with one document per line: TSV, JSONL, fastText, and plain lines for prediction."""

from __future__ import annotations

import codecs
import io
import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO, NamedTuple, cast

from ..errors import DataError
from .decoding import decode, unescape, wide_encoding
from .document import Document
from .filekinds import check_not_compressed
from .report import ReadReport, too_large

LINE_FORMATS = ("tsv", "jsonl", "fasttext")
#: The way to read a file that is one JSON array of records, not JSONL.
JSON_ARRAY = "write a JSON array's records one a line (jq -c '.[]') to read them as JSONL"
_FASTTEXT_PREFIX = "__label__"
#: What separates fastText's words: any of these, not only a space (its labels end at a tab too).
_FASTTEXT_SPACE_CHARS = " \t\v\f\r\x00"
_FASTTEXT_SPACE = re.compile(f"[{_FASTTEXT_SPACE_CHARS}]+")
#: A label word of a fastText line: the prefix at the start of a word, and the rest of the word.
_FASTTEXT_LABEL = re.compile(f"(?<![^{_FASTTEXT_SPACE_CHARS}]){_FASTTEXT_PREFIX}[^{_FASTTEXT_SPACE_CHARS}]*")
#: Why a line of no label at all (a JSONL record whose label is an empty list) is skipped.
NO_LABEL = "no label (an empty list)"


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


def told_format(first_line: bytes, source: str, not_text_kind: str | None) -> str:
    """The labelled line format of ``source``, told by its ``first_line``; a DataError where it is
    not text (``not_text_kind``, such as an image or a model file) or looks like no line format."""
    if not_text_kind is not None:
        raise DataError(f"{source}: not text ({not_text_kind}), so not labelled documents")
    fmt = sniff(first_line)
    if fmt is None:
        array = f"; {JSON_ARRAY}" if first_line.lstrip().startswith(b"[") else ""
        raise DataError(f"{source}: cannot tell the format from the name or the first line; "
                        f"set `input_format` (folder, tsv, jsonl or fasttext){array}")
    return fmt


class TooLong(NamedTuple):
    """In place of a line longer than the cap on one document: its size, and the cap."""

    size: int
    limit: int


def bounded_lines(stream: BinaryIO, limit: int | None, head: bytes = b"") -> Iterator[bytes | TooLong]:
    """The lines of ``stream``, each with its line end; one of more than ``limit`` bytes as a
    TooLong, of which no more than ``limit`` bytes were held at once (an endless line, as
    /dev/zero gives, takes no more memory than that). ``head`` is the start of the first line,
    read already (to tell the format by).

    >>> list(bounded_lines(io.BytesIO(b"short\\n" + b"x" * 20 + b"\\nend"), 10))
    [b'short\\n', TooLong(size=21, limit=10), b'end']
    """
    if limit is None:
        if head:
            yield head + (b"" if head.endswith(b"\n") else stream.readline())
        yield from stream
        return
    line = head
    while True:
        if not line.endswith(b"\n") and len(line) <= limit:  # its end, CR LF too, or past the limit
            line += stream.readline(limit + 2 - len(line))
        if not line:
            return
        if len(line.rstrip(b"\r\n")) > limit:  # the rest of it read, and let go
            size = len(line)
            while not line.endswith(b"\n") and (line := stream.readline(1 << 20)):
                size += len(line)
            yield TooLong(size, limit)
        else:
            yield line
        line = b""


def numbered_lines(lines: Iterable[bytes | TooLong], source: str, report: ReadReport,
                   progress: Callable[[int], None] | None = None,
                   first_line: int = 1) -> Iterator[tuple[int, str, bytes]]:
    """(number, ``SOURCE:NUMBER``, line) for each line of ``lines`` (``bounded_lines``), numbered
    from ``first_line`` (a part of a file read apart starts further on); one too long is skipped
    and counted in ``report`` by its number. ``progress`` is told each line's bytes."""
    for number, raw in enumerate(lines, first_line):
        where = f"{source}:{number}"
        if progress is not None:
            progress(raw.size if isinstance(raw, TooLong) else len(raw))
        if isinstance(raw, TooLong):
            report.skip(too_large(raw.limit), where)
        else:
            yield number, where, raw


def read_labelled_lines(
    lines: Iterable[bytes | TooLong],
    source: str,
    fmt: str,
    report: ReadReport,
    *,
    encoding: str,
    progress: Callable[[int], None] | None = None,
    first_line: int = 1,
) -> Iterator[Document]:
    """One labelled Document per non-blank line of ``lines`` in format ``fmt``, numbered from
    ``first_line``.

    Blank lines, and lines longer than the cap on one document, are skipped and counted; a
    line that does not fit the format is a DataError naming the file and line.
    """
    parse = _PARSERS[fmt]
    for number, where, raw in numbered_lines(lines, source, report, progress, first_line):
        raw = raw.rstrip(b"\r\n")
        if not raw.strip():
            report.skip("blank line", where)
            continue
        text, replaced = decode(raw, encoding)
        labels, body = parse(text, where)
        if fmt == "jsonl":  # JSON may escape what no decoding gives: a lone surrogate (\udce9)
            body, lossy = unescape(body, encoding)
            labels = [unescape(label, encoding)[0] for label in labels]
            replaced = replaced or lossy
        if number == 1 and fmt == "tsv" and _is_header(labels[0], body, where):
            report.skip("header row", where)
            continue
        if not labels:
            report.skip(NO_LABEL, where)
            continue
        # A document of several labels is read as one copy a label, as a file in several class
        # folders is: each class counts it, and eval tells its copies by their one text.
        for label in dict.fromkeys(label.strip() for label in labels):
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
                        "table, with `text_column` text and `label_column` label")
    return names == ("label", "text")


def _parse_tsv(text: str, where: str) -> tuple[list[str], str]:
    label, tab, body = text.partition("\t")
    if not tab:
        raise DataError(f"{where}: no TAB in line; expected LABEL<TAB>TEXT (or set `input_format`)")
    return [label], body


def _parse_jsonl(text: str, where: str) -> tuple[list[str], str]:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise DataError(f"{where}: not valid JSON ({error.msg}, column {error.colno})") from None
    if not isinstance(record, dict) or not {"label", "text"} <= record.keys():
        raise DataError(f'{where}: expected an object with "label" and "text"{_what_it_is(record)}')
    label, body = record["label"], record["text"]
    if not isinstance(body, str):
        raise DataError(f'{where}: "text" must be a string')
    labels = label if isinstance(label, list) else [label]  # a list: the document's several labels
    if any(isinstance(one, (dict, list)) or one is None for one in labels):
        raise DataError(f'{where}: "label" must be a string or a number, or a list of them')
    return [json_text(one) for one in labels], body


def _what_it_is(record: object) -> str:
    """What a JSONL line that is no labelled record holds, and the way to read it."""
    if isinstance(record, dict):
        names = ", ".join(json.dumps(name) for name in itertools.islice(record, 8))
        return f"; it has {names}: name its fields with `text_field` and `label_field`" if record else ""
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


def _parse_fasttext(text: str, where: str) -> tuple[list[str], str]:
    head, *rest = _FASTTEXT_SPACE.split(text.lstrip(_FASTTEXT_SPACE_CHARS), maxsplit=1)
    if not head.startswith(_FASTTEXT_PREFIX):
        raise DataError(f"{where}: line does not start with {_FASTTEXT_PREFIX}LABEL")
    body = rest[0] if rest else ""
    labels = [head]
    if _FASTTEXT_PREFIX in body:  # fastText takes every word with the prefix as a label, wherever it is
        labels += _FASTTEXT_LABEL.findall(body)
        body = _FASTTEXT_LABEL.sub("", body).lstrip(_FASTTEXT_SPACE_CHARS)
    return [label[len(_FASTTEXT_PREFIX):] for label in labels], body


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
    stream = peekable(stream)
    head = stream.peek(CR_HEAD)[:CR_HEAD]
    if b"\n" in head or b"\r" not in head.rstrip(b"\r"):
        return stream
    return io.BufferedReader(_Reread(stream, cr_as_lf=True), CR_HEAD)


def peekable(stream: BinaryIO) -> io.BufferedReader:
    """``stream``, or where it cannot show its start without taking it (``peek``), the same
    stream read through a buffer that can."""
    if hasattr(stream, "peek"):
        return cast(io.BufferedReader, stream)
    return io.BufferedReader(_Reread(stream), CR_HEAD)


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


def iter_line_batches(stream: BinaryIO, chunk_size: int = 1 << 16, lines_per_batch: int = 1000,
                      limit: int | None = None) -> Iterator[list[bytes | TooLong]]:
    """Complete lines of ``stream`` as soon as they arrive, in batches, line ends kept off.

    A read that fills the whole chunk means more is waiting, so its lines are held for the next
    read, up to ``lines_per_batch``; a shorter read hands out all it completed. So a slow writer
    gets an answer per line, and a fast one gets large batches (scoring 32 lines at a time is
    about 1.7 times slower than 1,000). A very long line is joined once, not re-copied; one
    longer than ``limit`` is a TooLong, and no more of it is held than that.
    """
    read = getattr(stream, "read1", stream.read)
    pending: list[bytes] = []
    held = 0  # bytes of the line being read, which ``pending`` holds while they are within the limit
    batch: list[bytes | TooLong] = []

    def ended(last: bytes) -> bytes | TooLong:
        if limit is not None and held > limit:  # let go already
            return TooLong(held + len(last), limit)
        line = b"".join(pending) + last
        return line if limit is None or len(line.rstrip(b"\r")) <= limit else TooLong(len(line), limit)

    while chunk := read(chunk_size):
        unended = chunk
        if b"\n" in chunk:
            first, *rest = chunk.split(b"\n")
            batch.append(ended(first))
            pending, held = [], 0
            batch += [line if limit is None or len(line.rstrip(b"\r")) <= limit else TooLong(len(line), limit)
                      for line in rest[:-1]]
            unended = rest[-1]
        if unended:
            held += len(unended)
            if limit is None or held <= limit:
                pending.append(unended)
            else:
                pending = []  # past the limit: the line is let go, and only its size counted
        if batch and (len(chunk) < chunk_size or len(batch) >= lines_per_batch):
            yield [line if isinstance(line, TooLong) else line.removesuffix(b"\r") for line in batch]
            batch = []
    if held:
        batch.append(ended(b""))
    if batch:
        yield [line if isinstance(line, TooLong) else line.removesuffix(b"\r") for line in batch]


def check_splits_into_lines(head: bytes, encoding: str, source: str) -> None:
    """A DataError for a line format in UTF-16 or UTF-32, whose newlines are not one byte:
    lines are split as bytes, and would come apart mid-character; or for a compressed file."""
    check_not_compressed(head, source)
    wide = wide_encoding(head, encoding)
    if wide is not None:
        name = wide.upper().replace("-LE", "LE").replace("-BE", "BE")
        raise DataError(f"{source}: {name} text, which line formats cannot split into lines; "
                        f"convert it first: iconv -f {name} -t UTF-8")
