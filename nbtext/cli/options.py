"""The options several commands share, each defined once: how DATA is read, the analyzer and
the Naive Bayes core, a spam filter's cut-offs, the files a command writes, and the shared
vocabulary (``--format``, ``--top``, ``--jobs``) with the old spellings kept for one release.
"""

from __future__ import annotations

import functools
import math
import os
import re
import sys
from collections.abc import Callable
from typing import Any, ClassVar

import click
from click.core import ParameterSource

from ..analysis import ANALYZERS, TOKENS
from ..combining import COMBINING, NB
from ..errors import DataError, NbtextError
from ..limits import MAX_ALPHA, MAX_DOCUMENT_BYTES, MAX_PROCESSES
from ..modelfile import unsafe_output
from ..readers import INPUT_FORMATS, Columns, check_encoding
from ..readers.mail import DEFAULT_MAIL_HEADERS, USEFUL_HEADERS, header_names
from ..spam import SPAM_LABEL
from .flags import as_flags

VARIANT_NAMES = ("multinomial", "bernoulli", "complement")


class ByteSize(click.ParamType):
    """A size in bytes as ``head -c`` and ``split -b`` read one: 64M, 1G and 500K in powers of
    1,024 (so are 64MiB and the like), 64MB in powers of 1,000, or a plain number of bytes."""

    name = "size"
    _UNITS: ClassVar[dict[str, int]] = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(i?B?)\s*", str(value), re.IGNORECASE)
        if found is None or found[3].upper() == "I":
            return self.fail(f"{value!r} is no size: give bytes, or a number with K, M or G (64M, 1G)", param, ctx)
        number, unit, suffix = found.groups()
        scale = self._UNITS[unit.upper()] if suffix.upper() != "B" or not unit else 1000 ** " KMGT".index(unit.upper())
        size = int(float(number) * scale)
        if not 1 <= size <= self._UNITS["T"]:
            self.fail(f"{value} is {size:,} bytes: give 1 byte to 1T", param, ctx)
        return size


#: A document larger than this is skipped and counted (limits.MAX_DOCUMENT_BYTES).
size_option = click.option(
    "--max-document-size", "max_document_size", type=ByteSize(), default=f"{MAX_DOCUMENT_BYTES >> 20}M",
    show_default=True, metavar="SIZE",
    help="Skip (and count) any one document, line, message or file larger than this, reading no more of it, so "
         "that memory stays bounded on any input (/dev/zero, an endless line); a table's row that large is an "
         "error. K, M, G: powers of 1,024.")


def _encoding(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """--encoding: a text encoding Python knows (not rot13 or base64, which turn text into text or bytes into bytes)."""
    try:
        check_encoding(value)
    except DataError as error:
        raise click.BadParameter(as_flags(str(error.args[0]))) from None
    return value  # as typed: the read report names it so


def encoding_option(help: str) -> Callable:
    return click.option("--encoding", default="utf-8", show_default=True, callback=_encoding, help=help)


def input_options(command: Callable) -> Callable:
    """--input-format, --encoding, --max-document-size and --verbose, for commands that read labelled DATA."""
    decorators = [
        click.option("--input-format", type=click.Choice(INPUT_FORMATS),
                     help="How to read DATA (default: a folder, or from the file name or first line; "
                          "mail formats: email = one RFC 822 message per file, mbox, maildir; mbox files, "
                          "maildirs and .eml files are mail untold)."),
        encoding_option("Encoding of the documents; invalid bytes are replaced and counted."),
        size_option,
        click.option("-v", "--verbose", is_flag=True, help="Name every replaced, empty or skipped entry."),
        *column_options(labelled=True),
    ]
    return functools.reduce(lambda f, d: d(f), reversed(decorators), command)


def column_options(*, labelled: bool) -> list[Callable]:
    """Where text, label and id live in tables (CSV/TSV with a header) and JSONL records."""
    options = [
        click.option("--text-column", "--text-field", "text_column", metavar="NAME",
                     help="Table column, or JSONL field (dotted path: meta.body), holding the text; eval, "
                          "predict and train --update read CSV and JSONL files by the model's columns unless told."),
        click.option("--id-column", "--id-field", "id_column", metavar="NAME",
                     help="Column or field naming each row (echoed by predict; default FILE:LINE)."),
    ]
    if labelled:
        options += [
            click.option("--label-column", "--label-field", "label_column", metavar="NAME",
                         help="Table column, or JSONL field, holding the label."),
            click.option("--skip-unlabelled", is_flag=True,
                         help="Skip (and count) rows without a label instead of stopping."),
            click.option("--label-separator", metavar="SEP",
                         help="A label cell holds a document's several labels, split by SEP (grain|wheat with "
                              "'|'); a JSON list of labels is read as several either way."),
        ]
    return options


def columns_of(text_column: str | None, label_column: str | None = None, id_column: str | None = None,
               skip_unlabelled: bool = False, numeric: tuple[str, ...] = (),
               categorical: tuple[str, ...] = (), *, label_separator: str | None = None) -> Columns | None:
    """A Columns when the user named any column, else None (the formats' own layouts). With
    numeric or categorical columns and no text column named, a table without a ``text`` column
    is read without text."""
    if not (text_column or label_column or id_column or skip_unlabelled or numeric or categorical or label_separator):
        return None
    if label_separator == "":
        raise click.BadParameter("an empty separator splits nothing", param_hint="--label-separator")
    try:
        return Columns(text_column or "text", label_column or "label", id_column, skip_unlabelled, numeric,
                       categorical, text_optional=not text_column and bool(numeric or categorical),
                       label_separator=label_separator)
    except NbtextError as error:
        raise click.UsageError(as_flags(str(error))) from None


def labelled_columns(options: dict[str, Any], numeric: tuple[str, ...] = (),
                     categorical: tuple[str, ...] = ()) -> Columns | None:
    """``columns_of`` the column options of a command that reads labelled data (``input_options``'s)."""
    return columns_of(options["text_column"], options["label_column"], options["id_column"],
                      options["skip_unlabelled"], numeric, categorical, label_separator=options["label_separator"])


def column_names(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[str, ...]:
    """--numeric-columns a,b: the names, in order, each once."""
    if value is None:
        return ()
    names = tuple(name.strip() for name in value.split(","))
    if not all(names):
        raise click.BadParameter(f"{value!r} has an empty name: give NAME,NAME,... (a column holding a comma: "
                                 "rename it)")
    return names


#: train's columns of numbers and of categories, beside (or instead of) the text.
value_column_options = [
    click.option("--numeric-columns", callback=column_names, metavar="NAME,...",
                 help="Table columns (or JSONL fields) of numbers, learnt by Gaussian NB beside the text; an empty "
                      "cell is a missing value. Without --text-column, a table with no text column is read "
                      "without text."),
    click.option("--categorical-columns", callback=column_names, metavar="NAME,...",
                 help="Table columns (or JSONL fields) of categories (a product, a tier, a mailer), learnt by "
                      "Categorical NB beside the text; an empty cell is a missing value."),
]


def _ngram_range(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, int]:
    try:
        low, high = (int(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter("expected MIN,MAX, e.g. 1,2") from None
    if not 1 <= low <= high:
        raise click.BadParameter("need 1 <= MIN <= MAX")
    return low, high


def _optional_ngram_range(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int] | None:
    return None if value in (None, "none") else _ngram_range(ctx, param, value)


def document_frequency(ctx: click.Context, param: click.Parameter, value: str | None) -> int | float | None:
    """A whole number is a document count; any other number (0.5, 1e-1) a proportion."""
    if value is None:
        return None
    try:
        number: int | float = int(value)
    except ValueError:
        try:
            number = float(value)
        except ValueError:
            raise click.BadParameter("expected a document count (e.g. 2) or a proportion (e.g. 0.5)") from None
    if not (number >= 0 if isinstance(number, int) else 0 <= number <= 1):  # nan is neither
        raise click.BadParameter("a count must be >= 0 and a proportion between 0.0 and 1.0")
    return number


def _buckets(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    if value is None:
        return None
    base, power, exponent = value.replace(" ", "").partition("**")
    try:
        number = int(base) ** int(exponent) if power else int(base)
    except ValueError:
        raise click.BadParameter("expected a bucket count, e.g. 1048576 or 2**20") from None
    if not 1 <= number <= 2**32:
        raise click.BadParameter("need 1 to 2**32 buckets")
    return number


def _header_list(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[str, ...] | None:
    return header_names(value)  # None: decided once the input format is known


def analyzer_options(command: Callable) -> Callable:
    """Tokenizer and vocabulary options, for commands that build a vocabulary."""
    decorators = [
        click.option("--analyzer", type=click.Choice(ANALYZERS), default="word", show_default=True,
                     help="Word tokens, or character n-grams inside word boundaries."),
        click.option("--ngram-range", default="1,2", show_default=True, callback=_ngram_range,
                     metavar="MIN,MAX", help="Lengths of the n-grams (in words, or characters for char_wb)."),
        click.option("--char-ngrams", metavar="MIN,MAX", callback=_optional_ngram_range,
                     help="Add the char_wb n-grams of these lengths to the word features (written [ ab] "
                          "in inspect-top-words)."),
        click.option("--tokens", type=click.Choice(TOKENS),
                     help="The word analyzer's tokens. all-words (the default): every run of letters and "
                          "digits, one-letter ones too (a, I, the t of don't). words: runs of two or more, as "
                          "scikit-learn's default. joined: runs of two or more kept whole where . @ ' or - joins "
                          "them (comp.sys.mac, jo@cs.cmu.edu, 3.1, don't), better for news posts (docs: accuracy). "
                          "marks: every run, and each mark (! $ ?) as a token of its own, as spam filters keep "
                          "them, each emoji sequence (a skin tone, a family, a flag) whole."),
        click.option("--lowercase/--no-lowercase", default=True, show_default=True),
        click.option("--cjk-bigrams/--no-cjk-bigrams", default=True, show_default=True,
                     help="Read Chinese, Japanese and Korean text, which puts no spaces between words, in "
                          "overlapping pairs of characters (東京都: 東京 京都), as search engines do; else a "
                          "run of such characters is one token."),
        click.option("--stop-words", metavar="LANGUAGE|FILE",
                     help="Drop these words: scikit-learn's English list (english), another language's list by "
                          "its name or ISO code (german, de; the stop-words package's 33 languages), or a UTF-8 "
                          "file with one word a line (lowercased, as the text is, unless --no-lowercase)."),
        click.option("--min-df", default="1", show_default=True, callback=document_frequency,
                     help="Drop terms in fewer documents than this (a count, or a proportion like 0.01)."),
        click.option("--max-df", default="1.0", show_default=True, callback=document_frequency,
                     help="Drop terms in more documents than this (a count, or a proportion like 0.5)."),
        click.option("--max-features", type=click.IntRange(min=1), help="Keep only the most frequent terms."),
        click.option("--tf", type=click.Choice(["raw", "binary", "log"]), default="log", show_default=True,
                     help="Term frequency per document: the count, presence (0/1), or log(1 + count)."),
        click.option("--binary", is_flag=True, help="Same as --tf binary: count a term once per document."),
        click.option("--doc-norm", type=click.Choice(["l2", "none"]), default="none", show_default=True,
                     help="Scale each document's vector to unit length before summing (Rennie et al.)."),
        click.option("--idf/--no-idf", default=False, show_default=True,
                     help="Weigh terms by inverse document frequency, log((1 + n) / (1 + df)) + 1."),
        click.option("--hash-features", metavar="N", callback=_buckets,
                     help="Hash features into N buckets (e.g. 2**20) instead of keeping a vocabulary: memory "
                          "stays bounded however many distinct words the data has, at the cost of collisions, "
                          "and inspect-top-words cannot show words."),
        click.option("--headers", metavar="NAME,...|none", callback=_header_list,
                     help="Mail only: add these headers' words as prefixed tokens (subject_free, "
                          "from_example_com); default " + ",".join(DEFAULT_MAIL_HEADERS) + ", which beat "
                          "both plain text and no headers on SpamAssassin (docs: accuracy). Useful: " + "; ".join(
                              f"{name}: {why}" for name, why in USEFUL_HEADERS.items()) + "."),
    ]
    return functools.reduce(lambda f, d: d(f), reversed(decorators), command)


#: Options fixed when documents are counted: --update keeps the model's.
ANALYZER_OPTIONS = ("analyzer", "ngram_range", "char_ngrams", "tokens", "lowercase", "cjk_bigrams", "stop_words", "tf",
                    "binary", "doc_norm", "headers", "hash_features")


#: The options that set the model's Naive Bayes core and its pruning (the rest of training's).
NB_OPTIONS = ("variant", "alpha", "fit_prior", "norm", "idf", "min_df", "max_df", "max_features")


def given_options(ctx: click.Context) -> set[str]:
    """Names of the options the user typed (not left at their defaults); ``--binary`` sets
    ``tf``, so it counts as that too."""
    given = {name for name in ctx.params if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE}
    return given | {"tf"} if "binary" in given else given


#: Where the old spellings of renamed options and values go, for one release.
RENAMED_IN = "0.3.0"
#: Options the command line gave under an old name, by the new one's parameter name.
_RENAMED = "nbtext.renamed"


def say_renamed(old: str, new: str) -> None:
    """The deprecation line for ``old``, now ``new``: on stderr, once a run."""
    click.echo(f"nbtext: {old} is now {new}; {old} will stop working in nbtext {RENAMED_IN}", err=True)


def renamed(*old_names: str, to: str, flag: str, **kwargs: Any) -> Callable:
    """Hidden options ``old_names`` that set the parameter ``to`` (its option ``flag``) as they
    did before it was renamed, each saying so when used; the new option must take its value
    through ``taking_renamed``."""
    def keep(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value is not None:
            say_renamed(param.opts[0], flag)
            ctx.meta.setdefault(_RENAMED, {})[to] = value

    return click.option(*old_names, f"_{to}_renamed", hidden=True, expose_value=False, callback=keep,
                        is_eager=True, **kwargs)


def taking_renamed(callback: Callable | None = None) -> Callable:
    """The callback of an option that was renamed: the value given under its old name where it
    was not given under the new one; then ``callback``'s."""
    def take(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        given = ctx.meta.get(_RENAMED, {})
        assert param.name is not None
        if param.name in given and ctx.get_parameter_source(param.name) is not ParameterSource.COMMANDLINE:
            value = given[param.name]
        return callback(ctx, param, value) if callback is not None else value

    return take


class Formats(click.Choice):
    """The output formats of a command, by the names every command shares (``FORMATS``), and
    values renamed since, each taken with a deprecation line."""

    def __init__(self, choices: tuple[str, ...], renamed: dict[str, str] | None = None) -> None:
        super().__init__(choices)
        self.renamed = renamed or {}

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value in self.renamed:
            say_renamed(f"--format {value}", f"--format {self.renamed[value]}")
            value = self.renamed[value]
        return super().convert(value, param, ctx)


#: Every output format a command can write: aligned tables for a person, TSV and JSON lines
#: for a pipeline (one record a line), and one JSON document.
FORMATS = {"table": "aligned columns, for reading", "tsv": "tab-separated lines (fields escaped)",
           "json": "one JSON document", "jsonl": "one JSON object a line"}


def format_option(*choices: str, piped: str | None = None, renamed: dict[str, str] | None = None) -> Callable:
    """--format, the first choice by default; with ``piped``, that one by default where stdout
    is not a terminal (a table's aligned columns split badly on the spaces in a bigram)."""
    assert set(choices) <= set(FORMATS)
    kinds = "; ".join(f"{name}: {FORMATS[name]}" for name in choices)
    if piped is None:
        return click.option("--format", "fmt", type=Formats(choices, renamed), default=choices[0], show_default=True,
                            help=f"Output format ({kinds}).")

    def on_terminal_or_piped(ctx: click.Context, param: click.Parameter, value: str | None) -> str:
        if value is not None:
            return value
        return choices[0] if sys.stdout.isatty() else piped

    return click.option("--format", "fmt", type=Formats(choices, renamed), callback=on_terminal_or_piped,
                        help=f"Output format ({kinds}).  [default: {choices[0]} on a terminal, else {piped}]")


def top_option(default: int, what: str, *old_names: str) -> Callable:
    """--top N, "how many" in every command, with its old spellings ``old_names``."""
    def decorate(command: Callable) -> Callable:
        command = click.option("--top", "top", type=click.IntRange(min=1), default=default, show_default=True,
                               metavar="N", callback=taking_renamed(), help=what)(command)
        if old_names:
            command = renamed(*old_names, to="top", flag="--top", type=click.IntRange(min=1))(command)
        return command

    return decorate


def jobs_option(default: int | None, help: str) -> Callable:
    """-j/--jobs N: how many processes do the work; ``help`` says what they do, and why the
    default is what it is."""
    return click.option("-j", "--jobs", type=click.IntRange(1, MAX_PROCESSES), default=default,
                        show_default=default is not None, metavar="N", help=help)


#: A folder is let through, for the loader to say that the model file comes first.
model_argument = click.argument("model_path", metavar="MODEL", type=click.Path())


class FiniteRange(click.FloatRange):
    """A FloatRange that refuses nan, which passes any bound, and inf."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{number} is not a finite number.", param, ctx)  # as click ends its range errors
        return number


class _FileToWrite(click.Path):
    """A file a command writes, its folder checked when the command starts, not after an hour
    of reading; ``-`` is refused with ``dash`` (which says why it is not stdout here)."""

    def __init__(self, dash: str) -> None:
        super().__init__(dir_okay=False)
        self.dash = dash

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        path = os.fsdecode(super().convert(value, param, ctx))
        if path == "-":  # stdout to other tools, but here a file named "-" in the current folder
            self.fail(f"- is not stdout here{self.dash}", param, ctx)
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            self.fail(f"folder {folder} does not exist", param, ctx)
        reason = unsafe_output(path)
        if reason is not None:
            self.fail(f"{path} is {reason}", param, ctx)
        return path


class ExportPath(_FileToWrite):
    """The file export writes."""

    def __init__(self) -> None:
        super().__init__(": without -o, json and csv go to stdout")


class PlotPath(_FileToWrite):
    """The picture eval draws."""

    def __init__(self) -> None:
        super().__init__(", where the report goes: name a picture file (--plot report.svg)")


class ErrorsPath(_FileToWrite):
    """The file eval lists its errors in."""

    def __init__(self) -> None:
        super().__init__(", where the report goes: name a file (--errors wrong.tsv)")


class OutputPath(_FileToWrite):
    """A model file to write."""

    def __init__(self) -> None:
        super().__init__(": a model is written to a file of its own, then moved into place; name the file "
                         "(-o model.joblib)")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        path = super().convert(value, param, ctx)
        folder = os.path.dirname(os.path.abspath(path))
        if not os.access(folder, os.W_OK):
            self.fail(f"folder {folder} is not writable", param, ctx)
        if os.path.exists(path) and not os.path.isfile(path):  # /dev/stdout: the file would replace the device
            self.fail(f"{path} is not a regular file: a model is written to a file of its own, then moved "
                      "into place", param, ctx)
        return path


def nb_options(command: Callable) -> Callable:
    """The Naive Bayes core's options."""
    decorators = [
        click.option("--variant", type=click.Choice(VARIANT_NAMES), default="complement", show_default=True,
                     help="Which Naive Bayes."),
        click.option("--alpha", type=FiniteRange(min=0, min_open=True, max=MAX_ALPHA), default=0.2, show_default=True,
                     help="Additive (Laplace/Lidstone) smoothing."),
        click.option("--fit-prior/--uniform-prior", default=True, show_default=True,
                     help="Learn class priors from the data, or treat classes as equally likely (Multinomial "
                          "and Bernoulli NB; Complement NB does not weigh the priors)."),
        click.option("--norm/--no-norm", default=False,
                     help="Complement NB: normalise the weights per class (Rennie et al.)."),
    ]
    return functools.reduce(lambda f, d: d(f), reversed(decorators), command)


def _probability(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise click.BadParameter("a score is a probability between 0 and 1, e.g. 0.99")
    return value


def cutoff_options(command: Callable) -> Callable:
    """--spam-cutoff and --ham-cutoff (train stores them, filter overrides the stored ones)."""
    decorators = [
        click.option("--spam-cutoff", type=float, callback=_probability, metavar="SCORE",
                     help="Spam at or above this score (default: measured, the lowest, 0.99 or above, at "
                          "which at most --fp-target of the training ham would be lost)."),
        click.option("--ham-cutoff", type=float, callback=_probability, metavar="SCORE",
                     help="Ham below this score, unsure between the cut-offs (default 0.5: unsure is "
                          "'more likely spam, but not sure enough to risk a good message')."),
    ]
    return functools.reduce(lambda f, d: d(f), reversed(decorators), command)


def spam_options(command: Callable) -> Callable:
    """Options of a spam-filter model, at train time."""
    decorators: list[Callable[[Callable], Callable]] = [
        click.option("--spam-label", default=SPAM_LABEL, show_default=True, metavar="LABEL",
                     help="The class that is spam; giving it makes any model a filter, and mail with this "
                          "class is one anyway. A filter's defaults, where not given: --doc-norm l2 --idf "
                          "--min-df 1 --alpha 0.05 (measured better for filtering)."),
        cutoff_options,
        click.option("--fp-target", type=float, default=0.001, show_default=True, callback=_probability,
                     metavar="RATE", help="Share of the training ham that may score above the measured "
                                          "spam cut-off in cross-validation."),
        click.option("--combining", type=click.Choice(COMBINING), default=NB, show_default=True,
                     help="How a message's words make its spam score: nb, the naive Bayes posterior (calibrated); "
                          "chi-square, Robinson's chi-square of the words' spamicities, as bogofilter and "
                          "SpamBayes score (unsure where a message holds spammy and hammy words both)."),
    ]
    return functools.reduce(lambda f, d: d(f), reversed(decorators), command)
