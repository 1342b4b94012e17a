"""A spam filter at work, as ``nbtext filter`` runs it: one message judged (and passed on with
its verdict in a header), or each message of an mbox, a maildir or a folder judged in turn.

A single message is what a mail server hands a filter, once per message: this module loads
the model and what reading one message needs, and nothing that trains.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from .errors import DataError
from .inputs import trained_format
from .limits import MAX_DOCUMENT_BYTES
from .mailheaders import insert_header, status_header, words_header
from .model import Explanation, Model
from .phrasing import size_text
from .readers import (
    MAIL_FORMATS,
    Document,
    MailBatch,
    ReadReport,
    documents_of,
    iter_unlabelled,
    standard_input,
)
from .readers.decoding import WIDE_HEAD, decode_file
from .readers.document import without_known_words
from .readers.filekinds import decompressed, file_not_text, stream_not_text
from .readers.files import is_pipe
from .readers.mail import read_message
from .readers.mailboxes import holds_mbox_messages, is_mbox
from .readers.report import TooLarge
from .spam import SpamFilter


@dataclass
class Message:
    """One message as the filter read it: its bytes (at most the cap on a document's size, and
    decompressed where a mail server keeps it compressed), the ``source`` it came from (a path,
    or ``-`` for stdin), and, for a message over the cap, the open file it goes on in, unread."""

    raw: bytes
    source: str
    #: "stdin", or the pipe's path: read once, so it is one message (an mbox in it is refused).
    stream: str | None
    rest: BinaryIO | None = None

    @property
    def name(self) -> str:
        return "<stdin>" if self.source == "-" else self.source


@contextlib.contextmanager
def one_message(source: str, max_document_bytes: int = MAX_DOCUMENT_BYTES) -> Iterator[Message | None]:
    """The message at ``source`` where it is one (a file that is no mbox, a pipe, or stdin as
    ``-``), read up to ``max_document_bytes``; None where it is many (an mbox, a compressed one
    too, a maildir, a folder), for ``messages`` to read. The file stays open while the message
    is used: a message over the cap goes on from it, should it be passed on."""
    stream = "stdin" if source == "-" else source if is_pipe(source) else None
    if stream is None and not (os.path.isfile(source) and not is_mbox(source)):
        yield None
        return
    with contextlib.ExitStack() as opened:
        handle = standard_input() if source == "-" else opened.enter_context(open(source, "rb"))
        raw = handle.read(max_document_bytes + 1)
        message = Message(raw, source, stream)
        if len(raw) > max_document_bytes:
            message.rest = handle
        elif stream is None:
            try:
                inner = decompressed(raw, max_document_bytes)  # as a mail server may keep it (see read_listed)
            except TooLarge:
                inner, message.rest = None, handle
            if inner is not None:
                if holds_mbox_messages(inner):  # a compressed mbox: a line a message, as any mbox
                    yield None
                    return
                message.raw = inner
        yield message


@dataclass
class Judged:
    """One message's verdict (an index into ``spam.VERDICTS``) and score; where asked for, the
    words that most moved the score and the message as passed on (its verdict in a header);
    and what reading it saw, with the model and filter that judged it."""

    verdict: int
    score: float
    why: Explanation | None
    passed: bytes | None
    report: ReadReport
    model: Model
    spam_filter: SpamFilter


def judge_message(model_path: str, message: Message, *, spam_cutoff: float | None = None,
                  ham_cutoff: float | None = None, explain: int | None = None, passthrough: bool = False,
                  max_document_bytes: int = MAX_DOCUMENT_BYTES) -> Judged:
    """``message`` judged by the filter model at ``model_path``, at its cut-offs or those given;
    with ``explain``, the words that most raise its score (or lower it, below 0.5); with
    ``passthrough``, the message with an ``X-Nbtext-Status`` header added (and the words, in
    ``X-Nbtext-Words``). A message over the cap, one of several mbox messages in a stream
    (which one verdict cannot answer), or no text at all is a DataError, found before the
    model is loaded for nothing.

    Examples
    --------
    >>> import tempfile, os
    >>> from nbtext.spam_training import train_filter
    >>> from nbtext.training import DEFAULT_ANALYZER
    >>> docs = [Document(f"cheap pills {i}", "spam", f"s{i}") for i in range(10)]
    >>> docs += [Document(f"lunch at noon {i}", "ham", f"h{i}") for i in range(10)]
    >>> path = os.path.join(tempfile.mkdtemp(), "filter.joblib")
    >>> train_filter(docs, analyzer=DEFAULT_ANALYZER).save(path)
    >>> judged = judge_message(path, Message(b"Subject: hi\\n\\ncheap pills", "a.eml", None), passthrough=True)
    >>> judged.passed.splitlines()[1].split(b",")[0]  # short of the 0.99 a filter needs to call it spam
    b'X-Nbtext-Status: Unsure'
    """
    if message.rest is not None:
        raise DataError(f"{message.name}: a message of more than {size_text(max_document_bytes)}, the most one "
                        "document may be (`max_document_bytes`)")
    raw, stream = message.raw, message.stream
    if stream is not None and holds_mbox_messages(raw):
        raise DataError(f"{stream} holds several mbox messages, and the filter gives {stream} one verdict: give "
                        "the mbox as a file (nbtext filter MODEL BOX.mbox) for a line each")
    kind = stream_not_text(raw) if stream else file_not_text(raw[:WIDE_HEAD], message.source)
    if kind is not None:  # a program, a PDF, a Word document: no mail
        raise DataError(f"{message.name}: not text ({kind}), so no message to filter")
    model = Model.load(model_path)
    spam_filter = SpamFilter.of(model).with_cutoffs(spam_cutoff, ham_cutoff)
    report = ReadReport()
    if trained_format(model):
        doc = read_message(raw, message.source, None, report, model.analyzer.headers)
    else:
        text, replaced = decode_file(raw, "utf-8")[:2]
        doc = report.add(Document(text, None, message.source), replaced=replaced)
    log_proba = model.predict_log_proba([doc.text])
    report.no_known_word = without_known_words([doc], model.scored_as_empty(log_proba))
    score = float(spam_filter.scores_of(log_proba, model.classes)[0])
    verdict = int(spam_filter.verdicts(np.array([score]))[0])
    why = model.explain([doc.text], explain, log_proba=log_proba)[0] if explain else None
    passed = None
    if passthrough:
        passed = insert_header(raw, status_header(verdict, score))
        if why is not None:
            passed = insert_header(passed, words_header(why))
    return Judged(verdict, score, why, passed, report, model, spam_filter)


def with_filter(model: Model, *, spam_cutoff: float | None = None,
                ham_cutoff: float | None = None) -> tuple[Model, SpamFilter]:
    """``model`` and its spam filter at the cut-offs given (a scoring process's state)."""
    return model, SpamFilter.of(model).with_cutoffs(spam_cutoff, ham_cutoff)


def messages(source: str, model: Model, report: ReadReport, *, max_document_bytes: int = MAX_DOCUMENT_BYTES,
             parse_apart: bool = False) -> Iterator[tuple[list[Document] | MailBatch, bool]]:
    """The messages of ``source`` (an mbox, a maildir, a folder of message files), in batches as
    ``readers.iter_unlabelled`` gives them, read as ``model`` was trained; with ``parse_apart``,
    mail comes unparsed (MailBatch), for the scoring processes to parse."""
    read_as = trained_format(model)
    return iter_unlabelled([source], report, input_format=read_as, headers=model.analyzer.headers,
                           max_document_bytes=max_document_bytes, unparsed_mail=parse_apart and read_as in MAIL_FORMATS)


@dataclass
class Verdicts:
    """A batch of messages judged: each message, its verdict and score, and where asked for
    the words that most moved its score; and what reading the batch saw."""

    documents: list[Document]
    verdicts: np.ndarray
    scores: np.ndarray
    why: list[Explanation] | None
    seen: ReadReport


def judge_batch(state: tuple[Model, SpamFilter], batch: list[Document] | MailBatch, *,
                explain: int | None = None) -> Verdicts:
    """Each message of ``batch`` (or of a MailBatch, parsed here) judged by ``state``'s model
    and filter (``with_filter``)."""
    model, spam_filter = state
    documents, seen = documents_of(batch)
    if not documents:
        return Verdicts([], np.zeros(0, dtype=np.int64), np.zeros(0), None, seen)
    texts = [doc.text for doc in documents]
    log_proba = model.predict_log_proba(texts)
    scores = spam_filter.scores_of(log_proba, model.classes)
    seen.no_known_word = without_known_words(documents, model.scored_as_empty(log_proba))
    why = model.explain(texts, explain, log_proba=log_proba) if explain else None
    return Verdicts(documents, spam_filter.verdicts(scores), scores, why, seen)
