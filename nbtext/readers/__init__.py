"""Readers: every input kind yields the same Document record and feeds one ReadReport.

A DATA argument is a folder-per-class directory, a labelled line file (TSV ``label<TAB>text``,
JSONL ``{"label": ..., "text": ...}``, fastText ``__label__X text``), a table, a mailbox, or
``-`` for stdin. The format comes from the path (a folder, or the file's suffix), else from the
first line. Each module here reads one kind, or does one part of reading; this one only names
what the rest of nbtext uses.
"""

from __future__ import annotations

from ..limits import MAX_DOCUMENT_BYTES
from .corpus import (
                     INPUT_FORMATS,
                     MAIL_FORMATS,
                     UNREAD,
                     FileBatch,
                     LabelledCorpus,
                     MailBatch,
                     Reading,
                     documents_of,
                     note_unread,
)
from .decoding import check_encoding
from .document import Document
from .files import standard_input
from .layout import table_kind
from .lines import LINE_FORMATS
from .mail import USEFUL_HEADERS
from .report import ReadReport
from .tables import Columns
from .unlabelled import iter_unlabelled

__all__ = [
    "INPUT_FORMATS", "LINE_FORMATS", "MAIL_FORMATS", "MAX_DOCUMENT_BYTES", "USEFUL_HEADERS", "Columns", "Document",
    "FileBatch", "LabelledCorpus", "MailBatch", "ReadReport", "Reading", "UNREAD", "check_encoding", "documents_of",
    "iter_unlabelled", "note_unread", "standard_input", "table_kind",
]
