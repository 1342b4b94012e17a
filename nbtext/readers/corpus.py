"""A labelled corpus: the documents of several DATA arguments (folders of class folders, line files,
tables, mailboxes), read once and in order, and handed out read or unread to whoever counts them."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

from ..errors import DataError
from ..limits import MAX_DOCUMENT_BYTES
from .decoding import check_encoding
from .document import Document
from .filekinds import (
    STREAM_HEAD,
    by_name,
    check_not_compressed,
    not_text,
    stream_not_text,
)
from .files import file_size, is_pipe, is_url, not_found, open_binary, standard_input
from .folders import NO_DOCUMENTS, Entry, list_folder, read_files
from .layout import (
    COLUMN_SUFFIXES,
    MAILDIR_PER_CLASS,
    NO_MAILDIR,
    SUFFIXES,
    folder_format,
    labelled_maildirs,
    layout_hints,
    mailbox_format,
    not_a_table,
    parts_hint,
    read_by_name,
    subfolders,
    suffix,
    table_kind,
)
from .lines import (
    CR_HEAD,
    LINE_FORMATS,
    bounded_lines,
    check_splits_into_lines,
    read_labelled_lines,
    told_format,
    with_lf_lines,
)
from .mail import RawMessage, parse_messages
from .mailboxes import (
    is_maildir,
    is_mbox,
    maildir_messages,
    mbox_messages,
    read_message_files,
)
from .report import ReadReport
from .tables import DELIMITERS, Columns, read_jsonl_fields, read_manifest, read_table

MAIL_FORMATS = ("email", "mbox", "maildir")


INPUT_FORMATS = ("folder", *LINE_FORMATS, "csv", "manifest", *MAIL_FORMATS)


_LABELLED_COLUMN_OPTIONS = "`text_column`, `label_column`, `id_column` and `skip_unlabelled`"


#: How much of a line file's first line tells its format: the start of a fastText or JSONL
#: line, or a TSV label's tab. A first line that long is still read whole once it is told.
_SNIFFED = 1 << 20


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
        #: The corpus being read.
        self.corpus = corpus
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
        self.paths = list(paths)
        self.input_format = input_format
        self._stdin = stdin
        self.headers = tuple(headers)
        self.columns = columns
        self.limit = max_document_bytes
        #: (DATA, its format, its entries) for each DATA, in order: what is read, and how.
        self.plan: list[tuple[str, str | None, list]] = []
        #: The bytes of each part of the plan, where known (not for stdin or a pipe).
        self.sizes: list[int | None] = []
        for path in paths:
            for fmt, entries, size in self._plan_one(path, input_format):
                self.plan.append((path, fmt, entries))
                self.sizes.append(size)
        self.report.hints += layout_hints([path for path, fmt, entries in self.plan
                                            if fmt in ("folder", "email", "mbox") and not entries])
        # The entries of folders and maildirs are (path, label, ...): the classes they promise.
        self.report.listed_classes.update(entry[1] for _, fmt, entries in self.plan for entry in entries)
        self.total_bytes = None if None in self.sizes else sum(s for s in self.sizes if s is not None)

    def _plan_one(self, path: str, input_format: str | None) -> list[tuple[str | None, list, int | None]]:
        """How to read one DATA argument: (format, entries, bytes) for each of its parts."""
        if path == "-":
            if self.columns is not None:  # the table and field readers take files, by name
                raise not_a_table(path, _LABELLED_COLUMN_OPTIONS)
            if input_format not in (None, *LINE_FORMATS):  # else the pipe would go unread, and nothing be said
                reads = ("a table file" if input_format == "csv" else "a list of files" if input_format == "manifest"
                         else "DIR/<label>/ folders")
                raise DataError(f"`input_format` {input_format} reads {reads} by name, not stdin: stdin takes "
                                f"one labelled document a line ({', '.join(LINE_FORMATS)})")
            return [(input_format, [], None)]
        if is_url(path):
            return [self._plan_url(path, input_format)]
        if not os.path.exists(path):
            raise not_found(path)
        fmt = input_format or (folder_format(path) if os.path.isdir(path) else SUFFIXES.get(suffix(path)))
        if self.columns is not None and fmt not in ("csv", "tsv", "jsonl", "manifest"):  # else quietly unused
            if fmt is None and os.path.isfile(path):  # sms.csv.gz: not named a table, but the fix is to decompress it
                with open(path, "rb") as handle:
                    check_not_compressed(handle.read(16), path)
            kind = "a folder" if os.path.isdir(path) else f"read as {fmt}" if fmt else "none of them"
            raise not_a_table(path, _LABELLED_COLUMN_OPTIONS, kind=kind,
                            formats=f"{', '.join(COLUMN_SUFFIXES)}, or `input_format` csv, tsv or jsonl")
        if is_pipe(path):  # read once, from its start, as stdin is
            if fmt not in (None, *LINE_FORMATS) or (fmt == "tsv" and self.columns is not None):
                raise read_by_name(path, fmt)
            return [(fmt, [], None)]
        if is_maildir(path):  # else a model of classes cur and new
            raise DataError(f"{path}: a maildir, whose messages have no class; {MAILDIR_PER_CLASS}")
        if fmt in ("folder", "email", "mbox"):
            if not os.path.isdir(path):
                raise DataError(f"{path}: not a folder; `input_format` {fmt} reads DIR/<label>/** files")
            entries = list_folder(path, self.report, labelled=True)
            if (hint := parts_hint(path, entries)) is not None:
                self.report.hints.append(hint)
            if input_format is None:  # mailboxes exported per class (spam/spam.mbox): one message a document
                fmt = mailbox_format(entries) or fmt
            return [(fmt, entries, sum(size for _, _, size in entries))]
        if fmt == "maildir":
            boxes = labelled_maildirs(path)
            if not boxes:
                raise DataError(f"{path}: no maildir (cur/, new/, tmp/) in DIR/<label>/")
            return [(fmt, boxes, None), *self._classes_without_maildir(path, boxes, input_format)]
        if os.path.isdir(path):
            raise DataError(f"{path}: is a folder, but `input_format` {fmt} expects a file")
        if fmt is None and is_mbox(path):  # else "cannot tell the format", which names line formats only
            raise DataError(f"{path}: an mbox, whose messages have no class; give a folder of one folder per "
                            f"class (DATA/spam/spam.mbox, DATA/ham/inbox.mbox)")
        return [(fmt, [], os.path.getsize(path))]

    def _plan_url(self, path: str, input_format: str | None) -> tuple[str | None, list, int]:
        """How to read a URL: as the line file or table it names."""
        fmt = input_format or SUFFIXES.get(suffix(path))
        if fmt not in (None, *LINE_FORMATS, "csv"):
            raise DataError(f"{path}: a URL is read as a line file or table (tsv, csv, jsonl, fasttext), not as "
                            f"`input_format` {fmt}; folders of class folders are read from a file system")
        if self.columns is not None and fmt not in ("csv", "tsv", "jsonl"):
            raise not_a_table(path, _LABELLED_COLUMN_OPTIONS, kind=f"read as {fmt}" if fmt else "none of them",
                              formats=f"{', '.join(COLUMN_SUFFIXES)}, or `input_format` csv, tsv or jsonl")
        return fmt, [], file_size(path)

    def _classes_without_maildir(self, root: str, boxes: list[tuple[str, str]],
                                 input_format: str | None) -> list[tuple[str, list, int]]:
        """The class folders of ``root`` that hold no maildir, where others do: found by looking
        (an inbox maildir beside spam/spam.mbox), they are read as mail, each file a message and
        an mbox's each message; with --input-format maildir, skipped and counted. Either way
        no class goes missing unsaid."""
        with_box = {label for _, label in boxes}
        others = [folder for folder in sorted(subfolders(root)) if os.path.basename(folder) not in with_box]
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

    @property
    def summary(self) -> dict[str, Any]:
        """What a model trained on this corpus records of it, for eval, predict and ``train
        --update`` to read new documents the same way: its DATA (absolute paths), the format it
        was read in (``email`` where mailboxes were found as such), and the columns or fields of
        the tables read by them (None for other data).

        >>> import tempfile, pathlib
        >>> table = pathlib.Path(tempfile.mkdtemp()) / "tickets.csv"
        >>> _ = table.write_text("label,text\\nbilling,refund\\n")
        >>> LabelledCorpus([str(table)]).summary["columns"]
        {'text': 'text', 'label': 'label', 'id': None}
        """
        read_as = self.input_format or ("email" if self.is_mail else None)
        columns: dict[str, Any] | None = None
        if self.columns is not None or any(table_kind(path) == "records" for path in self.paths):
            given = self.columns or Columns()
            columns = {"text": given.text, "label": given.label, "id": given.id}
            if given.label_separator:
                columns["label_separator"] = given.label_separator
            if given.values:  # a model without them keeps the layout of the files that were written before
                columns.update(numeric=list(given.numeric), categorical=list(given.categorical),
                              text_optional=given.text_optional)
        return {"inputs": [path if path == "-" or is_url(path) else os.path.abspath(path) for path in self.paths],
                "input_format": read_as, "columns": columns}

    def check_all_read(self) -> None:
        """Once the documents are read: a DataError where a DATA folder gave none, each of its
        files skipped (a line file that is no text is an error as it is read), as for every
        input named (``ReadReport.check_all_read``)."""
        note_unread([(path, [entry[0] for entry in entries]) for path, fmt, entries in self.plan
                     if fmt in ("folder", "email")], self.report)
        self.report.check_all_read()

    @property
    def is_mail(self) -> bool:
        """Whether every DATA argument is read as mail (email, mbox or maildir)."""
        return bool(self.plan) and all(fmt in MAIL_FORMATS for _, fmt, _ in self.plan)

    @property
    def read_apart(self) -> bool:
        """Whether ``batches`` hands out every document unread (FileBatch), or every one unparsed
        (MailBatch), so that whoever takes a batch accounts for all its reading, or all its
        parsing, in the same order as one process would."""
        formats = {fmt for _, fmt, _ in self.plan}
        return bool(formats) and (formats <= {"folder", "email"} or formats <= {"mbox", "maildir"})

    def __iter__(self) -> Iterator[Document]:
        return self.read()

    def read(self, progress: Callable[[int], None] | None = None) -> Reading:
        """Every document, read as it is asked for; ``progress`` is called with the number of
        bytes consumed. The Reading can hand folders' files out unread instead (``batches``)."""
        return Reading(self, progress)

    def _documents(self, progress: Callable[[int], None] | None) -> Iterator[Document]:
        for path, fmt, entries in self.plan:
            yield from self._read_one(path, fmt, entries, progress)

    def _batches(self, size: int,
                 progress: Callable[[int], None] | None) -> Iterator[list[Document] | FileBatch | MailBatch]:
        for path, fmt, entries in self.plan:
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
            delimiter = "\t" if fmt == "tsv" else DELIMITERS.get(suffix(path), ",")
            yield from read_table(path, delimiter, self.columns or Columns(), self.report,
                                  encoding=self.encoding, quoted=fmt == "csv", progress=progress, limit=self.limit)
        elif fmt == "jsonl" and self.columns is not None and path != "-":
            yield from read_jsonl_fields(path, self.columns, self.report, encoding=self.encoding,
                                         progress=progress, limit=self.limit)
        elif path == "-":
            stdin = with_lf_lines(self._stdin or standard_input())
            yield from self._read_lines(stdin, "<stdin>", fmt, progress)
        else:
            with open_binary(path, buffering=CR_HEAD) as handle:
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
        if fmt is None:  # an image, or a model file given as data, is no lines of text
            fmt = told_format(first, source, stream_not_text(head) if piped else by_name(not_text(first), source))
        # The first line goes on where it was cut to be told by: the rest is the same document.
        yield from read_labelled_lines(bounded_lines(stream, self.limit, first), source, fmt, self.report,
                                       encoding=self.encoding, progress=progress)


def note_unread(inputs: Sequence[tuple[str, Sequence[str]]], report: ReadReport) -> None:
    """Put into ``report.unread`` each input (its name, and the files listed for it) of which
    every file listed was skipped; an input of no files gave nothing to skip, and is left out."""
    skipped = {source for sources in report.skipped.values() for source in sources}
    report.unread += [name for name, files in inputs if files and all(file in skipped for file in files)
                      and name not in report.unread]


