"""The record every reader yields, and the digest of its text that reports keep."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import DataError

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True, slots=True)
class Document:
    """One document: its text, its label (None when unlabelled) and where it came from; for a
    table's row read with numeric or categorical columns, their ``values`` (column -> a number,
    NaN where the cell is empty, or a category string, None where it is)."""

    text: str
    label: str | None
    source: str
    message_id: str | None = None
    values: Mapping[str, Any] | None = None


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


def document_digest(doc: Document) -> int:
    """``text_digest`` of a document's text, and of its values where it has any: two rows of a
    table with one text and other numbers are two documents, not one repeated."""
    if not doc.values:
        return text_digest(doc.text)
    cells = "\x1f".join(f"{name}={doc.values[name]!r}" for name in sorted(doc.values))
    return text_digest(f"{doc.text}\x1e{cells}")


def label_digest(label: str) -> int:
    digest = _LABEL_DIGESTS.get(label)
    if digest is None:
        digest = _LABEL_DIGESTS[label] = text_digest(str(label)) | 1  # never 0, which would leave the text's alone
    return digest


def texts_of_several_labels(texts: np.ndarray, labelled: np.ndarray) -> int:
    """How many texts came with more than one label, of documents' text digests (``texts``,
    a uint64 array) and their text-and-label digests (``labelled``: each ``texts`` value
    xor its label's ``label_digest``), in the same order."""
    import numpy as np

    _, first = np.unique(labelled, return_index=True)  # one document of each (text, label) pair
    _, labels = np.unique(texts[first], return_counts=True)
    return int((labels > 1).sum())


def blank(text: str) -> bool:
    """Whether ``text`` is empty or only white space (without copying it, as strip() would)."""
    return not text or text.isspace()


def without_known_words(batch: Sequence[Document], scored_as_empty: Sequence[bool]) -> list[str]:
    """The sources of the documents of ``batch`` that are not blank but that a model answered
    as an empty one (``Model.scored_as_empty``): it knows none of their words."""
    return [doc.source for doc, as_empty in zip(batch, scored_as_empty) if as_empty and not blank(doc.text)]
