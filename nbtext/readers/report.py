"""The report of what was read: documents counted, replaced, empty or skipped, and why, so that
nothing is ever dropped silently."""

from __future__ import annotations

import codecs
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import DataError, spoken
from ..phrasing import plural, size_text
from .document import Document, blank, document_digest, label_digest, texts_of_several_labels


class TooLarge(Exception):
    """A document larger than the cap on one document's size (``MAX_DOCUMENT_BYTES``)."""

    def __init__(self, limit: int | None) -> None:
        super().__init__(limit)
        self.limit = limit

    @property
    def reason(self) -> str:
        """Why such a document is skipped, as the read report says it."""
        return too_large(self.limit)


def too_large(limit: int | None) -> str:
    """The read report's reason for skipping documents larger than ``limit`` bytes.

    >>> too_large(64 << 20)
    'larger than 64 MiB, the most one document may be'
    """
    return f"larger than {size_text(limit or 0)}, the most one document may be"


#: What training does with an empty document.
KEPT_EMPTY = "kept: they still count for the class priors"


@dataclass
class ReadReport:
    """What the readers saw, so that nothing is ever dropped silently.

    ``documents`` counts every document yielded; ``replaced`` and ``empty`` name the yielded
    documents that needed byte replacement or had no text; ``skipped`` maps a reason to the
    entries passed over (hidden files, non-regular files, blank lines).
    """

    documents: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    replaced: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)
    #: Non-text mail parts (images, archives...) left out of the documents.
    attachments: int = 0
    #: Messages whose MIME structure was broken; read as well as could be.
    malformed: list[str] = field(default_factory=list)
    #: How many of the documents were mail, decoded by the charsets their parts declare.
    messages: int = 0
    #: Messages with 8-bit text (a part, a Subject) in no declared charset that is not UTF-8,
    #: read in a guessed one (``decoding.undeclared_charset``): said, since a guess can be wrong.
    guessed: list[str] = field(default_factory=list)
    #: Of the documents in ``replaced``, how many were decoded in each encoding that a byte order
    #: mark chose over the one asked for (UTF-16 read as UTF-8): their bytes were not valid in it.
    replaced_marked: Counter[str] = field(default_factory=Counter)
    #: Document files that are web pages, read as the text they show.
    pages: list[str] = field(default_factory=list)
    #: A message of an mbox for each of its lines that start "From " but end in no mbox date:
    #: kept as its text, where Python's mailbox and mail programs like it start a message.
    from_lines: list[str] = field(default_factory=list)
    #: Files read as one document that hold several mbox messages: said, since the user
    #: likely meant --input-format mbox.
    mboxes_read_whole: list[str] = field(default_factory=list)
    #: Labelled files read as plain text that are mail messages as mail systems store them:
    #: said where they are most of what was read, since the user likely meant --input-format email.
    mail_read_as_text: list[str] = field(default_factory=list)
    #: Documents, not empty, in which a model found no word it knows: noted by the scoring
    #: commands, since only a model can tell, and answered as an empty document is.
    no_known_word: list[str] = field(default_factory=list)
    #: Documents predict answered ``unsure``: no label reached ``--threshold``.
    unsure: list[str] = field(default_factory=list)
    #: A digest of each labelled document's text (``text_digest``), and of its text with its
    #: label: which documents repeat another's text, and which texts came with two labels.
    #: Eight bytes each, not the documents, so that training still keeps no text.
    texts: array = field(default_factory=lambda: array("Q"))
    labelled_texts: array = field(default_factory=lambda: array("Q"))
    #: What a DATA argument that gave no document seems to be instead, and how to give it
    #: (a class's own folder, a table file inside a folder): said last, before the error.
    hints: list[str] = field(default_factory=list)
    #: Documents decoded in the encoding asked for (no byte order mark chose another) whose text
    #: goes past ASCII: where nearly all of them needed replacement, the data are 8-bit text.
    past_ascii: int = 0
    #: The classes the listing found documents to read for (files in a class folder, a maildir):
    #: one that gives none (each file skipped, as not text, say) is named, as an empty folder is.
    listed_classes: set[str] = field(default_factory=set)
    #: The inputs the caller named that gave no document, each of their entries skipped (a file
    #: that is no text, a folder of such files): an error, once the other inputs are answered.
    unread: list[str] = field(default_factory=list)
    #: Per numeric or categorical column, its empty cells: each leaves that feature out of its
    #: document (summed out, as Naive Bayes allows), not the document out.
    missing_values: Counter[str] = field(default_factory=Counter)
    #: Per categorical column, the values a model scored that it never saw in training: each
    #: scores as its smoothing implies (noted by the scoring commands, as only a model can tell).
    unseen_values: Counter[str] = field(default_factory=Counter)

    def add(self, doc: Document, *, replaced: bool, marked: str | None = None, page: bool = False,
            text: bool = True) -> Document:
        """Count one yielded document and hand it back; ``marked`` is the encoding it was decoded
        in where a byte order mark chose it over the one asked for; ``page``: it was a web page;
        not ``text``: a table's row read without a text column (no text is not an empty one)."""
        self.documents += 1
        if page:
            self.pages.append(doc.source)
        if doc.label is not None:
            self.labels[doc.label] += 1
        if replaced:
            self.replaced.append(doc.source)
            if marked is not None:
                self.replaced_marked[marked] += 1
        if marked is None and not doc.text.isascii():
            self.past_ascii += 1
        if text and blank(doc.text):
            self.empty.append(doc.source)
        if doc.label is not None:  # what train, eval and tune read: predict's documents cost nothing
            digest = document_digest(doc)
            self.texts.append(digest)
            self.labelled_texts.append(digest ^ label_digest(doc.label))
        return doc

    def update(self, other: ReadReport) -> None:
        """Add what another reader (another process, a cluster worker) saw."""
        self.documents += other.documents
        self.labels.update(other.labels)
        self.replaced += other.replaced
        self.replaced_marked.update(other.replaced_marked)
        self.empty += other.empty
        self.attachments += other.attachments
        self.malformed += other.malformed
        self.messages += other.messages
        self.guessed += other.guessed
        self.past_ascii += other.past_ascii
        self.pages += other.pages
        self.mboxes_read_whole += other.mboxes_read_whole
        self.from_lines += other.from_lines
        self.mail_read_as_text += other.mail_read_as_text
        self.no_known_word += other.no_known_word
        self.unsure += other.unsure
        self.texts += other.texts
        self.labelled_texts += other.labelled_texts
        self.hints += other.hints
        self.listed_classes |= other.listed_classes
        self.unread += other.unread
        self.missing_values.update(other.missing_values)
        self.unseen_values.update(other.unseen_values)
        for reason, sources in other.skipped.items():
            self.skipped.setdefault(reason, []).extend(sources)

    def repeated(self) -> tuple[int, int]:
        """How many labelled documents have the text of one read before them (exactly, after
        decoding), and how many texts came with more than one label."""
        if not self.texts:  # predict's documents, unlabelled: nothing to count, and no numpy.ma to import
            return 0, 0
        import numpy as np

        texts = np.frombuffer(self.texts, dtype=np.uint64)
        several = texts_of_several_labels(texts, np.frombuffer(self.labelled_texts, dtype=np.uint64))
        return len(texts) - len(np.unique(texts)), several

    def any_label(self, predicted: Sequence[str]) -> dict[str, Any]:
        """How often ``predicted`` (a label for each labelled document read, in order) is one of
        the labels its text came with, under this copy or another: over the distinct texts, as
        each copy of a text gets the same answer. Where texts come with several labels, each copy
        is scored against its own, and one answer can be right for only one of them; this is the
        accuracy that counts it right for any (a multi-label corpus's precision at 1)."""
        import numpy as np

        texts = np.frombuffer(self.texts, dtype=np.uint64)
        answers = texts ^ np.array([label_digest(label) for label in predicted], dtype=np.uint64)
        right = np.isin(answers, np.frombuffer(self.labelled_texts, dtype=np.uint64))
        _, first = np.unique(texts, return_index=True)
        return {"distinct_texts": len(first), "any_label_accuracy": float(right[first].mean())}

    def skipped_count(self) -> int:
        """How many entries were skipped, for every reason."""
        return sum(map(len, self.skipped.values()))

    def check_all_read(self) -> None:
        """A DataError where an input the caller named gave no document, each of its entries
        skipped: a file named that is no text is no document to answer for, whatever else is
        read beside it, and a script must not take its silence for an answer. Entries skipped
        inside a folder that gave other documents are counted in the report, not errors."""
        if not self.unread:
            return
        reasons = {source: reason for reason, sources in self.skipped.items() for source in sources}
        raise DataError("; ".join(f"{path} gave no document: skipped, {reasons[path]}" if path in reasons else
                                  f"{path} gave no document: every entry of it was skipped" for path in self.unread))

    def skip(self, reason: str, source: str) -> None:
        """Count one entry that is not a document, with the reason."""
        self.skipped.setdefault(reason, []).append(source)

    def _replaced_unmarked(self) -> int:
        """How many replaced documents were decoded in the encoding asked for (or mail's)."""
        return len(self.replaced) - sum(self.replaced_marked.values())

    def _invalid_in(self, encoding: str) -> str:
        """The encodings the replaced documents' bytes were not valid in: the one asked for, those
        byte order marks chose, and mail's own charsets."""
        unmarked = self._replaced_unmarked() > 0
        names = [encoding] * (unmarked and self.messages < self.documents) + sorted(self.replaced_marked)
        if unmarked and self.messages:
            names.append("in the charsets their messages declare")
        return ", or ".join(names)

    def _eight_bit(self, encoding: str) -> str | None:
        """Where nearly every document past ASCII had bytes not valid UTF-8, the data are most
        likely 8-bit text (20news's posts, rt-polarity's sentences, a CSV Excel saved on
        Windows), each accented letter U+FFFD and each word with one garbled: the option that
        reads them. Not for mail, whose messages name their own charsets."""
        replaced = self._replaced_unmarked()
        if (replaced < 5 or 10 * replaced < 9 * self.past_ascii or self.messages
                or 2 * len(self.mail_read_as_text) >= self.documents or codecs.lookup(encoding).name != "utf-8"):
            return None
        which = ("every document with a byte past ASCII is" if replaced == self.past_ascii else
                 f"{replaced:,} of the {self.past_ascii:,} documents with a byte past ASCII are")
        return (f"{which} among them: the data are likely 8-bit text, not utf-8 (`encoding` cp1252, as Windows "
                "and Excel save it, or latin-1 reads it)")

    def lines(self, *, verbose: bool = False, encoding: str = "utf-8", empty: str = KEPT_EMPTY,
              repeats: bool = True, name_of: Callable[[str], str] | None = None) -> list[str]:
        """Human-readable account, one line per fact; ``verbose`` also names each entry; each
        parameter named as ``name_of`` names it (see ``errors.spoken``).

        ``empty`` says what became of the empty documents: kept for the class priors when
        training; when classifying, what the model answers them (its core's ``empty_answer``).
        ``repeats``: also the documents that repeat another's text, and the texts with two labels.
        """
        out = [f"read {self.documents:,} {plural(self.documents, 'document')}"]
        groups = [
            (self.replaced, f"decoded with replacement (bytes not valid {self._invalid_in(encoding)})"),
            (self.guessed, f"{plural(len(self.guessed), 'message')} read in a guessed charset (8-bit text in no "
                           "declared charset, not UTF-8: read as Windows-1252, or in the script a detector finds)"),
            (self.empty, f"empty ({empty})"),
            (self.no_known_word, f"with no word the model knows ({empty})"),
            (self.unsure, "answered unsure: no label as probable as the threshold"),
            (self.malformed, f"{plural(len(self.malformed), 'message')} with malformed MIME (read as well as they "
                             "could be)"),
            (self.pages, "read as web pages: the text they show, without their tags, scripts and styles"),
            (self.mboxes_read_whole, "read whole, each one document, though they hold several mbox messages "
                                     "(`input_format` mbox reads each message)"),
        ]
        groups += [(sources, f"skipped: {why}") for why, sources in sorted(self.skipped.items())]
        for sources, what in groups:
            if sources:
                out.append(f"{len(sources):,} {what}")
                if sources is self.replaced and (eight_bit := self._eight_bit(encoding)):
                    out.append(eight_bit)
                if verbose:
                    out.extend(f"  {source}" for source in sources)
        if self.from_lines:
            holding = sorted(set(self.from_lines), key=self.from_lines.index)
            out.append(f"{len(self.from_lines):,} {plural(len(self.from_lines), 'line')} starting 'From ' without an "
                       f"mbox date, in {len(holding):,} {plural(len(holding), 'message')}: kept in "
                       f"{'its' if len(holding) == 1 else 'their'} text (Python's "
                       "mailbox, and mail programs like it, would start a message at each)")
            if verbose:
                out.extend(f"  {source}" for source in holding)
        copies, relabelled = self.repeated() if repeats else (0, 0)
        if copies:
            out.append(f"{copies:,} {plural(copies, 'document')} with the text of one read before "
                       "(kept: each counts)")
        if relabelled:
            out.append(f"{relabelled:,} {plural(relabelled, 'text')} with more than one label")
        mail = len(self.mail_read_as_text)
        if mail and 2 * mail >= self.documents:  # not a mailing list's few posts in a corpus of others
            their = "its" if mail == 1 else "their"
            out.append(f"{mail:,} {plural(mail, 'mail message')} read as plain text, {their} headers and MIME "
                       "encoding as words: `input_format` email reads mail as mail (and training on mail with a "
                       "spam class makes a spam filter)")
        for name, n in sorted(self.missing_values.items()):
            out.append(f"{n:,} empty {plural(n, 'cell')} in column {name!r} (each leaves that column out of its "
                       "document, not the document out)")
        for name, n in sorted(self.unseen_values.items()):
            out.append(f"{n:,} {plural(n, 'value')} of column {name!r} the model never saw in training (each scores "
                       "as the smoothing implies)")
        if self.attachments:
            attachments = plural(self.attachments, "mail attachment")
            out.append(f"{self.attachments:,} {attachments} skipped (attached files, not the message's text)")
        # With other classes read, one gone would have only the count of skipped files to tell it.
        lost = sorted(self.listed_classes - set(self.labels)) if self.labels else []
        if lost:
            out.append(f"{len(lost):,} {plural(len(lost), 'class')} whose folder gave no document: {', '.join(lost)}")
        return [spoken(line, name_of) for line in out + self.hints]


