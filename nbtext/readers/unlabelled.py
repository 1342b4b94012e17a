"""Documents to classify, in input order: files, folders, mailboxes, table rows, and stdin's lines
as they arrive, in batches; every input named that gives no document is noted."""

from __future__ import annotations

import dataclasses
import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, BinaryIO

from ..errors import DataError
from ..limits import MAX_DOCUMENT_BYTES
from .corpus import MAIL_FORMATS, MailBatch
from .decoding import WIDE_HEAD, check_encoding, decode, narrowed
from .document import Document
from .filekinds import STREAM_HEAD, stream_not_text
from .files import is_pipe, is_url, not_found, standard_input
from .folders import list_folder, read_files
from .layout import COLUMN_SUFFIXES, not_a_table, read_by_name, suffix
from .lines import (
    TooLong,
    check_splits_into_lines,
    iter_line_batches,
    peekable,
    sniff,
    with_lf_lines,
)
from .mail import RawMessage, parse_messages
from .mailboxes import (
    FROM_LINE,
    is_maildir,
    is_mbox,
    maildir_messages,
    mbox_messages,
    mbox_stream_messages,
    message_files,
)
from .report import ReadReport, too_large
from .tables import DELIMITERS, Columns, read_jsonl_fields, read_table

_FILES_PER_BATCH = 256


def iter_unlabelled(
    paths: Sequence[str],
    report: ReadReport,
    *,
    encoding: str = "utf-8",
    stdin: BinaryIO | None = None,
    input_format: str | None = None,
    headers: Sequence[str] = (),
    columns: Columns | None = None,
    unparsed_mail: bool = False,
    max_document_bytes: int | None = MAX_DOCUMENT_BYTES,
) -> Iterator[tuple[list[Document] | MailBatch, bool]]:
    """Batches of documents to classify, in input order, and whether they came from stdin.

    A file is one document, a folder is walked (every regular, non-hidden file at any depth),
    and ``-`` is stdin with one document per line, batched as lines arrive so that answers
    can stream. With ``unparsed_mail``, mail comes as MailBatch, to be parsed by whoever scores
    it (``MailBatch.read``). A document larger than ``max_document_bytes`` is skipped and
    counted, no more than that of it read.
    """
    encoding = check_encoding(encoding)
    if input_format not in (None, "folder", "csv", *MAIL_FORMATS):
        raise DataError(f"predict reads files, folders, mail or stdin lines, not `input_format` {input_format}")
    if input_format == "csv" and columns is None:
        raise DataError("`input_format` csv reads the rows of a table: name its text column with `text_column`")
    sources = (_unlabelled_source(path, report, encoding, stdin, input_format, columns, max_document_bytes)
               for path in paths or ["-"])
    sources = ((kind, _noted_if_unread(path, kind, items, report))
               for path, (kind, items) in zip(paths or ["-"], sources))
    # Paths read the same way in a row (files named one by one: `nbtext predict m inbox/*`) share
    # batches, as a folder's files do: one batch a file cost 1,000 posts of 20news over a second.
    for kind, group in itertools.groupby(sources, key=lambda source: source[0]):
        items = itertools.chain.from_iterable(source[1] for source in group)
        if kind == "stdin lines":  # batched as they arrive, so that answers stream
            yield from ((batch, True) for batch in items)
        elif kind == "mail" and unparsed_mail:
            yield from _in_batches(items, lambda batch: MailBatch(batch, tuple(headers)))
        elif kind == "mail":
            yield from _in_batches(parse_messages(items, report, headers))
        else:
            yield from _in_batches(items)


def _noted_if_unread(path: str, kind: str, items: Iterator[Any], report: ReadReport) -> Iterator[Any]:
    """``items``, the documents (or messages, or batches of stdin's lines) of the input ``path``;
    where it gave none and entries were skipped meanwhile, ``path`` goes into ``report.unread``."""
    skipped, given = report.skipped_count(), 0
    for item in items:
        given += len(item) if kind == "stdin lines" else 1
        yield item
    if not given and report.skipped_count() > skipped:
        report.unread.append(path)


def _unlabelled_source(path: str, report: ReadReport, encoding: str, stdin: BinaryIO | None,
                       input_format: str | None, columns: Columns | None,
                       limit: int | None) -> tuple[str, Iterator[Any]]:
    """How ``path`` is read for predict, and what it gives when iterated: documents, mail
    messages not parsed yet, or batches of stdin's lines. Only a file's first bytes are read
    here (is it an mbox?); the rest is read, and any error raised, as it is iterated."""
    fmt = input_format
    if fmt in (None, "folder", "email") and path != "-":  # boxes are recognised whatever the default
        if is_maildir(path):
            fmt = "maildir"
        elif os.path.isfile(path) and is_mbox(path):
            fmt = "mbox"
    if columns is not None:
        return "documents", _rows_to_classify(path, report, encoding, input_format, columns, limit)
    if is_url(path):
        raise DataError(f"{path}: a URL is read as a table or JSONL file, row by row: name its text column with "
                        "`text_column`")
    if fmt in MAIL_FORMATS:
        return "mail", _unlabelled_mail(path, fmt, report, stdin, limit)
    if path == "-":
        return "stdin lines", _stdin_lines(report, encoding, stdin, limit)
    return "documents", _unlabelled_files(path, report, encoding, limit)


def _rows_to_classify(path: str, report: ReadReport, encoding: str, input_format: str | None,
                      columns: Columns, limit: int | None) -> Iterator[Document]:
    """The rows of a table or JSONL file, each a document named by ``columns.id``."""
    fmt = row_format(path, input_format)
    if fmt == "jsonl":
        yield from read_jsonl_fields(path, rows_of(columns), report, encoding=encoding, limit=limit)
        return
    if is_pipe(path):  # the table reader looks at the header, then starts again
        raise read_by_name(path, fmt)
    yield from read_table(path, DELIMITERS.get(suffix(path), ","), rows_of(columns), report, encoding=encoding,
                          quoted=fmt == "csv", limit=limit)


def row_format(path: str, input_format: str | None) -> str:
    """How predict reads the rows of ``path``: as csv (quoted), tsv, or jsonl records."""
    table = input_format == "csv" or suffix(path) in DELIMITERS
    if path == "-" or not table and suffix(path) not in COLUMN_SUFFIXES:
        raise not_a_table(path, "`text_column` and `id_column`", formats=", ".join(COLUMN_SUFFIXES),
                        kind="none of them")
    if not table:
        return "jsonl"
    return "csv" if input_format == "csv" or suffix(path) == ".csv" else "tsv"


def rows_of(columns: Columns) -> Columns:
    """The columns predict reads a row by: those named, and no label."""
    return dataclasses.replace(columns, label=None, skip_unlabelled=False)


def _stream_start(lines: list[bytes]) -> bytes:
    """A stream's first ``STREAM_HEAD`` bytes, as far as its first ``lines`` hold them, their
    line breaks put back: an office document's first line is a few bytes of its zip's."""
    taken, size = [], 0
    for line in itertools.takewhile(lambda _: size < STREAM_HEAD, lines):
        taken.append(line)
        size += len(line) + 1
    return b"\n".join(taken)[:STREAM_HEAD]


def _stdin_lines(report: ReadReport, encoding: str, stdin: BinaryIO | None,
                 limit: int | None) -> Iterator[list[Document]]:
    """Stdin's lines, a document each, in batches as they arrive. Where the first lines all
    name files or folders (``find ... | nbtext predict MODEL``), the report says how to have
    what they hold classified instead: their names were, as text."""
    line_number = paths = 0
    formats: set[str | None] = set()  # of the first lines, as labelled lines: LABEL<TAB>TEXT, say
    for raw_lines in iter_line_batches(with_lf_lines(stdin or standard_input()), limit=limit):
        if line_number == 0:
            head = _stream_start([b"" if isinstance(raw, TooLong) else raw for raw in raw_lines])
            check_splits_into_lines(head, encoding, "<stdin>")
            kind = stream_not_text(head)
            if kind is not None:  # a PDF or a program piped in: its bytes would be classified as lines
                raise DataError(f"<stdin>: not text ({kind}), so no lines of text to classify")
        batch = []
        for raw in raw_lines:
            line_number += 1
            if isinstance(raw, TooLong):
                report.skip(too_large(raw.limit), f"<stdin>:{line_number}")
                continue
            text, replaced = decode(raw, encoding)
            if paths == line_number - 1 < _PATHS_LOOKED_AT and _names_a_path(text):
                paths += 1
            if line_number <= _PATHS_LOOKED_AT:
                formats.add(sniff(raw))
            batch.append(report.add(Document(text, None, f"<stdin>:{line_number}"), replaced=replaced))
        yield batch
    if paths and paths == min(line_number, _PATHS_LOOKED_AT):
        which = f"all {paths}" if paths == line_number else f"the first {paths} of {line_number:,} do"
        named = ("stdin's line names a file or folder, and was" if line_number == 1 else
                 f"stdin's lines name files or folders ({which}), and were")
        report.hints.append(f"{named} classified as text: to classify what the files hold, give them as PATH "
                            "arguments (find ... -print0 | xargs -0 nbtext predict MODEL)")
    if len(formats) == 1 and (labelled := formats.pop()) is not None:
        one = line_number == 1
        report.hints.append(_LABELLED_LINES[labelled].format(
            lines="stdin's line" if one else f"stdin's first {_PATHS_LOOKED_AT} lines"
            if line_number > _PATHS_LOOKED_AT else "stdin's lines", s="s" if one else "", are="is" if one else "are",
            were="was" if one else "were"))


#: How many of stdin's first lines are looked at to tell that they are paths, or labelled
#: lines, not text.
_PATHS_LOOKED_AT = 20


#: What stdin's lines were, by the labelled format they look like, and what to do instead:
#: classified whole, a line's label (or a JSON object's keys) was classified with its text.
_LABELLED_LINES = {
    "tsv": "{lines} hold{s} a tab, as LABEL<TAB>TEXT lines do, and {were} classified whole, what comes before the "
           "tab too: cut -f2- | nbtext predict MODEL classifies what follows it, and nbtext eval MODEL - scores "
           "labelled lines",
    "fasttext": "{lines} start{s} with __label__, as fastText's labelled lines do, and {were} classified whole, labels "
                "too: nbtext eval MODEL - scores labelled lines, and sed 's/^__label__[^ ]* *//' | nbtext predict "
                "MODEL classifies their text",
    "jsonl": "{lines} {are} JSON, and {were} classified as JSON text, keys and all: nbtext eval MODEL - scores "
             "labelled ones; saved to a file, they are classified by a field with `text_field` NAME",
}


def _names_a_path(line: str) -> bool:
    name = line.rstrip("\r\n")
    return 0 < len(name) < 4096 and "\0" not in name and os.path.exists(name)


def _unlabelled_files(path: str, report: ReadReport, encoding: str, limit: int | None) -> Iterator[Document]:
    """A file, one document, or a folder's files walked, one document each."""
    if os.path.isdir(path):
        yield from read_files(list_folder(path, report, labelled=False), report, encoding=encoding, limit=limit)
    elif os.path.exists(path):
        yield from read_files([(path, None, 0)], report, encoding=encoding, limit=limit)
    else:
        raise not_found(path)


def _in_batches(items: Iterator[Any], batch_of: Callable[[list], Any] = list) -> Iterator[tuple[Any, bool]]:
    """``items`` (documents, or messages not parsed yet) in batches for predict, each made by
    ``batch_of``. A DataError (a record without its text field, a line that is not JSON) comes
    after the batch read before it, so those documents get their answers."""
    batch: list = []
    try:
        for item in items:
            batch.append(item)
            if len(batch) == _FILES_PER_BATCH:
                yield batch_of(batch), False
                batch = []
    except DataError:
        if batch:
            yield batch_of(batch), False
        raise
    if batch:
        yield batch_of(batch), False


def _unlabelled_mail(path: str, fmt: str, report: ReadReport, stdin: BinaryIO | None,
                     limit: int | None) -> Iterator[RawMessage]:
    """The messages to classify, read but not parsed: stdin or a file is one message (email),
    or many (mbox, maildir)."""
    if path == "-":
        if fmt != "email":
            raise DataError(f"stdin holds one message; `input_format` {fmt} needs a path")
        yield from _message_or_mbox(stdin or standard_input(), "<stdin>", report, limit)
    elif is_pipe(path):  # read once, as stdin is
        with open(path, "rb") as handle:
            yield from _message_or_mbox(handle, path, report, limit)
    elif fmt == "maildir":
        if not is_maildir(path):
            raise DataError(f"{path}: not a maildir (it has no cur/, new/ and tmp/)")
        yield from maildir_messages(path, None, report, limit=limit)
    elif fmt == "mbox" and os.path.isfile(path):
        yield from mbox_messages(path, None, report, limit=limit)
    elif os.path.isdir(path):
        entries = list_folder(path, report, labelled=False)
        if fmt == "mbox":
            for file, _, _ in entries:
                yield from mbox_messages(file, None, report, limit=limit)
        else:
            yield from message_files(entries, report, limit=limit)
    elif os.path.isfile(path):
        yield from message_files([(path, None, 0)], report, limit=limit)
    elif os.path.exists(path):  # /dev/null, a socket: "no such file" would send the user looking for it
        raise DataError(f"{path}: neither a file nor a folder, so no message to read")
    else:
        raise not_found(path)


def _message_or_mbox(stream: BinaryIO, source: str, report: ReadReport, limit: int | None) -> Iterator[RawMessage]:
    """A stream's messages (`cat box.mbox | nbtext predict`): one message, or each of an mbox's,
    as for the file; an mbox is split as it comes, so that no more than a message is held. A
    single message larger than ``limit`` bytes is skipped and counted, no more than that read.
    Bytes that are no text (a program, a PDF) are an error, as they are on stdin read as
    lines: a file of them would be skipped."""
    stream = peekable(stream)
    head = stream.peek(STREAM_HEAD)[:STREAM_HEAD]
    kind = stream_not_text(head)
    if kind is not None:
        raise DataError(f"{source}: not text ({kind}), so no message to classify")
    if FROM_LINE.match(narrowed(head)[0]) is None:  # "From the boss: ..." typed is a message's text
        raw = stream.read(-1 if limit is None else limit + 1)
        if limit is not None and len(raw) > limit:
            while stream.read(1 << 20):  # the rest let go, that a writer into the pipe is not stopped
                pass
            report.skip(too_large(limit), source)
        elif raw:
            yield raw, source, None, None
        return
    # A lone message with a From line, as mail stores keep one, keeps its name: a message of
    # several is named SOURCE:INDEX. The first is held until a second shows which it is.
    messages = mbox_stream_messages(stream, head[:WIDE_HEAD], None, report, source, None, limit)
    first = next(messages, None)
    second = next(messages, None)
    if first is not None and second is None and first[1] == f"{source}:1":
        yield first[0], source, None, None
        return
    for message in (first, second):
        if message is not None:
            yield message
    yield from messages


