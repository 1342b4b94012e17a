"""Readers: every input kind yields the same Document record and feeds one ReadReport.

A DATA argument is a folder-per-class directory, a labelled line file (TSV ``label<TAB>text``,
JSONL ``{"label": ..., "text": ...}``, fastText ``__label__X text``) or ``-`` for stdin. The
format comes from the path (a folder, or the file's suffix), else from the first line.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

from ..errors import DataError
from ..limits import MAX_DOCUMENT_BYTES
from .folders import FROM_LINE, NO_DOCUMENTS, Entry, is_folder, is_pipe, list_folder, not_found, read_files
from .lines import (CR_HEAD, JSON_ARRAY, LINE_FORMATS, TooLong, bounded_lines, iter_line_batches, peekable,
                    read_labelled_lines, sniff, with_lf_lines)
from .mail import (USEFUL_HEADERS, RawMessage, is_maildir, is_mbox, maildir_messages, mbox_messages,
                   mbox_stream_messages, message_files, parse_messages, read_message_files)
from .report import (STREAM_HEAD, WIDE_HEAD, Document, ReadReport, by_name, check_encoding,
                     check_not_compressed, check_splits_into_lines, decode, narrowed, not_text, stream_not_text,
                     too_large)
from .tables import DELIMITERS, Columns, read_jsonl_fields, read_manifest, read_table

__all__ = [
    "INPUT_FORMATS", "MAIL_FORMATS", "MAX_DOCUMENT_BYTES", "USEFUL_HEADERS", "Columns", "Document", "FileBatch",
    "LabelledCorpus", "MailBatch", "ReadReport", "Reading", "UNREAD", "check_encoding", "documents_of",
    "iter_unlabelled", "note_unread", "standard_input", "table_kind",
]

MAIL_FORMATS = ("email", "mbox", "maildir")
INPUT_FORMATS = ("folder", *LINE_FORMATS, "csv", "manifest", *MAIL_FORMATS)
_SUFFIXES = {".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".ft": "fasttext", ".csv": "csv"}
#: The files whose columns or fields --text-column and the like read, by name.
_COLUMN_SUFFIXES = (*DELIMITERS, ".jsonl", ".ndjson")
#: Of those, the ones read by named columns or fields even without the options (a .tsv is
#: LABEL<TAB>TEXT lines unless they are given).
_RECORD_SUFFIXES = (".csv", ".jsonl", ".ndjson")
_LABELLED_COLUMN_OPTIONS = "--text-column, --label-column, --id-column and --skip-unlabelled"
_FILES_PER_BATCH = 256
#: How much of a line file's first line tells its format: the start of a fastText or JSONL
#: line, or a TSV label's tab. A first line that long is still read whole once it is told.
_SNIFFED = 1 << 20
NO_MAILDIR = "class folder holding no maildir (without --input-format maildir, its files are read as mail)"
#: How labelled maildirs are given: a maildir's messages have no class, and its cur/ and new/ are none.
MAILDIR_PER_CLASS = ("give a folder with a maildir per class (DATA/ham, DATA/spam; links will do: "
                     "ln -s ~/Maildir/.Junk DATA/spam)")


def _no_table(path: str, options: str, *, formats: str = "", kind: str = "") -> DataError:
    """The error for column ``options`` (as the user names them) given for ``path``: stdin, or
    a file or folder that is ``kind`` and not one of the ``formats`` they read."""
    if path == "-":
        return DataError(f"{options} read tables and JSONL files by name, not stdin: save the table to a file "
                         "first (e.g. > data.tsv)")
    return DataError(f"{path}: {options} read tables and JSONL files ({formats}); this is {kind}")


@dataclass(frozen=True)
class FileBatch:
    """Labelled document files (plain or mail), listed but not read yet: whoever counts them
    reads them, so that worker processes share the reading too."""

    entries: list[Entry]
    mail: bool
    encoding: str
    headers: tuple[str, ...]
    #: The most a document may be (see ``MAX_DOCUMENT_BYTES``).
    limit: int | None = MAX_DOCUMENT_BYTES

    @property
    def size(self) -> int:
        """The files' bytes, as listed."""
        return sum(entry[2] for entry in self.entries)

    def read(self, report: ReadReport, progress: Callable[[int], None] | None = None) -> Iterator[Document]:
        """The files' documents in order, with what happened counted in ``report``."""
        if self.mail:
            return read_message_files(self.entries, report, self.headers, progress, self.limit)
        return read_files(self.entries, report, encoding=self.encoding, progress=progress, limit=self.limit)


@dataclass(frozen=True)
class MailBatch:
    """Messages to classify, read in order (an mbox split, a maildir's or folder's files read)
    but not parsed yet. Parsing is most of the cost of reading mail, so whoever scores a batch
    parses it, and predict's and filter's worker processes share that work too."""

    messages: list[RawMessage]
    headers: tuple[str, ...]

    @property
    def size(self) -> int:
        """The messages' bytes."""
        return sum(len(message[0]) for message in self.messages)

    def read(self, report: ReadReport) -> list[Document]:
        """The messages' documents in order, with what happened counted in ``report``."""
        return list(parse_messages(self.messages, report, self.headers))


#: Documents handed out before they are read or parsed, for whoever takes them to do it.
UNREAD = (FileBatch, MailBatch)


def documents_of(batch: list[Document] | FileBatch | MailBatch) -> tuple[list[Document], ReadReport]:
    """A batch's documents, read or parsed here where it came unread, and a report of what
    that saw (empty for documents read already)."""
    seen = ReadReport()
    return (list(batch.read(seen)) if isinstance(batch, UNREAD) else batch), seen


class Reading(Iterator[Document]):
    """The documents of a LabelledCorpus as they are read (``LabelledCorpus.read``).

    Iterate it for Documents; or, before that, take ``batches``: lists of Documents, except
    that the files of folders come unread, as FileBatch, and the messages of mbox files and
    maildirs unparsed, as MailBatch, for worker processes to read or parse.
    """

    def __init__(self, corpus: LabelledCorpus, progress: Callable[[int], None] | None) -> None:
        self.report = corpus.report
        self._corpus, self._progress = corpus, progress
        self._documents: Iterator[Document] | None = None
        self._taken = ""  # how the documents were taken: "documents" or "batches"

    def __next__(self) -> Document:
        if self._documents is None:
            self._take("documents")
            self._documents = self._corpus._documents(self._progress)
        return next(self._documents)

    def batches(self, size: int) -> Iterator[list[Document] | FileBatch | MailBatch]:
        """Every document, in order, ``size`` at a time; ``progress`` counts a FileBatch's bytes
        once it is handed out, and a MailBatch's as its messages are read."""
        self._take("batches")
        return self._corpus._batches(size, self._progress)

    def _take(self, how: str) -> None:
        """The documents are read once: a second reading would find nothing, or only the rest."""
        if self._taken:
            raise ValueError(f"this Reading's documents were taken as {self._taken} already")
        self._taken = how


class LabelledCorpus:
    """The labelled documents of several DATA arguments, read once, in order.

    Folders are listed up front (so ``total_bytes`` can drive a progress bar); files are read
    as the corpus is iterated. ``report`` accounts for every entry seen. A document (a file, a
    line, a message, a record) larger than ``max_document_bytes`` is skipped and counted, no
    more than that of it read; a table's row, an error (see ``MAX_DOCUMENT_BYTES``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for label, text in [("spam", "win cash"), ("ham", "lunch at noon")]:
    ...     (root / label).mkdir()
    ...     _ = (root / label / "1.txt").write_text(text)
    >>> corpus = LabelledCorpus([str(root)])
    >>> [(doc.label, doc.text) for doc in corpus]
    [('ham', 'lunch at noon'), ('spam', 'win cash')]
    >>> corpus.report.lines()
    ['read 2 documents']
    """

    def __init__(
        self,
        paths: Sequence[str],
        *,
        input_format: str | None = None,
        encoding: str = "utf-8",
        stdin: BinaryIO | None = None,
        headers: Sequence[str] = (),
        columns: Columns | None = None,
        max_document_bytes: int | None = MAX_DOCUMENT_BYTES,
    ) -> None:
        if isinstance(paths, str):
            raise TypeError("paths must be a list of paths, not one string")
        if input_format is not None and input_format not in INPUT_FORMATS:
            raise DataError(f"unknown input format {input_format!r}; use one of {INPUT_FORMATS}")
        self.encoding = check_encoding(encoding)
        self.report = ReadReport()
        self._stdin = stdin
        self.headers = tuple(headers)
        self.columns = columns
        self.limit = max_document_bytes
        self._plan: list[tuple[str, str | None, list]] = []
        sizes: list[int | None] = []
        for path in paths:
            for fmt, entries, size in self._plan_one(path, input_format):
                self._plan.append((path, fmt, entries))
                sizes.append(size)
        self.report.hints += _layout_hints([path for path, fmt, entries in self._plan
                                            if fmt in ("folder", "email", "mbox") and not entries])
        # The entries of folders and maildirs are (path, label, ...): the classes they promise.
        self.report.listed_classes.update(entry[1] for _, fmt, entries in self._plan for entry in entries)
        self.total_bytes = None if None in sizes else sum(s for s in sizes if s is not None)

    def _plan_one(self, path: str, input_format: str | None) -> list[tuple[str | None, list, int | None]]:
        """How to read one DATA argument: (format, entries, bytes) for each of its parts."""
        if path == "-":
            if self.columns is not None:  # the table and field readers take files, by name
                raise _no_table(path, _LABELLED_COLUMN_OPTIONS)
            if input_format not in (None, *LINE_FORMATS):  # else the pipe would go unread, and nothing be said
                reads = ("a table file" if input_format == "csv" else "a list of files" if input_format == "manifest"
                         else "DIR/<label>/ folders")
                raise DataError(f"--input-format {input_format} reads {reads} by name, not stdin: stdin takes "
                                f"one labelled document a line ({', '.join(LINE_FORMATS)})")
            return [(input_format, [], None)]
        if not os.path.exists(path):
            raise not_found(path)
        fmt = input_format or (_folder_format(path) if os.path.isdir(path) else _SUFFIXES.get(_suffix(path)))
        if self.columns is not None and fmt not in ("csv", "tsv", "jsonl", "manifest"):  # else quietly unused
            if fmt is None and os.path.isfile(path):  # sms.csv.gz: not named a table, but the fix is to decompress it
                with open(path, "rb") as handle:
                    check_not_compressed(handle.read(16), path)
            kind = "a folder" if os.path.isdir(path) else f"read as {fmt}" if fmt else "none of them"
            raise _no_table(path, _LABELLED_COLUMN_OPTIONS, kind=kind,
                            formats=f"{', '.join(_COLUMN_SUFFIXES)}, or --input-format csv, tsv or jsonl")
        if is_pipe(path):  # read once, from its start, as stdin is
            if fmt not in (None, *LINE_FORMATS) or (fmt == "tsv" and self.columns is not None):
                raise _read_by_name(path, fmt)
            return [(fmt, [], None)]
        if is_maildir(path):  # else a model of classes cur and new
            raise DataError(f"{path}: a maildir, whose messages have no class; {MAILDIR_PER_CLASS}")
        if fmt in ("folder", "email", "mbox"):
            if not os.path.isdir(path):
                raise DataError(f"{path}: not a folder; --input-format {fmt} reads DIR/<label>/** files")
            entries = list_folder(path, self.report, labelled=True)
            if (hint := _parts_hint(path, entries)) is not None:
                self.report.hints.append(hint)
            if input_format is None:  # mailboxes exported per class (spam/spam.mbox): one message a document
                fmt = _mailboxes(entries) or fmt
            return [(fmt, entries, sum(size for _, _, size in entries))]
        if fmt == "maildir":
            boxes = _labelled_maildirs(path)
            if not boxes:
                raise DataError(f"{path}: no maildir (cur/, new/, tmp/) in DIR/<label>/")
            return [(fmt, boxes, None), *self._classes_without_maildir(path, boxes, input_format)]
        if os.path.isdir(path):
            raise DataError(f"{path}: is a folder, but --input-format {fmt} expects a file")
        if fmt is None and is_mbox(path):  # else "cannot tell the format", which names line formats only
            raise DataError(f"{path}: an mbox, whose messages have no class; give a folder of one folder per "
                            f"class (DATA/spam/spam.mbox, DATA/ham/inbox.mbox)")
        return [(fmt, [], os.path.getsize(path))]

    def _classes_without_maildir(self, root: str, boxes: list[tuple[str, str]],
                                 input_format: str | None) -> list[tuple[str, list, int]]:
        """The class folders of ``root`` that hold no maildir, where others do: found by looking
        (an inbox maildir beside spam/spam.mbox), they are read as mail, each file a message and
        an mbox's each message; with --input-format maildir, skipped and counted. Either way
        no class goes missing unsaid."""
        with_box = {label for _, label in boxes}
        others = [folder for folder in sorted(_subfolders(root)) if os.path.basename(folder) not in with_box]
        if input_format == "maildir":
            for folder in others:
                self.report.skip(NO_MAILDIR, folder)
            return []
        entries = []
        for folder in others:
            found = list_folder(folder, self.report, labelled=False)
            if not found:
                self.report.skip(NO_DOCUMENTS, folder)
            entries += [(file, os.path.basename(folder), size) for file, _, size in found]
        return [("email", entries, sum(size for _, _, size in entries))] if entries else []

    def check_all_read(self) -> None:
        """Once the documents are read: a DataError where a DATA folder gave none, each of its
        files skipped (a line file that is no text is an error as it is read), as for every
        input named (``ReadReport.check_all_read``)."""
        note_unread([(path, [entry[0] for entry in entries]) for path, fmt, entries in self._plan
                     if fmt in ("folder", "email")], self.report)
        self.report.check_all_read()

    @property
    def is_mail(self) -> bool:
        """Whether every DATA argument is read as mail (email, mbox or maildir)."""
        return bool(self._plan) and all(fmt in MAIL_FORMATS for _, fmt, _ in self._plan)

    @property
    def read_apart(self) -> bool:
        """Whether ``batches`` hands out every document unread (FileBatch), or every one unparsed
        (MailBatch), so that whoever takes a batch accounts for all its reading, or all its
        parsing, in the same order as one process would."""
        formats = {fmt for _, fmt, _ in self._plan}
        return bool(formats) and (formats <= {"folder", "email"} or formats <= {"mbox", "maildir"})

    def __iter__(self) -> Iterator[Document]:
        return self.read()

    def read(self, progress: Callable[[int], None] | None = None) -> Reading:
        """Every document, read as it is asked for; ``progress`` is called with the number of
        bytes consumed. The Reading can hand folders' files out unread instead (``batches``)."""
        return Reading(self, progress)

    def _documents(self, progress: Callable[[int], None] | None) -> Iterator[Document]:
        for path, fmt, entries in self._plan:
            yield from self._read_one(path, fmt, entries, progress)

    def _batches(self, size: int,
                 progress: Callable[[int], None] | None) -> Iterator[list[Document] | FileBatch | MailBatch]:
        for path, fmt, entries in self._plan:
            if fmt in ("folder", "email"):
                for start in range(0, len(entries), size):
                    files = FileBatch(entries[start:start + size], fmt == "email", self.encoding, self.headers,
                                      self.limit)
                    yield files
                    if progress is not None:
                        progress(files.size)
            elif fmt in ("mbox", "maildir"):
                messages = self._messages(fmt, entries, progress)
                while unparsed := list(itertools.islice(messages, size)):
                    yield MailBatch(unparsed, self.headers)
            else:
                documents = self._read_one(path, fmt, entries, progress)
                while batch := list(itertools.islice(documents, size)):
                    yield batch

    def _messages(self, fmt: str, entries: list, progress: Callable[[int], None] | None) -> Iterator[RawMessage]:
        """The messages of mbox files or maildirs, read but not parsed, in order."""
        if fmt == "mbox":
            for file, label, _ in entries:
                yield from mbox_messages(file, label, self.report, progress, limit=self.limit)
        else:
            for box, label in entries:
                yield from maildir_messages(box, label, self.report, progress, self.limit)

    def _read_one(self, path: str, fmt: str | None, entries: list,
                  progress: Callable[[int], None] | None) -> Iterator[Document]:
        """The documents of one DATA argument."""
        if fmt in ("folder", "email"):
            yield from FileBatch(entries, fmt == "email", self.encoding, self.headers, self.limit).read(self.report,
                                                                                                        progress)
        elif fmt in ("mbox", "maildir"):
            yield from parse_messages(self._messages(fmt, entries, progress), self.report, self.headers)
        elif fmt == "manifest":
            skip = self.columns is not None and self.columns.skip_unlabelled
            yield from read_manifest(path, self.report, encoding=self.encoding, skip_unlabelled=skip,
                                     progress=progress, limit=self.limit)
        elif fmt == "csv" or (fmt == "tsv" and self.columns is not None):
            delimiter = "\t" if fmt == "tsv" else DELIMITERS.get(_suffix(path), ",")
            yield from read_table(path, delimiter, self.columns or Columns(), self.report,
                                  encoding=self.encoding, quoted=fmt == "csv", progress=progress, limit=self.limit)
        elif fmt == "jsonl" and self.columns is not None and path != "-":
            yield from read_jsonl_fields(path, self.columns, self.report, encoding=self.encoding,
                                         progress=progress, limit=self.limit)
        elif path == "-":
            stdin = with_lf_lines(self._stdin or standard_input())
            yield from self._read_lines(stdin, "<stdin>", fmt, progress)
        else:
            with open(path, "rb", buffering=CR_HEAD) as handle:
                yield from self._read_lines(with_lf_lines(handle), path, fmt, progress)

    def _read_lines(self, stream: BinaryIO, source: str, fmt: str | None, progress) -> Iterator[Document]:
        # The format is told by the start of the first line: a file with no line break (a disk
        # image, a log of one line) was read whole, gigabytes, to say it could not tell.
        first = stream.readline(_SNIFFED if fmt is None or self.limit is None else min(_SNIFFED, self.limit + 2))
        if not first:  # nothing at all: no documents, whatever the format would have been
            return
        piped = source == "<stdin>"
        head = first
        if piped and hasattr(stream, "peek"):  # a zip's first line is short: what follows tells what it is
            head += stream.peek(STREAM_HEAD)[:STREAM_HEAD]
        check_splits_into_lines(head, self.encoding, source)
        if fmt is None:
            kind = stream_not_text(head) if piped else by_name(not_text(first), source)
            if kind is not None:  # an image, or a model file given as data, is no lines of text
                raise DataError(f"{source}: not text ({kind}), so not labelled documents")
            fmt = sniff(first)
            if fmt is None:
                array = f"; {JSON_ARRAY}" if first.lstrip().startswith(b"[") else ""
                raise DataError(f"{source}: cannot tell the format from the name or the first line; "
                                f"set --input-format (folder, tsv, jsonl or fasttext){array}")
        # The first line goes on where it was cut to be told by: the rest is the same document.
        yield from read_labelled_lines(bounded_lines(stream, self.limit, first), source, fmt, self.report,
                                       encoding=self.encoding, progress=progress)


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
        raise DataError(f"predict reads files, folders, mail or stdin lines, not --input-format {input_format}")
    if input_format == "csv" and columns is None:
        raise DataError("--input-format csv reads the rows of a table: name its text column with --text-column")
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


def note_unread(inputs: Sequence[tuple[str, Sequence[str]]], report: ReadReport) -> None:
    """Put into ``report.unread`` each input (its name, and the files listed for it) of which
    every file listed was skipped; an input of no files gave nothing to skip, and is left out."""
    skipped = {source for sources in report.skipped.values() for source in sources}
    report.unread += [name for name, files in inputs if files and all(file in skipped for file in files)
                      and name not in report.unread]


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
    if fmt in MAIL_FORMATS:
        return "mail", _unlabelled_mail(path, fmt, report, stdin, limit)
    if path == "-":
        return "stdin lines", _stdin_lines(report, encoding, stdin, limit)
    return "documents", _unlabelled_files(path, report, encoding, limit)


def _rows_to_classify(path: str, report: ReadReport, encoding: str, input_format: str | None,
                      columns: Columns, limit: int | None) -> Iterator[Document]:
    """The rows of a table or JSONL file, each a document named by ``columns.id``."""
    table = input_format == "csv" or _suffix(path) in DELIMITERS
    if path == "-" or not table and _suffix(path) not in _COLUMN_SUFFIXES:
        raise _no_table(path, "--text-column and --id-column", formats=", ".join(_COLUMN_SUFFIXES),
                        kind="none of them")
    rows_of = Columns(columns.text, None, columns.id)
    if table:
        quoted = input_format == "csv" or _suffix(path) == ".csv"
        if is_pipe(path):  # the table reader looks at the header, then starts again
            raise _read_by_name(path, "csv" if quoted else "tsv")
        yield from read_table(path, DELIMITERS.get(_suffix(path), ","), rows_of, report, encoding=encoding,
                              quoted=quoted, limit=limit)
    else:
        yield from read_jsonl_fields(path, rows_of, report, encoding=encoding, limit=limit)


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
             "labelled ones; saved to a file, they are classified by a field with --text-field NAME",
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
            raise DataError(f"stdin holds one message; --input-format {fmt} needs a path")
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


def _read_by_name(path: str, fmt: str | None) -> DataError:
    """The error for a pipe given to be read as a format that reads a file or folder by name,
    or as a table by its columns (which looks at its header first)."""
    reader = (f"a {fmt} table read by its columns" if fmt in ("csv", "tsv") else f"--input-format {fmt}")
    return DataError(f"{path}: a pipe, which can be read once only, from its start; {reader} reads a file or "
                     f"folder by name: save it to one first (a pipe takes lines: {', '.join(LINE_FORMATS)})")


def _mailboxes(entries: list[Entry]) -> str | None:
    """How to read listed files where some class's largest file is an mbox of several messages
    (mailboxes exported one per class): ``mbox`` where every file is one, or empty (a mail
    client exports an empty folder as an empty file), else ``email``, so that a stray note or a
    class of message files is read beside the mboxes' messages, not the mboxes as one document
    each. ``email`` also where some file is named as a message is (``.eml``, as mail clients save
    one, or Apple Mail's ``.emlx``). None for anything
    else: a corpus of plain files costs one file's head a class."""
    if any(file.lower().endswith((".eml", ".emlx")) for file, _, _ in entries):  # a message a file
        return "email"
    largest: dict[str | None, tuple[str, int]] = {}
    for file, label, size in entries:
        if size > largest.get(label, ("", 0))[1]:
            largest[label] = (file, size)
    boxes = {file for file, _ in largest.values() if is_mbox(file)}
    if not boxes:
        return None
    return "mbox" if all(size == 0 or file in boxes or is_mbox(file) for file, _, size in entries) else "email"


def _folder_format(root: str) -> str:
    """``maildir`` when a class folder is a maildir or directly holds one, else ``folder``.

    Only two levels are looked at, so telling a plain corpus from mail does not walk its whole
    tree before it is read (``--input-format maildir`` finds maildirs at any depth).
    """
    for label in _subfolders(root):
        if is_maildir(label) or any(is_maildir(child) for child in _subfolders(label)):
            return "maildir"
    return "folder"


def _layout_hints(folders: Sequence[str]) -> list[str]:
    """What each DATA folder of ``folders``, which gave no document, seems to be instead, and
    what to give: a folder of files of labelled documents (``sms/`` for
    ``sms/SMSSpamCollection``), whose files are given themselves; a maildir's ``cur/``; or a
    class's own folder (``spam/``), whose parent holds the class folders, one line for the
    folders of one parent. Nothing for a folder that is none of these, or that holds a folder
    (an empty class's, said already).
    """
    hints: list[str] = []
    class_folders: dict[str, tuple[list[str], list[str]]] = {}  # parent: its folders, the DATA among them
    for root in folders:
        files = _files_only(root)
        if not files:
            continue
        parent = os.path.normpath(os.path.join(root, os.pardir))
        if parent == os.curdir or parent.startswith(os.pardir):  # "." would read as a full stop
            parent = os.path.abspath(parent)
        if is_maildir(parent):  # its cur/ or new/
            hints.append(f"{root} is a folder of the maildir {parent}, whose messages have no class: "
                         f"{MAILDIR_PER_CLASS}")
            continue
        kinds = [_SUFFIXES.get(_suffix(file)) or _sniffed(file) for file in files[:_TABLES_HINTED]]
        if len(files) <= _TABLES_HINTED and all(kinds):
            shown = ", ".join(sorted({kind for kind in kinds if kind}))
            hints.append(f"{files[0]} holds labelled documents ({shown}): give the file itself as DATA"
                         if len(files) == 1 else
                         f"the {len(files)} files of {root} hold labelled documents ({shown}): give the files "
                         "themselves as DATA")
        elif parent in class_folders:
            class_folders[parent][1].append(root)
        elif not os.path.samefile(parent, root):  # the root of the filesystem has no folder above
            class_folders[parent] = (sorted(map(os.path.basename, _subfolders(parent))), [root])
    for parent, (classes, roots) in class_folders.items():
        if len(classes) < 2:  # a folder of files in a folder of its own: no class folders to point to
            continue
        named = _named(classes)
        who = (f"{roots[0]} holds files and no folder, as one class's folder does" if len(roots) == 1 else
               f"{', '.join(roots[:-1])} and {roots[-1]} hold files and no folder, as class folders do")
        hints.append(f"{who}: give the folder above, {parent}, which holds a folder per class ({named})")
    return hints


def _named(names: Sequence[str]) -> str:
    """The first ``_CLASSES_HINTED`` of ``names``, and how many more."""
    named = ", ".join(names[:_CLASSES_HINTED])
    return named + (f" and {len(names) - _CLASSES_HINTED:,} more" if len(names) > _CLASSES_HINTED else "")


def _parts_hint(root: str, entries: Sequence[Entry]) -> str | None:
    """What to give instead where DATA ``root`` is a corpus's folder one level too high: its
    class folders are named as parts are (train and test; part1, part2; enron1..enron6), hold
    no document of their own, and hold mostly the same folders (20news-bydate/train/alt.atheism
    and 20news-bydate/test/alt.atheism), which are the classes. A root that holds one folder
    only (lingspam/bare/part1/spam) is looked at below it. None where ``root`` is no such folder.
    Only the listed ``entries`` are looked at: the check reads nothing more.
    """
    prefix = os.path.join(root, "")
    rows = [path[len(prefix):].split(os.sep, 3) for path, _, _ in entries if path.startswith(prefix)]
    while rows and len({row[0] for row in rows}) == 1 and all(len(row) > 2 for row in rows):
        prefix = os.path.join(prefix, rows[0][0], "")
        rows = [row[1:] for row in rows]
    if not rows or any(len(row) < 3 for row in rows):
        return None
    inside: dict[str, set[str]] = {}
    for row in rows:
        inside.setdefault(row[0], set()).add(row[1])
    parts = sorted(inside, key=_natural)
    shared = set.intersection(*inside.values())
    if len(parts) < 2 or len(shared) < 2 or 2 * len(shared) < len(set.union(*inside.values())) \
            or not _part_names(parts):
        return None
    where = prefix.rstrip(os.sep)
    told = (f"the folders of {where} ({_named(parts)}) were read as classes, but look" if where == root.rstrip(os.sep)
            else f"the documents of {root} are all in {where}, whose folders ({_named(parts)}) look")
    example = next((part for part in parts if part.lower() in ("train", "training")), parts[0])
    return (f"{told} like parts of one corpus: each holds the same folders ({_named(sorted(shared, key=_natural))}) "
            f"and no documents of its own. Give a part as DATA, or several ({os.path.join(where, example)}), whose "
            "folders are the classes")


#: Folder names that say a corpus is split, not what class a document is.
_SPLIT_NAMES = {"train", "training", "test", "testing", "dev", "devel", "val", "valid", "validation", "eval",
                "heldout", "holdout"}


def _part_names(names: Sequence[str]) -> bool:
    """Whether ``names`` are those of parts: split names (train, test), or one stem numbered
    (part1, part2; enron1..enron6; fold-0; 2003, 2004)."""
    if all(name.lower() in _SPLIT_NAMES for name in names):
        return True
    stems = {re.sub(r"[-_ ]?\d+$", "", name) for name in names}
    return len(stems) == 1 and all(re.search(r"\d$", name) for name in names)


def _natural(name: str) -> list:
    """A sort key that puts part2 before part10."""
    return [int(piece) if piece.isdigit() else piece for piece in re.split(r"(\d+)", name)]


def _files_only(folder: str) -> list[str]:
    """The non-hidden entries of ``folder``, in name order, where none is a folder; else, or
    where it cannot be listed (said already, as an unreadable folder), none."""
    try:
        with os.scandir(folder) as listing:
            children = [entry for entry in listing if not entry.name.startswith(".")]
    except OSError:
        return []
    return [] if any(is_folder(entry) for entry in children) else sorted(entry.path for entry in children)


#: How many files a folder may hold and still be hinted to be tables given by their folder.
_TABLES_HINTED = 10
#: How many class folders a hint names.
_CLASSES_HINTED = 6
#: How much of a file, and how many of its first lines, tell that it is labelled lines for a hint.
_SNIFFED_HINT = 1 << 16
_SNIFFED_LINES = 20


def _sniffed(path: str) -> str | None:
    """The labelled line format that a regular file's first lines all look like, as reading it
    as DATA would tell its first one, or None. Two lines at least, so that a class's document
    whose first line holds a tab is not taken for a table (a pipe is not opened: that would
    wait for a writer)."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SNIFFED_HINT)
            whole = not handle.read(1)
    except OSError:
        return None
    if not_text(head[:512]) is not None:
        return None
    lines = [line for line in head.splitlines(keepends=True) if line.strip()]
    if lines and not whole and not lines[-1].endswith(b"\n"):  # cut short by the read
        lines.pop()
    kinds = {sniff(line) for line in lines[:_SNIFFED_LINES]}
    return kinds.pop() if len(lines) >= 2 and len(kinds) == 1 else None


def _subfolders(path: str) -> list[str]:
    """The non-hidden folders directly in ``path`` (from directory entries, no stat each)."""
    with os.scandir(path) as entries:
        return [e.path for e in entries if is_folder(e) and not e.name.startswith(".")]


def _labelled_maildirs(root: str) -> list[tuple[str, str]]:
    """(maildir, label) for every maildir at or below ``root/<label>/``, in sorted order."""
    boxes = []
    for label in sorted(os.listdir(root)):
        top = os.path.join(root, label)
        if label.startswith(".") or not os.path.isdir(top):
            continue
        for dirpath, dirnames, _ in os.walk(top):
            dirnames.sort()
            if is_maildir(dirpath):
                boxes.append((dirpath, label))
                dirnames[:] = []
    return boxes


def _suffix(path: str) -> str:
    return os.path.splitext(path)[1].lower()


def table_kind(path: str) -> str | None:
    """``records`` for a file read by named columns or fields (CSV, JSONL), ``table`` for one
    read so only with column options (TSV), None for any other path."""
    suffix = _suffix(path)
    return "records" if suffix in _RECORD_SUFFIXES else "table" if suffix in _COLUMN_SUFFIXES else None


def standard_input() -> BinaryIO:
    """stdin, as bytes; a DataError where it is closed (a job started with ``<&-``)."""
    if sys.stdin is None:
        raise DataError("stdin is closed, so there is nothing to read from it: give files or folders, or pipe "
                        "documents in")
    return sys.stdin.buffer
