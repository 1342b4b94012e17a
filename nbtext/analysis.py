"""Turning text into the features that get counted: tokens, word n-grams, character n-grams."""

from __future__ import annotations

import functools
import itertools
import numbers
import operator
import os
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import DataError

ANALYZERS = ("word", "char_wb")

#: Unicode words of two or more characters: the same features as scikit-learn's default
#: ``(?u)\b\w\w+\b`` (the word boundaries add nothing once the run is greedy).
_WORD = re.compile(r"\w\w+")
#: Every run of Unicode word characters, one-character ones too.
_RUN = re.compile(r"\w+")
#: Word-character runs joined by ``.``, ``@``, ``'`` or ``-`` between two word characters.
JOINED = re.compile(r"\w[\w.@'-]*\w")
#: Every run of word characters, and every other character that is not white space (a mark:
#: ``!``, ``$``, ``%``, ``£``) as a token of its own: how ``marks`` found tokens before emoji
#: sequences were kept whole, and still does for the models trained so (``MARKS_BY_CHARACTER_KIND``).
MARKS_BY_CHARACTER = re.compile(r"\w+|[^\w\s]")
#: Emoji as people write them: a pictograph with its skin tone, its emoji presentation (U+FE0F)
#: or a subdivision flag's tags, and the pictographs a zero-width joiner joins (a family); a
#: flag (two regional indicators); a keycap (1, U+FE0F, U+20E3). Each one token, as Unicode's
#: emoji sequences are one character to whoever reads them.
_PICTOGRAPH = ("[\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u2199\u21a9\u21aa\u231a\u231b\u2328\u23cf"
               "\u23e9-\u23f3\u23f8-\u23fa\u24c2\u25aa\u25ab\u25b6\u25c0\u25fb-\u25fe\u2600-\u27bf"
               "\u2934\u2935\u2b05-\u2b07\u2b1b\u2b1c\u2b50\u2b55\u3030\u303d\u3297\u3299\U0001f000-\U0001faff]")
_EMOJI_PART = f"{_PICTOGRAPH}(?:[\U0001f3fb-\U0001f3ff\ufe0f\u20e3\U000e0020-\U000e007f])*"
EMOJI = f"[0-9#*]\ufe0f?\u20e3|[\U0001f1e6-\U0001f1ff]{{2}}|{_EMOJI_PART}(?:\u200d{_EMOJI_PART})*"
#: ``MARKS_BY_CHARACTER``, with each emoji sequence one token.
MARKS = f"{EMOJI}|\\w+|[^\\w\\s]"
#: For ASCII text, every non-word byte becomes a space, so ``str.split`` finds the word runs
#: without the regex engine (about a third faster on 20 Newsgroups).
_ASCII_NON_WORD = {i: " " for i in range(128) if not (chr(i).isalnum() or chr(i) == "_")}
_UTF8 = functools.partial(str.encode, encoding="utf-8", errors="surrogatepass")


@dataclass(frozen=True)
class Analyzer:
    """How text becomes features; saved with the model so prediction sees what training saw.

    Parameters
    ----------
    analyzer : {"word", "char_wb"}
        Word tokens (Unicode word characters, two or more), or character n-grams taken inside
        each whitespace-separated word padded with one space on each side.
    ngram_range : (int, int)
        Smallest and largest n of the n-grams (of words, or of characters for ``char_wb``).
    char_ngrams : (int, int) or None
        With the word analyzer, also the ``char_wb`` n-grams of these lengths, each in square
        brackets (``[ ca]``) so that it can never be taken for a word.
    tokens : {"words", "all-words", "joined", "marks"}
        The word analyzer's tokens: runs of two or more Unicode word characters (scikit-learn's
        default); every run, one-character ones (``a``, ``I``, the ``t`` of ``don't``) too;
        or runs of two or more kept whole where ``.``, ``@``, ``'`` or ``-`` joins them (host,
        newsgroup and mail names, version numbers, contractions, hyphenated words) and dropped
        from either end; or every run, and every mark (a character that is neither a word
        character nor white space: ``!``, ``$``, ``?``) as a token of its own, as spam filters
        keep the ``$`` and ``!`` of "$$$ FREE!!!".
    lowercase : bool
        Lowercase the text before anything else.
    stop_words : frozenset of str
        Word tokens dropped before word n-grams are formed (ignored by ``char_wb``).
    headers : tuple of str
        Mail headers whose words join the document as prefixed tokens (``subject_free``);
        kept here so that every command reads mail the way training did.
    cjk_bigrams : bool
        Read Chinese, Japanese and Korean text in overlapping pairs of characters (``東京都`` gives
        ``東京`` and ``京都``), as search engines without a dictionary do: these languages write
        no spaces between words, so a run of their characters, a whole sentence, would otherwise
        be one token seen once. A lone character is a token of its own (which ``words`` drops, as
        it drops every one-character word). A model file without this setting was trained
        before it existed, and reads its runs whole.
    hash_features : int or None
        Replace each feature by one of this many buckets, ``#`` and the CRC-32 of its UTF-8
        bytes modulo the count (the same in every process and on every machine), so the
        vocabulary can never outgrow memory; the words themselves are not kept.

    Examples
    --------
    >>> Analyzer()("The cat sat, the CAT ran!")
    ['the', 'cat', 'sat', 'the', 'cat', 'ran']
    >>> Analyzer(ngram_range=(1, 2), stop_words=frozenset({"the"}))("The cat sat")
    ['cat', 'sat', 'cat sat']
    >>> Analyzer(analyzer="char_wb", ngram_range=(3, 3))("Hi cat")
    [' hi', 'hi ', ' ca', 'cat', 'at ']
    >>> Analyzer(char_ngrams=(4, 4))("Hi cat")
    ['hi', 'cat', '[ hi ]', '[ cat]', '[cat ]']
    >>> Analyzer(tokens="all-words")("I don't know a 2nd way")
    ['i', 'don', 't', 'know', 'a', '2nd', 'way']
    >>> Analyzer(tokens="joined")("Mail jo@cs.cmu.edu about comp.sys.mac and Windows 3.1, don't.")
    ['mail', 'jo@cs.cmu.edu', 'about', 'comp.sys.mac', 'and', 'windows', '3.1', "don't"]
    >>> Analyzer(tokens="marks")("Earn $500 NOW!!")
    ['earn', '$', '500', 'now', '!', '!']
    >>> Analyzer(hash_features=1024)("The cat sat, the CAT ran!")
    ['#486', '#936', '#216', '#486', '#936', '#917']
    """

    analyzer: str = "word"
    ngram_range: tuple[int, int] = (1, 1)
    char_ngrams: tuple[int, int] | None = None
    tokens: str = "words"
    lowercase: bool = True
    stop_words: frozenset[str] = field(default_factory=frozenset)
    headers: tuple[str, ...] = ()
    hash_features: int | None = None
    cjk_bigrams: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "headers", tuple(h.strip().lower() for h in self.headers if h.strip()))
        if self.analyzer not in ANALYZERS:
            raise DataError(f"unknown analyzer {self.analyzer!r}; use one of {ANALYZERS}")
        object.__setattr__(self, "ngram_range", _checked_range(self.ngram_range, "n-gram range"))
        if self.char_ngrams is not None:
            if self.analyzer != "word":
                raise DataError("character n-grams are added to word features: use them with the word analyzer")
            object.__setattr__(self, "char_ngrams", _checked_range(self.char_ngrams, "character n-gram range"))
        if self.tokens not in TOKENIZERS:
            raise DataError(f"unknown tokens {self.tokens!r}; use one of {TOKENS}")
        if self.tokens != "words" and self.analyzer != "word":
            raise DataError("`tokens` is how the word analyzer finds words: use it with the word analyzer")
        object.__setattr__(self, "stop_words", frozenset(self.stop_words))
        if self.hash_features is not None and not 1 <= self.hash_features <= 2**32:
            raise DataError(f"bad `hash_features` {self.hash_features}: need 1 to 2**32 buckets")

    def __call__(self, text: str) -> list[str]:
        """The features of one document, in text order, repeats kept."""
        features = self._features(text)
        if self.hash_features is None:
            return features
        return self._buckets(features)

    def _buckets(self, features: list[str]) -> list[str]:
        # All C-level: CRC-32 of the UTF-8 bytes, modulo the bucket count, formatted.
        buckets = map(operator.mod, map(zlib.crc32, map(_UTF8, features)), itertools.repeat(self.hash_features))
        return list(map("#%d".__mod__, buckets))

    def bucket_members(self, text: str) -> dict[str, list[str]]:
        """For a hashing analyzer, the features of ``text`` that fall in each of its buckets,
        each once, in text order: what a bucket stands for in this text.

        >>> Analyzer(hash_features=1024).bucket_members("The cat sat, the CAT ran!")
        {'#486': ['the'], '#936': ['cat'], '#216': ['sat'], '#917': ['ran']}
        """
        if self.hash_features is None:
            raise ValueError("the analyzer hashes no features into buckets")
        members: dict[str, list[str]] = {}
        features = list(dict.fromkeys(self._features(text)))
        for feature, bucket in zip(features, self._buckets(features)):
            members.setdefault(bucket, []).append(feature)
        return members

    def _features(self, text: str) -> list[str]:
        if not isinstance(text, str):
            raise TypeError(_not_one_text(text))
        if self.lowercase:
            text = text.lower()
        if self.analyzer == "char_wb":
            return _char_wb(text, self.ngram_range)
        features = self._words(text)
        if self.char_ngrams:
            features += map("[%s]".__mod__, _char_wb(text, self.char_ngrams))
        return features

    def _words(self, text: str) -> list[str]:
        if self.cjk_bigrams:
            text = cjk_bigrams(text)
        tokens = TOKENIZERS[self.tokens](text)
        if self.stop_words:
            tokens = [token for token in tokens if token not in self.stop_words]
        low, high = self.ngram_range
        if (low, high) == (1, 1):
            return tokens
        features = list(tokens) if low == 1 else []
        for n in range(max(low, 2), min(high, len(tokens)) + 1):  # none longer than the text: any range holds
            features += map(" ".join, zip(*(tokens[i:] for i in range(n))))
        return features

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the model file (no classes, so loading needs no code)."""
        data = {
            "analyzer": self.analyzer,
            "ngram_range": list(self.ngram_range),
            "char_ngrams": list(self.char_ngrams) if self.char_ngrams else None,
            "tokens": "marks" if self.tokens == MARKS_BY_CHARACTER_KIND else self.tokens,
            "lowercase": self.lowercase,
            "stop_words": sorted(self.stop_words),
            "headers": list(self.headers),
            "hash_features": self.hash_features,
            "cjk_bigrams": self.cjk_bigrams,
        }
        if self.tokens == "marks":  # else read as the models trained before, character by character
            data["emoji_sequences"] = True
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Analyzer:
        """The inverse of ``to_dict``; a TypeError where ``data`` holds a setting of another type
        than ``to_dict`` writes (a damaged model file), and the usual error for a bad value."""
        def strings(value: Any) -> bool:
            return isinstance(value, list) and all(type(item) is str for item in value)

        def bounds(value: Any) -> bool:
            return isinstance(value, list) and len(value) == 2 and all(type(n) is int for n in value)

        if not (isinstance(data, dict) and type(data.get("analyzer")) is str and bounds(data.get("ngram_range"))
                and (data.get("char_ngrams") is None or bounds(data["char_ngrams"]))
                and type(data.get("tokens", "words")) is str and type(data.get("lowercase")) is bool
                and strings(data.get("stop_words")) and strings(data.get("headers", []))
                and (data.get("hash_features") is None or type(data["hash_features"]) is int)
                and type(data.get("cjk_bigrams", False)) is bool):
            raise TypeError(f"analyzer settings of the wrong types: {data!r:.200}")
        tokens = data.get("tokens", "words")
        if tokens == "marks" and data.get("emoji_sequences") is not True:
            tokens = MARKS_BY_CHARACTER_KIND
        return cls(
            analyzer=data["analyzer"],
            ngram_range=tuple(data["ngram_range"]),
            char_ngrams=tuple(data["char_ngrams"]) if data.get("char_ngrams") else None,
            tokens=tokens,
            lowercase=data["lowercase"],
            stop_words=frozenset(data["stop_words"]),
            headers=tuple(data.get("headers", ())),
            hash_features=data.get("hash_features"),
            cjk_bigrams=data.get("cjk_bigrams", False),
        )


def _checked_range(bounds: tuple[int, int], what: str) -> tuple[int, int]:
    # "1,2" was unpacked as too many values, and (1.5, 2) ran as (1, 2).
    if not (isinstance(bounds, (tuple, list)) and len(bounds) == 2
            and all(isinstance(b, numbers.Integral) and not isinstance(b, bool) for b in bounds)):
        raise DataError(f"bad {what} {bounds!r}: need two whole numbers, (MIN, MAX)")
    low, high = bounds
    if not 1 <= low <= high:
        raise DataError(f"bad {what} {low},{high}: need 1 <= MIN <= MAX")
    return int(low), int(high)


def _char_wb(text: str, ngram_range: tuple[int, int]) -> list[str]:
    """Character n-grams inside each whitespace-separated word padded with a space each side."""
    low, high = ngram_range
    features: list[str] = []
    for word in text.split():
        features += _word_ngrams(word, low, high) if len(word) <= _CACHED_WORD else _padded_ngrams(word, low, high)
    return features


def _padded_ngrams(word: str, low: int, high: int) -> list[str]:
    """The character n-grams of one word padded with a space each side."""
    padded = f" {word} "
    features: list[str] = []
    for n in range(low, high + 1):
        if len(padded) <= n:  # a short word counts once, whole, then no larger n
            features.append(padded)
            break
        features += [padded[i:i + n] for i in range(len(padded) - n + 1)]
    return features


@functools.lru_cache(maxsize=1 << 13)
def _word_ngrams(word: str, low: int, high: int) -> tuple[str, ...]:
    """``_padded_ngrams``, made once while the word stays among the 8,192 last seen: most of a
    text's words are common ones, so 20news's character 2- to 4-grams took 4.9 to 5.2 s (with
    16,384 to 4,096 words kept) against 9.7 s. Words longer than _CACHED_WORD, which seldom
    come again, are not kept (so the cache holds 30 MB at most for 2- to 4-grams)."""
    return tuple(_padded_ngrams(word, low, high))


#: The longest word whose n-grams ``_word_ngrams`` keeps.
_CACHED_WORD = 20


@functools.lru_cache(maxsize=1 << 16)
def is_word_character(code: int) -> bool:
    """Whether the character ``code`` is one the tokenizers' ``\\w`` takes into a word."""
    return _RUN.fullmatch(chr(code)) is not None


def words(text: str) -> list[str]:
    """Runs of two or more Unicode word characters, in order."""
    if text.isascii():
        return [token for token in text.translate(_ASCII_NON_WORD).split() if len(token) > 1]
    return _WORD.findall(text)


#: The letters of Chinese, Japanese and Korean writing: Han ideographs (with the iteration and
#: Hangzhou marks), Hiragana, Katakana (half-width too), and Hangul syllables and jamo.
CJK = ("\u1100-\u11ff\u3005-\u3007\u3021-\u3029\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
       "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff\uf900-\ufaff\uff66-\uffdc"
       "\U00020000-\U0003134f")
#: A run of CJK characters not joined to a ``_`` before it: a mail header's token (``from_王小明``,
#: ``readers.mail.header_tokens``) is one name, and stays whole.
CJK_RUN = re.compile(f"(?<![_{CJK}])[{CJK}]+")
_WORD_PIECES = re.compile(r"(\w+)")


def cjk_bigrams(text: str) -> str:
    """``text`` with each run of CJK characters written as its overlapping pairs of characters,
    spaced apart from each other and from what is around them (a lone character as itself),
    for any tokenizer to take each pair as a word.

    >>> cjk_bigrams("Visit 東京都 now, 日本!")
    'Visit  東京 京都  now,  日本 !'
    """
    if text.isascii():  # a flag Python keeps: no pass over the text
        return text
    return CJK_RUN.sub(_pairs, text)


def _pairs(run: re.Match[str]) -> str:
    characters = run.group()
    if not characters.isalnum():  # a mark among them (the katakana middle dot): pairs on each side of it
        pieces = _WORD_PIECES.split(characters)
        return " ".join(_paired(piece) if i % 2 else piece for i, piece in enumerate(pieces) if piece)
    return _paired(characters)


def _paired(characters: str) -> str:
    if len(characters) == 1:
        return f" {characters} "
    return f" {' '.join(map(operator.add, characters, characters[1:]))} "


@functools.cache
def _compiled_marks() -> re.Pattern[str]:
    # Compiled on first use: the emoji classes take a millisecond or two, which every start-up
    # (one predict in a shell loop) would pay for a kind of tokens it seldom uses.
    return re.compile(MARKS)


def marks(text: str) -> list[str]:
    """Every run of word characters, every emoji sequence, and every other mark, in order."""
    return _compiled_marks().findall(text)


def all_words(text: str) -> list[str]:
    """Every run of Unicode word characters, one-character ones too, in order."""
    if text.isascii():
        return text.translate(_ASCII_NON_WORD).split()
    return _RUN.findall(text)


#: How the word analyzer finds a text's tokens, by ``Analyzer.tokens``: runs of two or more word
#: characters, every run (``a``, ``I``, ``2`` too), runs joined by the punctuation that holds
#: names together (``comp.sys.mac``, ``jo@cs.cmu.edu``, ``3.1``, ``don't``), or every run and
#: every mark (``!``, ``$``).
TOKENIZERS: dict[str, Callable[[str], list[str]]] = {"words": words, "all-words": all_words,
                                                     "joined": JOINED.findall, "marks": marks}
TOKENS = tuple(TOKENIZERS)
#: A model trained with ``marks`` before emoji sequences were kept whole reads its tokens as it
#: was trained, character by character: its model file says ``marks`` without
#: ``emoji_sequences``, and it loads with this kind, which no option offers.
MARKS_BY_CHARACTER_KIND = "marks-by-character"
TOKENIZERS[MARKS_BY_CHARACTER_KIND] = MARKS_BY_CHARACTER.findall
#: Each kind of tokens as a regular expression (Python's, Unicode-aware ``\w``), for programs
#: that score an exported model (``Model.linear_form``) without nbtext.
TOKEN_PATTERNS = {"words": _WORD.pattern, "all-words": _RUN.pattern, "joined": JOINED.pattern,
                  "marks": MARKS, MARKS_BY_CHARACTER_KIND: MARKS_BY_CHARACTER.pattern}


def load_stop_words(spec: str | None, *, lowercase: bool = True) -> frozenset[str]:
    """``english`` or ``en`` (scikit-learn's list), another language's list by its name or ISO code
    (``german``, ``de``: the stop-words package's, which ``stop_word_languages`` names), a file
    of one word per line (UTF-8), or nothing; the words lowercased where the text is, or "The"
    would never meet the token "the". A file of a language's name is read as the file."""
    if not spec:
        return frozenset()
    if spec == "english" or (not os.path.exists(spec) and stop_word_languages().get(spec) == "english"):
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # scikit-learn: 0.5 s, for this list alone

        return frozenset(ENGLISH_STOP_WORDS)
    if not os.path.exists(spec) and spec in stop_word_languages():
        from stop_words import get_stop_words

        return frozenset(word.lower() if lowercase else word for word in get_stop_words(spec))
    try:
        with open(spec, "rb") as handle:
            text = handle.read().decode("utf-8")
    except OSError as error:
        names = stop_word_languages()
        if spec.lower() == "english":
            hint = "; scikit-learn's list is written english"
        elif spec.lower() in names:
            hint = f"; the list of that language is written {spec.lower()}"
        else:
            hint = f"; the languages known by name: english, {', '.join(sorted(set(names.values()) - {'english'}))}"
        raise DataError(f"cannot read stop-word file {spec}: {error.strerror}{hint}") from None
    except UnicodeDecodeError as error:
        raise DataError(f"stop-word file {spec}: not UTF-8 (byte {error.object[error.start]:#04x} at {error.start}); "
                        f"convert it first: iconv -f LATIN1 -t UTF-8") from None
    words = (line.strip() for line in text.splitlines())
    return frozenset(word.lower() if lowercase else word for word in words if word)


def stop_word_languages() -> dict[str, str]:
    """The stop-word lists known by name beside scikit-learn's English: each name and ISO code
    (``german``, ``de``) -> the language's name; none where the stop-words package is missing."""
    try:
        from stop_words import AVAILABLE_LANGUAGES, LANGUAGE_MAPPING
    except ImportError:
        return {}
    return {**{name: name for name in AVAILABLE_LANGUAGES}, **LANGUAGE_MAPPING}


def _not_one_text(text: object) -> str:
    """Why ``text`` is no document for an Analyzer, and what to give it instead."""
    kind = type(text).__name__
    if isinstance(text, (bytes, bytearray)):
        return f"Analyzer takes one document as str, not {kind}; decode bytes first"
    if isinstance(text, (list, tuple)):
        return f"Analyzer takes one document as str, not a {kind}; call it once per document"
    return f"Analyzer takes one document as str, not {kind}"
