"""A batch of texts as one byte buffer: lowercased as str.lower does, non-word characters blanked,
and its tokens found as spans, each with a 64-bit key of its bytes; the scanner and the tables
count from these."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..analysis import is_word_character
from ..matrices import run_starts
from ..terms import PackedTerms

#: Bytes that belong to a word: ASCII letters, digits and ``_``; every byte >= 128, because the
#: buffer's non-ASCII characters that are not word characters are blanked (``_blank_non_words``).
_WORD_BYTE = np.array([chr(i).isalnum() or chr(i) == "_" for i in range(128)] + [True] * 128, dtype=np.uint8)


#: Each byte's kind, by ``Analyzer.tokens``: 1 a word byte, 2 a byte that joins two word bytes
#: into one token (never at a token's ends), 0 neither.
BYTE_KINDS = {"words": _WORD_BYTE, "all-words": _WORD_BYTE,
              "joined": _WORD_BYTE + 2 * np.isin(np.arange(256), list(b".@'-")).astype(np.uint8)}


#: The fewest characters of a token, by ``Analyzer.tokens``: 1 or 2, and a run of 2 bytes or more
#: that is one character (``_UTF8_SIZE``) is one character.
SHORTEST = {"words": 2, "all-words": 1, "joined": 2}


#: The bytes of the UTF-8 character a byte begins: 2 to 4 for a lead byte, else 0 (ASCII bytes
#: and continuation bytes).
_UTF8_SIZE = np.array([0] * 192 + [2] * 32 + [3] * 16 + [4] * 8 + [0] * 8, dtype=np.int64)


#: MASK[n] keeps the first n bytes of a little-endian 64-bit word.
_MASK = np.array([(1 << (8 * n)) - 1 for n in range(8)] + [2**64 - 1], dtype=np.uint64)


PAD = 8


#: The byte that stands for NUL inside a character n-gram (NUL ends a word in the scanner's
#: tables): 0xFF, which UTF-8 never has; the compiled sort puts it first, where NUL sorts.
NUL_IN_WORD = 0xFF


#: Capital sigma, which ``str.lower`` makes ς at the end of a word and σ elsewhere.
_SIGMA = "\u03a3"


_POSITION_BITS = 24


_HIGH_40 = np.uint64(2**64 - 2**_POSITION_BITS)


NO_TOKEN = -1


def term_spans(blob: np.ndarray, n_terms: int) -> tuple[np.ndarray, np.ndarray]:
    """Where each of the ``n_terms`` packed terms in ``blob`` (newline between two) starts, and
    its length in bytes."""
    ends = PackedTerms(blob, n_terms).ends()
    starts = np.append(0, ends[:-1] + 1) if n_terms else ends
    return starts, ends - starts


def packed_spans(blob: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The spans of ``blob`` packed as terms: a newline between two."""
    joined = spans_joined(np.concatenate([blob, np.zeros(1, dtype=np.uint8)]), starts, lengths)
    joined[np.cumsum(lengths + 1) - 1] = 10
    return joined[:-1]


def bracketed_terms(joined: np.ndarray) -> np.ndarray:
    """Terms, each followed by a newline, each written ``[term]``."""
    newline = joined == 10
    term_of = np.cumsum(newline) - newline
    out = np.full(len(joined) + 2 * int(newline.sum()), ord("["), dtype=np.uint8)
    out[np.arange(len(joined)) + 2 * term_of + 1 + newline] = joined
    out[np.flatnonzero(newline) + 2 * term_of[newline] + 1] = ord("]")
    return out


class TokenClash(Exception):
    """Two different tokens of a batch got the same key (count that batch the plain way)."""


def pair_keys(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Pairs of numbers (token numbers, or an n-gram's and a token's) as ``first << 32 | second``."""
    return first.astype(np.uint64) << np.uint64(32) | second.astype(np.uint64)


def pair_words(pairs: np.ndarray) -> np.ndarray:
    """Pairs given as ``first << 32 | second`` (``pair_keys``), as rows of two token numbers."""
    return np.stack([(pairs >> np.uint64(32)).astype(np.int64), (pairs & np.uint64(0xFFFFFFFF)).astype(np.int64)],
                    axis=1)


@dataclass(frozen=True)
class Tokens:
    """The tokens of a batch of texts: where each is in the buffer, its document, and its key
    among the batch's distinct keys (see ``distinct_tokens``)."""

    n_texts: int
    buffer: np.ndarray
    starts: np.ndarray
    lengths: np.ndarray
    rows: np.ndarray
    unique: np.ndarray
    first: np.ndarray
    inverse: np.ndarray


@dataclass(frozen=True)
class Buffered:
    """A batch of texts for the compiled scanner: its byte buffer, where each text starts, and
    for character n-grams, at most how many there are."""

    buffer: np.ndarray
    doc_starts: np.ndarray
    most: int = 0


class SortedMap:
    """64-bit keys -> numbers, kept in sorted runs so that a whole array is looked up at once.

    Each ``add`` makes a run, merged with the run before it while that one is at most twice as
    long: there are about log2(n) runs, and a key is copied about log2(n) times in all. (Kept
    as one sorted array, each batch inserted into it copied all of it, so the time to add grew
    with the square of the batches: 19 s for 200 batches of 100,000 new keys, against 6 s.)
    """

    def __init__(self) -> None:
        self._runs: list[tuple[np.ndarray, np.ndarray]] = []  # (sorted keys, their values), longest first

    def __len__(self) -> int:
        return sum(len(keys) for keys, _ in self._runs)

    def get(self, wanted: np.ndarray) -> np.ndarray:
        """The value of each key in ``wanted``, -1 where absent."""
        found = np.full(len(wanted), -1, dtype=np.int64)
        for keys, values in self._runs:
            at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
            hit = keys[at] == wanted
            found[hit] = values[at[hit]]
        return found

    def add(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Take in keys not held yet (distinct), with their values."""
        if not len(keys):
            return
        order = np.argsort(keys)
        self._runs.append((keys[order], values[order]))
        while len(self._runs) > 1 and len(self._runs[-2][0]) <= 2 * len(self._runs[-1][0]):
            self._runs[-2:] = [_merged(*self._runs[-2], *self._runs[-1])]


def _merged(keys: np.ndarray, values: np.ndarray, other: np.ndarray, other_values: np.ndarray,
            ) -> tuple[np.ndarray, np.ndarray]:
    """Two sorted runs of distinct keys, with their values, as one: each key of the other run
    goes where ``searchsorted`` puts it, and every key is copied once."""
    goes = np.searchsorted(keys, other) + np.arange(len(other))
    rest = np.ones(len(keys) + len(other), dtype=bool)
    rest[goes] = False
    merged, merged_values = np.empty(len(rest), dtype=keys.dtype), np.empty(len(rest), dtype=values.dtype)
    merged[goes], merged_values[goes] = other, other_values
    merged[rest], merged_values[rest] = keys, values
    return merged, merged_values


def text_buffer(texts: Sequence[str], lowercase: bool) -> tuple[np.ndarray, np.ndarray]:
    """The batch as one byte array of UTF-8 (documents split by NUL, 8 NULs after), and where
    each document starts in it; lowercased as ``str.lower`` would, and its non-ASCII characters
    that are not word characters blanked, so that the runs of word bytes are the runs of Unicode
    word characters. The bytes are lowered, not the strings: ``str.lower`` over text that is not
    ASCII took a third of the time of scoring it."""
    texts = [_checked(text) for text in texts]
    all_ascii = all(text.isascii() for text in texts)
    joined, doc_starts = _joined([_encoded(text) for text in texts], writable=not all_ascii)
    if lowercase:
        joined = joined.lower()  # the ASCII letters; _lower_in_place the others
    buffer = np.frombuffer(joined, dtype=np.uint8)
    if all_ascii:
        return buffer, doc_starts
    found = _Characters.of(buffer)
    resized = _lower_in_place(buffer, found) if lowercase else []
    _blank_non_words(buffer, found)  # a character lowered in place is a word character or not as it was
    if any(resized):
        return _spliced(buffer, doc_starts, found, resized)
    return buffer, doc_starts


def character_buffer(texts: Sequence[str], lowercase: bool, ngram_range: tuple[int, int]) -> Buffered:
    """The batch as ``text_buffer`` makes it for ``scan_chars``: each document's words as
    ``str.split`` finds them, one ASCII space before, between and after them, and at most how
    many character n-grams of ``ngram_range`` the batch has. A NUL, the buffer's document break,
    is written NUL_IN_WORD. A document with a lone surrogate is a TokenClash: the batch is
    counted the plain way."""
    pieces, most = [], 0
    for text in map(_checked, texts):
        words = (text.lower() if lowercase else text).split()
        if not words:
            pieces.append(b"")
            continue
        spaced = f" {' '.join(words)} "
        try:
            piece = spaced.encode("ascii" if spaced.isascii() else "utf-8")
        except UnicodeEncodeError:  # a lone surrogate, which UTF-8 cannot hold
            raise TokenClash from None
        pieces.append(piece.replace(b"\x00", bytes([NUL_IN_WORD])) if "\x00" in spaced else piece)
        most += len(spaced) + len(words) - 1  # a word of c characters has at most c + 2 n-grams of each n
    joined, doc_starts = _joined(pieces)
    low, high = ngram_range
    return Buffered(np.frombuffer(joined, dtype=np.uint8), doc_starts, most * (high - low + 1))


def _checked(text: Any) -> str:
    if not isinstance(text, str):
        raise TypeError(f"documents must be str, not {type(text).__name__}; decode bytes first")
    return text


def _encoded(text: str) -> bytes:
    if text.isascii():  # a flag Python keeps: no pass over the text
        return text.encode("ascii")
    return text.encode("utf-8", "surrogatepass")


def _joined(pieces: list[bytes], writable: bool = False) -> tuple[bytes | bytearray, np.ndarray]:
    """The pieces split by NUL, 8 NULs after (a bytearray if ``writable``: not copied again to
    be written), and where each starts."""
    sizes = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces)) + 1
    nul = bytearray(1) if writable else b"\x00"
    joined = nul.join([*pieces, bytes(PAD - 1)]) if pieces else nul * PAD  # the last NULs joined on: no copy
    return joined, np.cumsum(sizes) - sizes


@dataclass(frozen=True)
class _Characters:
    """The non-ASCII characters of a UTF-8 buffer: where each starts, its length in bytes, and
    which of the distinct code points it is."""

    leads: np.ndarray
    sizes: np.ndarray
    distinct: np.ndarray
    inverse: np.ndarray

    @classmethod
    def of(cls, buffer: np.ndarray) -> _Characters:
        high = np.flatnonzero(buffer >= 0x80)
        leads = high[buffer[high] >= 0xC0]
        sizes = _UTF8_SIZE[buffer[leads]]
        code = buffer[leads].astype(np.int64) & (0x7F >> sizes)  # the lead byte's bits of the code point
        for k in range(1, 4):  # then 6 bits from each continuation byte (the padding keeps leads + 3 inside)
            more = sizes > k
            code = np.where(more, code << 6 | (buffer[leads + k].astype(np.int64) & 0x3F), code)
        distinct, inverse = np.unique(code, return_inverse=True)
        return cls(leads, sizes, distinct, inverse)


def _lower_in_place(buffer: np.ndarray, found: _Characters) -> list[bytes]:
    """Lowercase the non-ASCII characters ``found`` in ``buffer`` as ``str.lower`` does (its
    ASCII letters lowered already), each distinct character lowered once and written over its
    bytes; ``Σ`` to ``ς`` or ``σ`` by the characters beside it. The few that lower to another
    length (``İ`` to two characters, the Kelvin sign to ``k``) are left as they are. Returns,
    for each distinct character, the bytes to splice in for it (b"" for none), non-word
    characters blanked."""
    characters = [chr(code) for code in found.distinct.tolist()]
    lowered = [character.lower() for character in characters]
    same_length = [len(_encoded(low)) == len(_encoded(character)) for low, character in zip(lowered, characters)]
    _overwrite(buffer, found, [_encoded(low) if same and low != character else b""
                               for low, character, same in zip(lowered, characters, same_length)])
    if _SIGMA in characters:  # written σ, as Σ alone lowers; ς where it ends a word
        at = found.leads[found.inverse == characters.index(_SIGMA)]
        buffer[at[_final_sigmas(buffer, at, found, characters)] + 1] = 0x82  # σ is CF 83, ς CF 82
    return [b"" if same else _blanked(low) for low, same in zip(lowered, same_length)]


def _blanked(text: str) -> bytes:
    """The UTF-8 of ``text``, each non-ASCII character that is not a word character as spaces,
    byte for byte, as ``_blank_non_words`` leaves a buffer."""
    return _encoded("".join(c if c.isascii() or is_word_character(ord(c)) else " " * len(_encoded(c)) for c in text))


def _final_sigmas(buffer: np.ndarray, at: np.ndarray, found: _Characters, characters: list[str]) -> np.ndarray:
    """Which of the ``Σ`` at ``at`` ``str.lower`` makes ``ς``: those with a cased character
    before them and none after them, past any case-ignorable ones (an apostrophe, a period, a
    combining accent), within their document (NUL, which ends one, is neither). The characters
    are ``found``'s: ``buffer`` is read only for its ASCII bytes and where characters start, which
    lowering in place leaves as they were."""
    cased = np.zeros(len(characters) + 128, dtype=bool)
    ignorable = np.zeros(len(characters) + 128, dtype=bool)
    for index, character in enumerate([*characters, *map(chr, range(128))]):
        cased[index], ignorable[index] = _case_kind(character)

    def row_at(positions: np.ndarray) -> np.ndarray:  # rows of cased and ignorable: the distinct ones, then ASCII
        byte = buffer[positions].astype(np.int64)
        nearest = np.minimum(np.searchsorted(found.leads, positions), len(found.leads) - 1)
        return np.where(byte < 0x80, len(characters) + byte, found.inverse[nearest])

    def skip_ignorable(positions: np.ndarray, step: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        positions = step(positions)
        while (more := ignorable[row_at(positions)]).any():
            positions[more] = step(positions[more])
        return positions

    def back(positions: np.ndarray) -> np.ndarray:  # the character before: -1, before the first, is a padding NUL
        positions = positions - 1
        for _ in range(3):
            positions = np.where((buffer[positions] & 0xC0) == 0x80, positions - 1, positions)
        return positions

    def forward(positions: np.ndarray) -> np.ndarray:
        return positions + np.maximum(_UTF8_SIZE[buffer[positions]], 1)

    before = skip_ignorable(at, back)
    after = skip_ignorable(at, forward)
    return cased[row_at(before)] & ~cased[row_at(after)]


def _case_kind(character: str) -> tuple[bool, bool]:
    """Whether ``str.lower`` takes ``character`` for cased, and for case-ignorable, in choosing
    between ``ς`` and ``σ`` for a ``Σ`` after it: Python has no other way to ask."""
    alone, after_a_letter = (character + _SIGMA).lower()[-1], ("A" + character + _SIGMA).lower()[-1]
    ignorable = alone == "σ" and after_a_letter == "ς"
    return alone == "ς", ignorable


def _overwrite(buffer: np.ndarray, found: _Characters, replacements: list[bytes]) -> None:
    """Write over each character ``found`` the UTF-8 bytes its distinct character gives in
    ``replacements``: as many as it has, or none to leave it."""
    new = _byte_rows(replacements)
    for k in range(new.shape[1]):
        at = new[found.inverse, k] != 0  # a continuation byte is never 0, nor a lead byte
        buffer[found.leads[at] + k] = new[found.inverse[at], k]


def _spliced(buffer: np.ndarray, doc_starts: np.ndarray, found: _Characters, replacements: list[bytes],
             ) -> tuple[np.ndarray, np.ndarray]:
    """``buffer`` with each character ``found`` whose distinct character has bytes in
    ``replacements`` replaced by them, and where its documents start then."""
    lengths = np.array([len(new) for new in replacements], dtype=np.int64)
    new = _byte_rows(replacements)
    which = (lengths > 0)[found.inverse]
    at, sizes, rows = found.leads[which], found.sizes[which], found.inverse[which]
    kept = np.delete(buffer, _span_bytes(at, sizes))
    dropped_before = np.cumsum(sizes) - sizes
    values = new[rows][np.arange(new.shape[1]) < lengths[rows, None]]
    buffer = np.insert(kept, np.repeat(at - dropped_before, lengths[rows]), values)
    growth = np.append(0, np.cumsum(lengths[rows] - sizes))
    return buffer, doc_starts + growth[np.searchsorted(at, doc_starts)]


def _byte_rows(pieces: list[bytes]) -> np.ndarray:
    """The pieces as the rows of a byte matrix, padded with zeros."""
    rows = np.zeros((len(pieces), max(map(len, pieces), default=0)), dtype=np.uint8)
    for row, piece in enumerate(pieces):
        rows[row, :len(piece)] = list(piece)
    return rows


def _span_bytes(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Every position of the spans of ``sizes`` bytes at ``starts``, one span after another."""
    offsets = np.cumsum(sizes) - sizes  # where each span begins among them
    return np.repeat(starts - offsets, sizes) + np.arange(int(sizes.sum()))


def _blank_non_words(buffer: np.ndarray, found: _Characters) -> None:
    """Overwrite with spaces the bytes of each non-ASCII character ``found`` in ``buffer`` that
    is not a word character to Python's regular expressions (``’``, ``—``, a no-break space, a
    combining accent, a lone surrogate), numpy over the non-ASCII bytes alone: the regex
    engine's pass over a document took twice as long as counting it."""
    word = np.fromiter(map(is_word_character, found.distinct.tolist()), dtype=bool, count=len(found.distinct))
    blank = ~word[found.inverse]
    buffer[_span_bytes(found.leads[blank], found.sizes[blank])] = ord(" ")


def token_spans(buffer: np.ndarray, kind: np.ndarray, shortest: int) -> tuple[np.ndarray, np.ndarray]:
    """Start and length of every token: each run of word bytes, and of joining bytes between
    them where ``kind`` has those (see ``BYTE_KINDS``), ``shortest`` (1 or 2) or more
    characters long."""
    # The changes between run and other bytes alternate: a run's start, its end (the padding
    # ends the last run).
    kinds = kind[buffer]
    edges = np.flatnonzero(np.diff(kinds > 0, prepend=False))
    starts, ends = edges[0::2], edges[1::2]
    if kind.max() > 1:  # a run begins at its first word byte and ends after its last one
        word, at = kinds == 1, np.arange(len(buffer))
        next_word = np.minimum.accumulate(np.where(word, at, len(buffer))[::-1])[::-1]
        last_word = np.maximum.accumulate(np.where(word, at, -1))
        starts, ends = next_word[starts], last_word[ends - 1] + 1
    lengths = ends - starts
    long_enough = lengths >= shortest
    starts, lengths = starts[long_enough], lengths[long_enough]
    if shortest > 1:  # a run of 2 to 4 bytes can be one character
        several = lengths != _UTF8_SIZE[buffer[starts]]
        starts, lengths = starts[several], lengths[several]
    return starts, lengths


def distinct_tokens(buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, ...]:
    """``unique_first`` of the tokens' keys, having checked that every token with a hashed
    key is the same bytes as the one occurrence returned for it."""
    unique, first, inverse = unique_first(token_keys(buffer, starts, lengths))
    long = np.flatnonzero(lengths > 8)
    if len(long):
        same = first[inverse[long]]
        if not (np.array_equal(lengths[long], lengths[same])
                and same_bytes(buffer, starts[long], buffer, starts[same], lengths[long])):
            raise TokenClash
    return unique, first, inverse


def token_keys(buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The 64-bit key of each token. Up to 8 bytes, the bytes themselves (the first byte is
    never 0); longer, a hash of them with the lowest byte 0 (the caller checks that a hash
    means one token). Then mixed, one to one, so that the keys spread evenly."""
    words64 = _words64(buffer)
    keys = words64[starts] & _MASK[np.minimum(lengths, 8)]
    long = np.flatnonzero(lengths > 8)
    if len(long):
        keys[long] = _long_keys(words64, starts[long], lengths[long])
    return mix64(keys)


def _long_keys(words64: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    chunks, offsets, chunk_number = _chunks(words64, starts, lengths)
    salted = mix64(chunks ^ (chunk_number.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)))
    return mix64(np.add.reduceat(salted, offsets) ^ lengths.astype(np.uint64)) & ~np.uint64(0xFF)


def _chunks(words64: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each token's bytes as 64-bit words (the last one zero-filled), where each token's words
    begin, and each word's number within its token."""
    n_chunks = (lengths + 7) // 8
    offsets = np.cumsum(n_chunks) - n_chunks
    chunk_number = np.arange(int(n_chunks.sum())) - np.repeat(offsets, n_chunks)
    left = np.repeat(lengths, n_chunks) - 8 * chunk_number
    chunks = words64[np.repeat(starts, n_chunks) + 8 * chunk_number] & _MASK[np.minimum(left, 8)]
    return chunks, offsets, chunk_number


def same_bytes(buffer: np.ndarray, starts: np.ndarray, other: np.ndarray, other_starts: np.ndarray,
                lengths: np.ndarray) -> bool:
    """Whether every token (start, length) of ``buffer`` equals the one at ``other_starts`` in ``other``."""
    return np.array_equal(_chunks(_words64(buffer), starts, lengths)[0],
                          _chunks(_words64(other), other_starts, lengths)[0])


def _words64(buffer: np.ndarray) -> np.ndarray:
    """The (unaligned) 64-bit little-endian word at every byte offset of a NUL-padded buffer."""
    return np.ndarray((len(buffer) - PAD + 1,), dtype="<u8", buffer=buffer, strides=(1,))


def unique_first(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct keys, the position of one occurrence of each, and each key's index
    among them: ``np.unique`` with ``return_index`` and ``return_inverse`` for hashed keys,
    about twice as fast (its stable argsort is its slow part)."""
    n = len(keys)
    order = None
    if n < 2**_POSITION_BITS:
        # Sort each key's position under its top 40 bits: numpy's plain (vectorised) sort
        # instead of an argsort. Two keys sharing those bits would interleave; then argsort.
        packed = (keys & _HIGH_40) | np.arange(n, dtype=np.uint64)
        packed.sort()
        order = (packed & ~_HIGH_40).astype(np.int64)
        ordered = keys[order]
        new = run_starts(ordered)
        if not np.array_equal(new, run_starts(packed >> _POSITION_BITS)):
            order = None
    if order is None:
        order = np.argsort(keys)
        ordered = keys[order]
        new = run_starts(ordered)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], order[new], inverse


def token_strings(buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The tokens as strings, and their bytes joined, NUL after each, in one decode."""
    joined = spans_joined(buffer, starts, lengths)
    return _decode(joined[:-1]).split("\x00") if len(starts) else [], joined


def spans_joined(buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The spans (start, length) of ``buffer`` one after another, a NUL after each."""
    spans = lengths + 1
    joined = buffer[_span_bytes(starts, spans)]
    joined[np.cumsum(spans) - 1] = 0
    return joined


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer: one to one, and every input bit moves every output bit."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def buffer_of_tokens(tokens: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Whole tokens in a buffer, as ``text_buffer`` and ``token_spans`` would find them."""
    encoded = [t.encode("utf-8", "surrogatepass") for t in tokens]
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    buffer = np.frombuffer(b"\x00".join(encoded) + b"\x00" * PAD, dtype=np.uint8)
    return buffer, np.cumsum(lengths + 1) - (lengths + 1), lengths


def _decode(raw: np.ndarray) -> str:
    return raw.tobytes().decode("utf-8", "surrogatepass")
