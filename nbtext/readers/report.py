"""The record every reader yields, and the report of what was read, replaced or skipped."""

from __future__ import annotations

import codecs
import functools
import importlib
import os
import re
import shlex
import struct
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..errors import DataError
from .html import html_charset, html_to_text, is_page


@dataclass(frozen=True, slots=True)
class Document:
    """One document: its text, its label (None when unlabelled) and where it came from."""

    text: str
    label: str | None
    source: str
    message_id: str | None = None


def labels_of(documents: Iterable[Document]) -> list[str]:
    """The documents' labels, or a DataError naming the first document without one, or a
    TypeError naming the first whose label is a string where the others' are not, or the other
    way round (a table's missing label, read by pandas as the float NaN): such labels cannot
    be sorted into classes, and would fail only after all the counting."""
    labels = []
    first: Document | None = None
    for doc in documents:
        if not isinstance(doc, Document):  # a library caller's (text, label) pair or bare text
            raise TypeError(f"documents must be Document(text, label, source) records, not {type(doc).__name__}")
        if doc.label is None:
            raise DataError(f"{doc.source}: document has no label")
        if first is None:
            first = doc
        elif isinstance(doc.label, str) is not isinstance(first.label, str):
            raise TypeError(f"{doc.source}: label {doc.label!r} is {type(doc.label).__name__}, where {first.source} "
                            f"has {first.label!r}, {type(first.label).__name__}: labels must be all strings or none")
        labels.append(doc.label)
    return labels


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


def size_text(n: int) -> str:
    """``n`` bytes, as a person reads a size.

    >>> size_text(64 << 20), size_text(1536), size_text(100), size_text(3 << 40)
    ('64 MiB', '1.5 KiB', '100 bytes', '3 TiB')
    """
    for unit, power in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << power:
            return f"{n / (1 << power):.4g} {unit}"
    return f"{n:,} {plural(n, 'byte')}"


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

    def add(self, doc: Document, *, replaced: bool, marked: str | None = None, page: bool = False) -> Document:
        """Count one yielded document and hand it back; ``marked`` is the encoding it was decoded
        in where a byte order mark chose it over the one asked for; ``page``: it was a web page."""
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
        if blank(doc.text):
            self.empty.append(doc.source)
        if doc.label is not None:  # what train, eval and tune read: predict's documents cost nothing
            digest = text_digest(doc.text)
            self.texts.append(digest)
            self.labelled_texts.append(digest ^ _label_digest(doc.label))
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
        self.past_ascii += other.past_ascii
        self.pages += other.pages
        self.mboxes_read_whole += other.mboxes_read_whole
        self.from_lines += other.from_lines
        self.mail_read_as_text += other.mail_read_as_text
        self.no_known_word += other.no_known_word
        self.texts += other.texts
        self.labelled_texts += other.labelled_texts
        self.hints += other.hints
        self.listed_classes |= other.listed_classes
        self.unread += other.unread
        for reason, sources in other.skipped.items():
            self.skipped.setdefault(reason, []).extend(sources)

    def repeated(self) -> tuple[int, int]:
        """How many labelled documents have the text of one read before them (exactly, after
        decoding), and how many texts came with more than one label."""
        if not self.texts:  # predict's documents, unlabelled: nothing to count, and no numpy.ma to import
            return 0, 0
        import numpy as np

        texts = np.frombuffer(self.texts, dtype=np.uint64)
        # One document of each (text, label) pair, then how many labels each text has.
        _, first = np.unique(np.frombuffer(self.labelled_texts, dtype=np.uint64), return_index=True)
        _, labels = np.unique(texts[first], return_counts=True)
        return len(texts) - len(np.unique(texts)), int((labels > 1).sum())

    def any_label(self, predicted: Sequence[str]) -> dict[str, Any]:
        """How often ``predicted`` (a label for each labelled document read, in order) is one of
        the labels its text came with, under this copy or another: over the distinct texts, as
        each copy of a text gets the same answer. Where texts come with several labels, each copy
        is scored against its own, and one answer can be right for only one of them; this is the
        accuracy that counts it right for any (a multi-label corpus's precision at 1)."""
        import numpy as np

        texts = np.frombuffer(self.texts, dtype=np.uint64)
        answers = texts ^ np.array([_label_digest(label) for label in predicted], dtype=np.uint64)
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
        return (f"{which} among them: the data are likely 8-bit text, not utf-8 (--encoding cp1252, as Windows "
                "and Excel save it, or latin-1 reads it)")

    def lines(self, *, verbose: bool = False, encoding: str = "utf-8", empty: str = KEPT_EMPTY,
              repeats: bool = True) -> list[str]:
        """Human-readable account, one line per fact; ``verbose`` also names each entry.

        ``empty`` says what became of the empty documents: kept for the class priors when
        training; when classifying, what the model answers them (its core's ``empty_answer``).
        ``repeats``: also the documents that repeat another's text, and the texts with two labels.
        """
        out = [f"read {self.documents:,} {plural(self.documents, 'document')}"]
        groups = [
            (self.replaced, f"decoded with replacement (bytes not valid {self._invalid_in(encoding)})"),
            (self.empty, f"empty ({empty})"),
            (self.no_known_word, f"with no word the model knows ({empty})"),
            (self.malformed, f"{plural(len(self.malformed), 'message')} with malformed MIME (read as well as they "
                             "could be)"),
            (self.pages, "read as web pages: the text they show, without their tags, scripts and styles"),
            (self.mboxes_read_whole, "read whole, each one document, though they hold several mbox messages "
                                     "(--input-format mbox reads each message)"),
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
                       "encoding as words: --input-format email reads mail as mail (and training on mail with a "
                       "spam class makes a spam filter)")
        if self.attachments:
            attachments = plural(self.attachments, "mail attachment")
            out.append(f"{self.attachments:,} {attachments} skipped (attached files, not the message's text)")
        # With other classes read, one gone would have only the count of skipped files to tell it.
        lost = sorted(self.listed_classes - set(self.labels)) if self.labels else []
        if lost:
            out.append(f"{len(lost):,} {plural(len(lost), 'class')} whose folder gave no document: {', '.join(lost)}")
        return out + self.hints


def text_digest(text: str) -> int:
    """64 bits of the BLAKE2b digest of ``text``'s UTF-8 bytes: the same in every process, so
    that worker processes' reports add up (two texts share one with odds of 1 in 2**64 a pair).

    >>> text_digest("free cash now") == text_digest("free cash now") != text_digest("free cash now!")
    True
    """
    return int.from_bytes(_blake2b()(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


@functools.cache
def _blake2b():
    """hashlib's BLAKE2b, imported when first used: hashlib loads OpenSSL, 3 ms of every cold
    predict, which hashes nothing."""
    from hashlib import blake2b

    return blake2b


#: Each label's digest, which a text's is combined with: a few labels, read many times.
_LABEL_DIGESTS: dict[str, int] = {}


def _label_digest(label: str) -> int:
    digest = _LABEL_DIGESTS.get(label)
    if digest is None:
        digest = _LABEL_DIGESTS[label] = text_digest(str(label)) | 1  # never 0, which would leave the text's alone
    return digest


def blank(text: str) -> bool:
    """Whether ``text`` is empty or only white space (without copying it, as strip() would)."""
    return not text or text.isspace()


def without_known_words(batch: Sequence[Document], scored_as_empty: Sequence[bool]) -> list[str]:
    """The sources of the documents of ``batch`` that are not blank but that a model answered
    as an empty one (``Model.scored_as_empty``): it knows none of their words."""
    return [doc.source for doc, as_empty in zip(batch, scored_as_empty) if as_empty and not blank(doc.text)]


def plural(n: int, noun: str) -> str:
    """``noun`` as it follows the number ``n``: ``document`` for 1, else ``documents``.

    >>> plural(1, "class"), plural(2, "class"), plural(0, "message")
    ('class', 'classes', 'messages')
    """
    return noun if n == 1 else noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")


#: UTF-8's names: check_encoding gives the first, and callers may write either.
_UTF8 = ("utf-8", "utf8")


def without_bom(raw: bytes, encoding: str) -> bytes:
    """``raw`` without the UTF-8 byte order mark that Excel's "CSV UTF-8" and Notepad put
    at the start of a file."""
    return raw.removeprefix(codecs.BOM_UTF8) if encoding in _UTF8 else raw


#: The byte order marks of the wide encodings, UTF-32's first: UTF-32 LE's starts with UTF-16 LE's.
_WIDE_MARKS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
               (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_ANY_WIDE_MARK = tuple(mark for mark, _ in _WIDE_MARKS)


def narrows(head: bytes) -> bool:
    """Whether ``narrowed`` changes text starting with ``head`` (its first ``WIDE_HEAD``
    bytes, or as many as there are): it opens with UTF-8's mark (Notepad's) or a wide one, or
    it is UTF-16 or UTF-32 without one.

    >>> [narrows(head) for head in (codecs.BOM_UTF8 + b"From ", "x".encode("utf-16"), "From ".encode("utf-16-le"),
    ...                            b"From ")]
    [True, True, True, False]
    """
    return head.startswith((codecs.BOM_UTF8, *_ANY_WIDE_MARK)) or unmarked_wide(head) is not None


def marked_order(head: bytes) -> str | None:
    """The wide codec with its byte order (``utf-16-le``) that the mark ``head`` starts with
    says, or None: what writes text back in the order it came.

    >>> marked_order(codecs.BOM_UTF16_BE + "note".encode("utf-16-be")), marked_order(b"note")
    ('utf-16-be', None)
    """
    return next((codec for mark, codec in _WIDE_MARKS if head.startswith(mark)), None)


def wide_encoding(head: bytes, encoding: str) -> str | None:
    """``utf-16`` or ``utf-32`` (or a variant) when a file in ``encoding`` that starts with
    ``head`` is in one of them: it was asked for, or a UTF-8 reading meets its byte order mark
    (Notepad's "Unicode"), which no UTF-8 text starts with. None otherwise.

    >>> wide_encoding("note".encode("utf-16"), "utf-8"), wide_encoding(b"note", "utf-8")
    ('utf-16', None)
    """
    if encoding.startswith(("utf-16", "utf-32")):
        return encoding
    if encoding not in _UTF8:
        return None
    ordered = marked_order(head)
    return ordered[:len("utf-16")] if ordered else unmarked_wide(head)


#: How much of a file's start tells, by where its NUL bytes fall, that it is UTF-16 or UTF-32
#: saved without a byte order mark.
WIDE_HEAD = 512


def unmarked_wide(head: bytes) -> str | None:
    r"""The wide codec, with its byte order, that text starting with ``head`` is in though it
    has no byte order mark (Python's ``encoding="utf-16-le"``, SQL Server's ``bcp -w``), told
    by where its NUL bytes fall: Latin text in UTF-16 LE is each letter then a NUL. No UTF-8
    text holds NULs; read as UTF-8, it came apart into letters, with nothing replaced.

    >>> [unmarked_wide("hi there".encode(codec)) for codec in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")]
    ['utf-16-le', 'utf-16-be', 'utf-32-le', 'utf-32-be']
    >>> unmarked_wide("hi there".encode("utf-8")), unmarked_wide(b"a stray\x00NUL")
    (None, None)
    """
    head = head[:WIDE_HEAD]
    if len(head) < 4 or head.find(b"\x00") < 0:
        return None

    def nul_share(start: int, step: int) -> float:
        column = head[start::step]
        return column.count(0) / len(column)

    if len(head) >= 8:  # a letter's code point is below 2**16: its two high bytes are NUL
        if nul_share(2, 4) == nul_share(3, 4) == 1 and nul_share(0, 4) < 0.5:
            return "utf-32-le"
        if nul_share(0, 4) == nul_share(1, 4) == 1 and nul_share(3, 4) < 0.5:
            return "utf-32-be"
    even, odd = nul_share(0, 2), nul_share(1, 2)  # some CJK letters have a NUL byte too (U+4E00)
    if odd >= 0.25 and even <= odd / 4:
        return "utf-16-le"
    if even >= 0.25 and odd <= even / 4:
        return "utf-16-be"
    return None


def marked_encoding(head: bytes, encoding: str) -> str | None:
    """The encoding that the byte order mark a file starts with (``head``) chooses over the
    ``encoding`` asked for: UTF-16 or UTF-32 read as UTF-8. None where the mark agrees or
    there is none."""
    wide = wide_encoding(head, encoding)
    return wide if wide != encoding else None


def narrowed(raw: bytes) -> tuple[bytes, str | None]:
    """Mail saved by a Windows tool as UTF-16 or UTF-32 (PowerShell's ``>``) or with UTF-8's
    mark (Notepad), as the 8-bit bytes mail is made of, without the mark, which would hide a
    message's first header or an mbox's first From line; and the encoding its bytes were not
    all valid in, where some were replaced (by U+FFFD) on the way.

    >>> narrowed("\\ufeffSubject: hi\\n".encode("utf-16-le")), narrowed(b"\\xef\\xbb\\xbfSubject: hi\\n")
    ((b'Subject: hi\\n', None), (b'Subject: hi\\n', None))
    >>> narrowed(b"\\xff\\xfeh\\x00\\x00\\xdci\\x00")  # a lone half of a surrogate pair
    (b'h\\xef\\xbf\\xbdi', 'utf-16')
    """
    wide = marked_encoding(raw[:WIDE_HEAD], "utf-8")
    if wide is None:
        return without_bom(raw, "utf-8"), None
    text, replaced = decode(raw, wide)
    return text.encode("utf-8"), wide if replaced else None


def text_encoding(encoding: str, head: bytes, source: str) -> str:
    """The codec to open a file as text with, given its first bytes: for UTF-8, UTF-16 or
    UTF-32 where the file starts with their mark, else utf-8-sig, which drops a UTF-8 mark.
    Read as a stream, UTF-16 or UTF-32 of unnamed byte order needs the mark: a DataError
    names the way out where there is none."""
    codec = wide_encoding(head, encoding) or ("utf-8-sig" if encoding in _UTF8 else encoding)
    name = codecs.lookup(codec).name
    if name in ("utf-16", "utf-32") and not (marked_order(head) or "").startswith(name):
        raise DataError(f"{source}: {codec.upper()} with no byte order mark at its start; give the order: "
                        f"--encoding {codec}-le (as Windows writes it) or {codec}-be")
    return codec


def check_splits_into_lines(head: bytes, encoding: str, source: str) -> None:
    """A DataError for a line format in UTF-16 or UTF-32, whose newlines are not one byte:
    lines are split as bytes, and would come apart mid-character; or for a compressed file."""
    check_not_compressed(head, source)
    wide = wide_encoding(head, encoding)
    if wide is not None:
        name = wide.upper().replace("-LE", "LE").replace("-BE", "BE")
        raise DataError(f"{source}: {name} text, which line formats cannot split into lines; "
                        f"convert it first: iconv -f {name} -t UTF-8")


#: How compressed files start (no text does), their tool, and the command that writes one's
#: text to stdout.
_COMPRESSED = ((re.compile(rb"\x1f\x8b"), "gzip", "zcat"), (re.compile(rb"BZh[1-9]1AY&SY"), "bzip2", "bzcat"),
               (re.compile(rb"\xfd7zXZ\x00"), "xz", "xzcat"), (re.compile(rb"\x28\xb5\x2f\xfd"), "zstd", "zstdcat"),
               (re.compile(rb"PK\x03\x04"), "zip", "unzip -p"))
#: How other files that are no text start: read as text, they would give a class noise words.
#: Thunderbird's index of a folder (Mork, in Inbox.msf beside the Inbox mbox) is text of a kind,
#: but no mail: copied with the mailboxes, it was read as a message of tokens and row numbers.
#: So is RTF (TextEdit's and WordPad's own format), whose words came with its markup's: fonttbl,
#: froman, fcharset0, par.
_BINARY = ((rb"\x89PNG\r\n\x1a\n", "a PNG image"), (rb"\xff\xd8\xff", "a JPEG image"), (rb"GIF8[79]a", "a GIF image"),
           (rb"%PDF-", "a PDF document; pdftotext converts it to text"),
           (rb"\{\\rtf", "an RTF document; pandoc -t plain converts it to text"),
           (rb"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Office document or Thumbs.db"),  # OLD_OFFICE
           (rb"\x80[\x02-\x05]", "a Python pickle, as an nbtext model file is"),
           (rb"// <!-- <mdb:mor", "Thunderbird's index of a mail folder, an .msf file"))
#: Any other file whose start has NUL bytes side by side, and is no UTF-16 or UTF-32.
BINARY = "binary data: NUL bytes side by side, as no text has"
#: Both, as one pattern with a group each: one match per file, whichever it is.
_NOT_TEXT = re.compile(b"|".join(b"(%s)" % pattern for pattern in [*(pattern for pattern, _ in _BINARY),
                                                                    *(magic.pattern for magic, _, _ in _COMPRESSED)]))
_NOT_TEXT_KINDS = [*(kind for _, kind in _BINARY),
                   *(f"{tool}-compressed; {command} writes its text" for _, tool, command in _COMPRESSED)]


def not_text(head: bytes) -> str | None:
    """What a file is whose first bytes are ``head`` (its first ``WIDE_HEAD``, or as many as
    there are), where they show it is no text: an image, a PDF, an old Office document, a
    compressed file, a tar archive, or a pickle (an nbtext model); or any other binary file
    (a program, a database, a font, a sound), which has NUL bytes side by side, as no text
    but UTF-16 or UTF-32 has. A lone NUL is text's still: 44 of Enron's spams have some,
    never two side by side; and so is text that NULs end, as a file cut short by a crash
    is padded (a file that starts with them is none).

    >>> not_text(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00"), not_text(b"\\x1f\\x8b\\x08"), not_text(b"Subject: PNG")
    ('a PNG image', 'gzip-compressed; zcat writes its text', None)
    >>> not_text(b"SQLite format 3\\x00\\x10\\x00\\x00\\x01"), not_text("caf\u00e9".encode("utf-16-le"))
    ('binary data: NUL bytes side by side, as no text has', None)
    >>> not_text(b"lunch at noon?\\n" + bytes(100)), not_text(bytes(100))
    (None, 'binary data: NUL bytes side by side, as no text has')
    """
    found = _NOT_TEXT.match(head)
    if found is None:
        if head[257:262] == b"ustar":  # a tar header's magic
            return "a tar archive; tar xf unpacks it"
        pair = head.find(b"\0\0", 0, WIDE_HEAD)
        if pair < 0 or (pair and not head[pair:WIDE_HEAD].strip(b"\0")):  # text, or text padded with NULs
            return None
        return None if narrows(head[:WIDE_HEAD]) else BINARY
    assert found.lastindex is not None  # each alternative is a group of its own
    return _NOT_TEXT_KINDS[found.lastindex - 1]


def file_not_text(head: bytes, path: str) -> str | None:
    """What the file ``path`` is, whose first bytes are ``head``, where it is no text, as
    ``not_text`` says; a compressed archive of files is named as one, with the command that
    unpacks it (zcat would write a tar archive), and so is an office document or e-book, with
    the command that converts it (each is a zip archive), and an old one (``by_name``)."""
    kind = not_text(head)
    if kind is not None and (packed := packed_as(path, head)) is not None:
        return _with_fix(packed.what, packed.fix)
    return by_name(kind, path)


#: What ``not_text`` calls the files of Office 97-2003, and Windows's thumbnail caches: one
#: file format, whose kinds the name tells apart.
OLD_OFFICE = "an old Office document or Thumbs.db"


def by_name(kind: str | None, path: str) -> str | None:
    """``kind``, as ``not_text`` gives it, told more closely by the file name ``path`` where
    that can: an Office 97-2003 file by its extension, with the command that converts it.

    >>> by_name(OLD_OFFICE, "q3/report.DOC")
    "a Word 97-2003 document; libreoffice --headless --convert-to 'txt:Text (encoded):UTF8' converts it to text"
    >>> by_name(OLD_OFFICE, "Thumbs.db") == OLD_OFFICE, by_name("a PNG image", "scan.doc")
    (True, 'a PNG image')
    """
    if kind != OLD_OFFICE:
        return kind
    return _with_fix(*_OLD_OFFICE_KINDS.get(os.path.splitext(path)[1].lower(), (kind, "")))


def _with_fix(what: str, fix: str) -> str:
    """What a file is, and how to get its text where there is a way: a skipped file's reason."""
    return f"{what}; {fix}" if fix else what


def check_not_compressed(head: bytes, source: str) -> None:
    """A DataError for a file (or stdin) whose first bytes ``head`` are a compressed file's,
    which would be read as text and fail on its first line, or train on noise.

    >>> check_not_compressed(b"\\x1f\\x8b\\x08\\x08", "a.gz")
    Traceback (most recent call last):
    nbtext.errors.DataError: a.gz: gzip-compressed, not text; decompress it first (zcat a.gz writes its text)
    """
    for magic, tool, command in _COMPRESSED:
        if magic.match(head):
            if source == "<stdin>" and (office := streamed_office(head)) is not None:
                raise DataError(f"{source}: {office.what}, not text; {office.piped}")
            packed = None if source == "<stdin>" else packed_as(source, head)
            if packed is not None:
                raise DataError(f"{source}: {packed.what}, not text: {packed.fix_given(source)}")
            fix = (f"decompress it in the pipe: {command} FILE | nbtext ..." if source == "<stdin>" else
                   f"decompress it first ({command} {shlex.quote(source)} writes its text)")
            raise DataError(f"{source}: {tool}-compressed, not text; {fix}")


class Packed(NamedTuple):
    """A file that holds more than one text, or text in another format's markup: what it is,
    how to get text from it where it is one file of a folder (``fix``, "" if there is no one
    way), and ``given``, the same where it is given as DATA (``{file}`` its path, ``{base}``
    that without its extension, ``{stem}`` the file's name without it); ``piped``, where it
    comes on stdin, for an office document or e-book."""

    what: str
    fix: str
    given: str
    piped: str = ""

    def fix_given(self, path: str) -> str:
        base = os.path.splitext(path)[0]
        return self.given.format(file=shlex.quote(path), base=shlex.quote(base),
                                 stem=shlex.quote(os.path.basename(base)))


def packed_as(path: str, head: bytes) -> Packed | None:
    """What the file ``path``, whose first bytes are ``head``, is, and how to get its text,
    where it is a compressed archive of files, as corpora come (``20news-bydate.tar.gz``),
    not one compressed text: a zip of more than one file or of a folder, or a tar archive
    under gzip, bzip2 or xz (a tar header names ``ustar`` at byte 257; GNU and BSD tar tell
    the compression themselves); or an office document or e-book, zips of XML too."""
    import zipfile

    tool = compression(head)
    try:
        if tool == "zip":
            with zipfile.ZipFile(path) as archive:
                members = archive.infolist()
                office = _office_kind(archive)
            if office is not None:
                return office
            if len(members) < 2:  # one compressed file, which unzip -p writes
                return None
            files = sum(not member.is_dir() for member in members)
            return _archive(f"a zip archive of {files:,} {plural(files, 'file')}", "unzip")
        if tool not in DECOMPRESSING:
            return None
        with importlib.import_module(DECOMPRESSING[tool]).open(path) as stream:
            start = stream.read(512)
        if start[257:262] != b"ustar":
            return None
        return _archive(f"a tar archive, {tool}-compressed", "tar xf")
    # Cut short, or not what its start says; or a member zipfile cannot read (encrypted, or an
    # unknown compression).
    except (OSError, EOFError, ValueError, RuntimeError, NotImplementedError, zipfile.BadZipFile):
        return None


def _archive(what: str, unpack: str) -> Packed:
    """An archive of files, which the command ``unpack`` unpacks."""
    return Packed(what, f"{unpack} unpacks it", f"unpack it ({unpack} {{file}}) and give the folder it makes as DATA")


#: How to get the text of an office document or e-book: as a folder's file, and given as DATA;
#: on stdin, pandoc reads it too, told its format.
_DOCUMENT = ("pandoc -t plain converts it to text", "convert it first (pandoc -t plain {file} -o {base}.txt)")


def _piped_document(pandoc_format: str) -> str:
    return f"convert it in the pipe: ... | pandoc -f {pandoc_format} -t plain | nbtext ..."


#: LibreOffice writes CSV in the locale's character set unless told UTF-8 (76; 44 and 34: comma and quote).
_TO_CSV = "libreoffice --headless --convert-to 'csv:Text - txt - csv (StarCalc):44,34,76'"
_SHEET = (f"{_TO_CSV} saves it as CSV",
          f"save it as CSV ({_TO_CSV} {{file}} writes {{stem}}.csv, of its first sheet) and give that as DATA",
          f"save it to a file, and that as CSV: {_TO_CSV} FILE")  # LibreOffice reads no pipe
_SLIDES = ("", "export its text first", "export its text first")
#: Office 97-2003 files by their extension, and how to get their text (LibreOffice writes text
#: in the locale's character set unless told UTF-8, as it writes CSV).
_OLD_OFFICE_KINDS = {
    ".doc": ("a Word 97-2003 document", "libreoffice --headless --convert-to 'txt:Text (encoded):UTF8' converts it "
                                        "to text"),
    ".xls": ("an Excel 97-2003 workbook", _SHEET[0]),
    ".ppt": ("a PowerPoint 97-2003 presentation", _SLIDES[0]),
}
#: Office Open XML files by the part that only their kind has, OpenDocument files and EPUB
#: books by the media type their first member, ``mimetype``, holds.
_OFFICE_PARTS = {"word/document.xml": Packed("a Word document", *_DOCUMENT, _piped_document("docx")),
                 "xl/workbook.xml": Packed("an Excel workbook", *_SHEET),
                 "ppt/presentation.xml": Packed("a PowerPoint presentation", *_SLIDES)}
_MEDIA_TYPES = {b"application/vnd.oasis.opendocument.text": Packed("an OpenDocument text", *_DOCUMENT,
                                                                   _piped_document("odt")),
                b"application/vnd.oasis.opendocument.spreadsheet": Packed("an OpenDocument spreadsheet", *_SHEET),
                b"application/vnd.oasis.opendocument.presentation": Packed("an OpenDocument presentation", *_SLIDES),
                b"application/epub+zip": Packed("an EPUB book", *_DOCUMENT, _piped_document("epub"))}
#: How much of a stream's start is looked at for an office document's members.
STREAM_HEAD = 1 << 16
#: In a stream, which cannot be opened as a zip, an office document shows in its members'
#: headers, whose names are not compressed: an OpenDocument file's or an EPUB book's first,
#: ``mimetype``, is followed by its media type, stored as it is; an Office Open XML file's
#: members are in a folder of its kind's (ZIP's local file header: 30 bytes, then the name).
_STREAMED_PART = re.compile(rb"PK\x03\x04.{26}(word|xl|ppt)/", re.DOTALL)
_PART_FOLDERS = {folder.split("/")[0].encode(): kind for folder, kind in _OFFICE_PARTS.items()}


def streamed_office(head: bytes) -> Packed | None:
    """The office document or e-book a stream is, from its first bytes ``head`` (as many as
    are at hand: the part that tells a Word document is some hundred bytes in), if it is one.

    >>> sizes = (20).to_bytes(4, "little") * 2 + (8).to_bytes(2, "little") + bytes(2)
    >>> streamed_office(b"PK\\x03\\x04" + bytes(14) + sizes + b"mimetypeapplication/epub+zipPK").what
    'an EPUB book'
    >>> streamed_office(b"PK\\x03\\x04" + bytes(26) + b"notes.txt") is None
    True
    """
    if not head.startswith(b"PK\x03\x04"):
        return None
    if head[30:38] == b"mimetype":  # stored: its size, then its name's length and an extra field's
        size, _, _, extra = struct.unpack_from("<IIHH", head, 18)
        return _MEDIA_TYPES.get(head[38 + extra:38 + extra + size].strip())
    part = _STREAMED_PART.search(head, 0, STREAM_HEAD)
    return None if part is None else _PART_FOLDERS[part.group(1)]


def stream_not_text(head: bytes) -> str | None:
    """What a stream (stdin, a named pipe) is whose first bytes are ``head``, where it is no
    text, as ``not_text`` says; an office document or e-book is named, with how to get its
    text in a pipe."""
    office = streamed_office(head)
    return not_text(head) if office is None else _with_fix(office.what, office.piped)


def _office_kind(archive) -> Packed | None:
    """The office document or e-book the zip ``archive`` is, if it is one."""
    names = set(archive.namelist())
    found = next((kind for part, kind in _OFFICE_PARTS.items() if part in names), None)
    if found is None and "mimetype" in names:
        with archive.open("mimetype") as member:  # a few bytes: a media type, not a member made to be large
            found = _MEDIA_TYPES.get(member.read(100).strip())
    return found


#: The standard library's modules that read compressed files (zstd's came only in Python 3.14).
DECOMPRESSING = {"gzip": "gzip", "bzip2": "bz2", "xz": "lzma"}


def compression(head: bytes) -> str | None:
    """The tool that compressed the file whose first bytes are ``head`` (gzip, bzip2, xz, zstd
    or zip), or None where it is not compressed."""
    return next((tool for magic, tool, _ in _COMPRESSED if magic.match(head)), None)


def decompressed(raw: bytes, limit: int | None = None) -> bytes | None:
    """What ``raw`` holds, where it is one file compressed with gzip, bzip2 or xz: Dovecot keeps
    a maildir's messages so when its compression plugin is on, and tells them by their first
    bytes, whatever their names. None where ``raw`` is no such file, is cut short or corrupt,
    or holds a tar archive (several files, which ``packed_as`` names). Past ``limit`` bytes,
    a TooLarge error, with no more than that unpacked: a few KB can unpack to terabytes.

    >>> import gzip, lzma
    >>> decompressed(gzip.compress(b"Subject: hi")), decompressed(lzma.compress(b"a") + lzma.compress(b"b"))
    (b'Subject: hi', b'ab')
    >>> decompressed(b"Subject: hi"), decompressed(gzip.compress(b"Subject: hi")[:-4])
    (None, None)
    >>> decompressed(gzip.compress(bytes(10**6)), limit=1000)
    Traceback (most recent call last):
    nbtext.readers.report.TooLarge: 1000
    """
    tool = compression(raw)
    if tool not in DECOMPRESSING:
        return None
    import io
    import lzma  # here: every message filter reads is looked at, and nearly none is compressed
    import zlib

    try:
        with importlib.import_module(DECOMPRESSING[tool]).open(io.BytesIO(raw)) as stream:
            inner: bytes = stream.read(-1 if limit is None else limit + 1)
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError):
        return None
    if limit is not None and len(inner) > limit:
        raise TooLarge(limit)
    return None if inner[257:262] == b"ustar" else inner


def _escape_bytes(error: UnicodeError) -> tuple[str, int]:
    """surrogateescape for every byte. Where a codec's invalid stretch holds a byte below 0x80
    (UTF-16 cut short, ISO-2022), surrogateescape gives up and the read would stop there."""
    assert isinstance(error, UnicodeDecodeError)
    return "".join(chr(0xDC00 + byte) for byte in error.object[error.start:error.end]), error.end


#: The error handler of text read in a stream, whose invalid bytes are marked U+DC00-U+DCFF
#: to be replaced, and counted, document by document.
ESCAPE_BYTES = "nbtext-escape"
codecs.register_error(ESCAPE_BYTES, _escape_bytes)


def unescape(value: str, encoding: str) -> tuple[str, bool]:
    """``value`` with its escaped bytes (``ESCAPE_BYTES``, surrogateescape) and any other lone
    surrogate (a JSON ``\\udce9``) replaced by U+FFFD; the flag says there were some."""
    if not _SURROGATES.search(value):
        return value, False
    try:  # the bytes decoded again, so that the replacement is what decoding with "replace" gives
        return value.encode(encoding, "surrogateescape").decode(encoding, "replace"), True
    except UnicodeError:  # a byte below 0x80 among them, a codec that cannot write them back (UTF-16), a JSON \ud800
        return _SURROGATES.sub("\ufffd", value), True


_SURROGATES = re.compile("[\ud800-\udfff]+")


def decode_file(raw: bytes, encoding: str) -> tuple[str, bool, str | None, bool]:
    """Decode a whole file as ``decode`` does, in UTF-16 or UTF-32 where it is read as UTF-8
    and starts with their byte order mark, or has none and its NULs say so (``unmarked_wide``);
    the third value names that encoding (else None). The headers ``nbtext filter --passthrough``
    adds to a message are left out (``_OWN_HEADERS``). A web page is the text it shows, and the
    fourth value says it was one: its tags, scripts and styles were words of every page alike.
    A page not valid UTF-8 is read by the charset its ``<meta>`` tag names, where it names one,
    as browsers read it (widened as mail's charsets are: ISO-8859-1 as Windows-1252)."""
    marked = (marked_encoding(raw[:WIDE_HEAD], encoding)  # two C calls a file, mostly
              if raw.startswith(_ANY_WIDE_MARK) or raw.find(b"\x00", 0, WIDE_HEAD) >= 0 else None)
    text, replaced = decode(raw, marked or encoding)
    if _OWN_PREFIX in text:
        text = _OWN_HEADERS.sub("", text)
    page = is_page(text)
    if page and replaced and marked is None and encoding in _UTF8 and (declared := html_charset(raw)):
        text, replaced = decode_part(raw, declared)  # a page saved in the charset it names, as browsers read it
    return html_to_text(text, title=True) if page else text, replaced, marked, page


#: The headers ``nbtext filter --passthrough`` adds: the verdict, and with ``--explain`` the
#: words. Named here, where they are dropped again, so that the two cannot drift apart.
_OWN_PREFIX = "X-Nbtext-"
STATUS_HEADER = _OWN_PREFIX + "Status"
WORDS_HEADER = _OWN_PREFIX + "Words"

#: Those headers with their line ends (the words folded). Mail read as a plain file is words,
#: headers and all, and a filter trained on delivered mail learned its own verdicts: "status
#: spam" and "spam score" were among the ten words that most raised spam, over SpamAssassin's
#: held-out messages.
_OWN_HEADERS = re.compile(rf"^{STATUS_HEADER}:.*(?:\n|$)|^{WORDS_HEADER}:.*(?:\n|$)(?:[ \t].*(?:\n|$))*",
                          re.MULTILINE)


def decode(raw: bytes, encoding: str) -> tuple[str, bool]:
    """Decode ``raw``; invalid bytes become U+FFFD and the flag says it happened."""
    raw = without_bom(raw, encoding)
    try:
        return raw.decode(encoding), False
    except UnicodeDecodeError:
        return raw.decode(encoding, "replace"), True


#: Charsets that mail declares for text written in a superset (Windows code pages, GBK).
_WIDER = {"gb2312": "gb18030", "gbk": "gb18030", "iso-8859-1": "cp1252", "us-ascii": "cp1252",
          "ks_c_5601-1987": "cp949", "euc-kr": "cp949", "big5": "big5hkscs"}


def decode_part(payload: bytes, charset: str | None) -> tuple[str, bool]:
    """Decode a part by its declared charset, widened to the superset mail really uses; when
    that fails, UTF-8, then Windows-1252 with replacement. A part that declares no charset is
    read as plain files are: UTF-8, invalid bytes replaced. The flag says replacement happened.

    >>> decode_part(b"caf\\xe9", "iso-8859-1"), decode_part(b"caf\\xe9", None)
    (('café', False), ('caf\ufffd', True))
    """
    if not charset:
        return decode(payload, "utf-8")
    name = charset.strip().strip('"').lower()
    for encoding in (_WIDER.get(name, name), "utf-8", "cp1252"):
        try:
            codecs.lookup(encoding)
            return payload.decode(encoding), False
        except (LookupError, ValueError):  # unknown, not a text codec, bytes it cannot take, a NUL in the name
            continue
    return payload.decode("cp1252", "replace"), True


def check_encoding(encoding: str) -> str:
    """The codec's canonical name, or a DataError naming an unknown encoding, or one that is no
    text encoding: Python's codecs include rot13, which turns text into text, and base64, hex,
    zlib, bz2 and uu, which turn bytes into bytes; no document is read with them.

    >>> check_encoding("Latin-1")
    'iso8859-1'
    >>> check_encoding("base64")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    nbtext.errors.DataError: base64 is no text encoding (it turns bytes into other bytes, or text into ...
    """
    try:
        name = codecs.lookup(encoding).name
        b"abcd".decode(name, "replace")  # only a text encoding decodes bytes to text (not b"": that is no work)
    except LookupError as error:
        if "not a text encoding" not in str(error):
            raise DataError(f"unknown encoding {encoding!r}; try utf-8, latin-1 or cp1252") from None
        raise DataError(f"{encoding} is no text encoding (it turns bytes into other bytes, or text into other "
                        "text); try utf-8, latin-1 or cp1252") from None
    except UnicodeError:  # the "undefined" codec, which refuses every byte
        raise DataError(f"{encoding} decodes nothing; try utf-8, latin-1 or cp1252") from None
    return name
