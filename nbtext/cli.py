"""The command layer: parse options, call the library, hand results to render.

Exit codes (see nbtext.errors): 0 success, 1 data or model error (one line on stderr),
2 usage error, 141 when the reader of our output goes away (``| head -1``).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import errno
import functools
import io
import json
import math
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import click

from ._version import __version__
from .analysis import ANALYZERS, TOKENS  # every command that reads text or a model needs the module anyway
from .errors import EXIT_BROKEN_PIPE, EXIT_FILTER_ERROR, DataError, NbtextError, NotLearnedError
from .limits import MAX_ALPHA, MAX_DOCUMENT_BYTES, MAX_PROCESSES
from .phrasing import plural
from .readers import INPUT_FORMATS, LINE_FORMATS, MAIL_FORMATS, ReadReport, documents_of
from .readers.files import is_pipe
from .readers.mail import DEFAULT_MAIL_HEADERS, USEFUL_HEADERS, header_names, mail_headers
from .readers.report import KEPT_EMPTY

VARIANT_NAMES = ("multinomial", "bernoulli", "complement")
#: Writing the output failed: a full disk, a quota, a file size limit, a closed stdout.
_OUTPUT_LOST = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EBADF)
#: The class that makes mail a spam filter's training data unasked (--spam-label's default).
SPAM_LABEL = "spam"


class _Group(click.Group):
    """Turns the library's errors into one clean line and exit status 1."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        try:  # the options are parsed here, and --help and --version answered: click exits 1 on EPIPE
            return super().make_context(info_name, args, parent, **extra)
        except BrokenPipeError:
            _quiet_pipe()

    def invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # a full disk under our output is found here, not at the interpreter's exit
            return result
        except NbtextError as error:
            raise click.ClickException(str(error)) from None
        except BrokenPipeError:
            _quiet_pipe()
        except OSError as error:
            lost = _output_lost(error)
            if lost is None:
                raise
            raise click.ClickException(str(lost)) from None


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """--version: the version, and whether the compiled parts were built (the speed depends on it)."""
    if not value or ctx.resilient_parsing:
        return
    from . import matrices
    from .vectorizing import scanner

    parts = {"word scanner": scanner.wordscan is not None, "scorer": matrices._sparsedot is not None}
    click.echo(f"nbtext, version {__version__}")
    click.echo("compiled " + ", ".join(f"{name}: {'yes' if built else 'no'}" for name, built in parts.items())
               + ("" if all(parts.values()) else " (installed without a C compiler: numpy does that work, "
                                                 "with the same results, more slowly)"))
    ctx.exit()


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version, and whether the compiled parts were built, and exit.")
def cli() -> None:
    """Naive Bayes text classification for the shell.

    Train on a folder with one subfolder per class, evaluate, classify files or lines from
    a pipe, and see which words drive each class.

    \b
    Example:
      nbtext train corpora/support-tickets/train -o tickets.joblib
      nbtext eval tickets.joblib corpora/support-tickets/test
      echo "my invoice is wrong" | nbtext predict tickets.joblib
    """


# --- options shared by several commands ----------------------------------------------------


class ByteSize(click.ParamType):
    """A size in bytes as ``head -c`` and ``split -b`` read one: 64M, 1G and 500K in powers of
    1,024 (so are 64MiB and the like), 64MB in powers of 1,000, or a plain number of bytes."""

    name = "size"
    _UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}

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
    from .readers import check_encoding

    try:
        check_encoding(value)
    except DataError as error:
        raise click.BadParameter(str(error)) from None
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
        ]
    return options


def _columns(text_column, label_column=None, id_column=None, skip_unlabelled=False):
    """A Columns when the user named any column, else None (the formats' own layouts)."""
    from .readers import Columns

    if not (text_column or label_column or id_column or skip_unlabelled):
        return None
    return Columns(text_column or "text", label_column or "label", id_column, skip_unlabelled)


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


def _df(ctx: click.Context, param: click.Parameter, value: str | None) -> int | float | None:
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
                          "them (comp.sys.mac, jo@cs.cmu.edu, 3.1, don't), better for news posts (README). "
                          "marks: every run, and each mark (! $ ?) as a token of its own, as spam filters keep "
                          "them."),
        click.option("--lowercase/--no-lowercase", default=True, show_default=True),
        click.option("--stop-words", metavar="english|FILE",
                     help="Drop these words: scikit-learn's English list, or a UTF-8 file with one word a line "
                          "(lowercased, as the text is, unless --no-lowercase)."),
        click.option("--min-df", default="1", show_default=True, callback=_df,
                     help="Drop terms in fewer documents than this (a count, or a proportion like 0.01)."),
        click.option("--max-df", default="1.0", show_default=True, callback=_df,
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
                          "both plain text and no headers on SpamAssassin (README). Useful: " + "; ".join(
                              f"{name}: {why}" for name, why in USEFUL_HEADERS.items()) + "."),
    ]
    return functools.reduce(lambda f, d: d(f), reversed(decorators), command)


#: Options fixed when documents are counted: --update keeps the model's.
ANALYZER_OPTIONS = ("analyzer", "ngram_range", "char_ngrams", "tokens", "lowercase", "stop_words", "tf", "binary",
                    "doc_norm", "headers", "hash_features")
#: The options that set the model's Naive Bayes core and its pruning (the rest of training's).
NB_OPTIONS = ("variant", "alpha", "fit_prior", "norm", "idf", "min_df", "max_df", "max_features")


def _given_options(ctx: click.Context) -> set[str]:
    """Names of the options the user typed (not left at their defaults); ``--binary`` sets
    ``tf``, so it counts as that too."""
    from click.core import ParameterSource

    given = {name for name in ctx.params if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE}
    return given | {"tf"} if "binary" in given else given


def _each_once(paths: Iterable[str], why: str) -> None:
    """A usage error where a file or folder is given twice, by name or through a link: a slip
    that would count its documents or counts twice, weighing each word of them double."""
    seen: dict[tuple[int, int], str] = {}
    for path in filter(os.path.exists, paths):  # a missing one is told where it is opened
        info = os.stat(path)
        key = (info.st_dev, info.st_ino)
        if key in seen:
            raise click.UsageError(f"{seen[key]} is given twice{f' (again as {path})' if path != seen[key] else ''}: "
                                   f"{why}")
        seen[key] = path


def _not_over_the_data(output: str, data: Iterable[str], option: str = "-o", what: str = "the model") -> None:
    """A usage error where the file to write (``what``, given as ``option``) is one of the DATA
    files, or a document in a DATA folder (below its class folders): `nbtext train data.tsv -o
    data.tsv` replaced the training data with the model, without a word. A new file there
    would be read as a document of its class the next time."""
    exists = os.path.exists(output)
    written = os.path.realpath(output)  # a new file too: its folders are resolved, its name kept
    for path in data:
        if path == "-" or not os.path.exists(path):
            continue
        if exists and os.path.samefile(path, output):
            raise click.UsageError(f"{option} {output} is DATA {path}: {what} would be written over it")
        if os.path.isdir(path):
            inside = os.path.relpath(written, os.path.realpath(path))
            if not inside.startswith(os.pardir + os.sep) and os.sep in inside:
                raise click.UsageError(
                    f"{option} {output} is a document of DATA {path}: {what} would be written over it; write "
                    f"{what} outside the data" if exists else
                    f"{option} {output} is inside class folder {inside.split(os.sep)[0]} of DATA {path}: the next "
                    f"run would read {what} as one of its documents; write {what} outside the data")


def _absolute(paths: tuple[str, ...]) -> list[str]:
    return [p if p == "-" else os.path.abspath(p) for p in paths]


def format_option(*choices: str, piped: str | None = None) -> Callable:
    """--format, the first choice by default; with ``piped``, that one by default where stdout
    is not a terminal (a table's aligned columns split badly on the spaces in a bigram)."""
    if piped is None:
        return click.option("--format", "fmt", type=click.Choice(choices), default=choices[0], show_default=True,
                            help="Output format.")

    def on_terminal_or_piped(ctx: click.Context, param: click.Parameter, value: str | None) -> str:
        if value is not None:
            return value
        return choices[0] if sys.stdout.isatty() else piped

    return click.option("--format", "fmt", type=click.Choice(choices), callback=on_terminal_or_piped,
                        help=f"Output format.  [default: {choices[0]} on a terminal, else {piped}]")


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
        _check_output(path, lambda message: self.fail(message, param, ctx))
        return path


def _check_output(path: str, fail: Callable[[str], Any]) -> None:
    """``fail`` with why ``path`` must not be written, where it must not (``modelfile.unsafe_output``)."""
    from .modelfile import unsafe_output

    reason = unsafe_output(path)
    if reason is not None:
        fail(f"{path} is {reason}")


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


def _print_read_report(report, verbose: bool, encoding: str, *, always: bool = True, empty: str = KEPT_EMPTY) -> None:
    """The read report on stderr; ``empty``: what became of the empty documents (a classifier's
    answer to them). Where it is printed only if it has more to say than ``always`` would,
    before an error, the repeated texts are left out: they explain no error."""
    lines = report.lines(verbose=verbose, encoding=encoding, empty=empty, repeats=always)
    if always or len(lines) > 1:
        click.echo("\n".join(lines), err=True)


def _print_classes(report, folds: int) -> None:
    """The classes read and their sizes, on one line: a search or a cross-validation shows no
    model summary, and a folder given one level too high (parts, or train/ and test/) shows here.
    Then the classes of one document: the fold that tests it trains without it; and those of
    fewer documents than folds, which some folds do not test. Nothing where no document was
    read: the cross-validation says so."""
    from .render import tsv_field

    counts = sorted(report.labels.items())
    if not counts:
        return
    click.echo(f"{len(counts)} {plural(len(counts), 'class')}: "
               + ", ".join(f"{tsv_field(label)} {n:,}" for label, n in counts), err=True)
    single = [tsv_field(label) for label, n in counts if n == 1]
    if single and len(counts) > 1:
        click.echo(f"one document only in {', '.join(single)}: the fold that tests it trains without its class, "
                   "so counts it wrong", err=True)
    few = [(label, n) for label, n in counts if 1 < n < folds]
    if few:
        named = ", ".join(f"{tsv_field(label)} {n:,}" for label, n in few)
        click.echo(f"fewer documents than the {folds} folds in {named}: some folds test none of "
                   f"{'them' if len(few) > 1 else 'it'} (--cv {min(n for _, n in few)} tests every class in every "
                   "fold)", err=True)


@contextlib.contextmanager
def _read_report_before_errors(corpus, verbose: bool, *, empty: str = KEPT_EMPTY) -> Iterator[None]:
    """On an error, first show what was skipped or mended in reading, if anything: "no documents
    to train on" alone hides that the files sat outside any class folder; the report names it."""
    try:
        yield
    except NbtextError:
        _print_read_report(corpus.report, verbose, corpus.encoding, always=False, empty=empty)
        raise


def _read_all(corpus, verbose: bool) -> list:
    """Every document of ``corpus``, with a progress bar of the bytes read on a terminal."""
    from . import render

    with _read_report_before_errors(corpus, verbose), render.progress(corpus.total_bytes, "reading") as advance:
        documents = _held(corpus.read(progress=advance), corpus, None)
        corpus.check_all_read()
        return documents


def _held(reading, corpus, jobs: int | None) -> list:
    """Every document of a corpus being read, held in memory (for cross-validation). Where
    every DATA is a folder of files, the files are read, and their mail parsed (the most of
    the work), by ``jobs`` processes; where every DATA is mbox files or maildirs, the messages
    are read here and parsed there. By default that is every core once the corpus is
    PROCESSES_AFTER_BYTES or more; else, and for other data, all is done here."""
    from .cores import available_cores
    from .batches import BATCH_SIZE, PROCESSES_AFTER_BYTES

    if jobs is None:
        jobs = available_cores() if (corpus.total_bytes or 0) > PROCESSES_AFTER_BYTES else 1
    if jobs == 1 or not corpus.read_apart:
        return list(reading)
    from .parallel import read_in_processes

    return read_in_processes(reading.batches(BATCH_SIZE), jobs, corpus.report)


# --- commands ------------------------------------------------------------------------------


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
    ]
    return functools.reduce(lambda f, d: d(f), reversed(decorators), command)


def _setup(options: dict[str, Any]):
    """(Analyzer, weighting, model settings) from the training options a command was given."""
    from .analysis import Analyzer, load_stop_words
    from .training import default_tokens

    tokens = options["tokens"] or default_tokens(options["analyzer"])
    stop_words = load_stop_words(options["stop_words"], lowercase=options["lowercase"])
    analyzer = Analyzer(analyzer=options["analyzer"], ngram_range=options["ngram_range"],
                        char_ngrams=options["char_ngrams"], tokens=tokens, lowercase=options["lowercase"],
                        stop_words=stop_words, headers=options["headers"] or (), hash_features=options["hash_features"])
    weighting = {"tf": "binary" if options["binary"] else options["tf"],
                 "doc_norm": None if options["doc_norm"] == "none" else options["doc_norm"]}
    settings = {name: options[name] for name in NB_OPTIONS}
    low, high = options["min_df"], options["max_df"]
    if low is not None and high is not None and isinstance(low, int) == isinstance(high, int) and high < low:
        from .counting import DF_CONFLICT

        raise click.UsageError(DF_CONFLICT)  # both counts, or both shares: known before the data is read
    return analyzer, weighting, settings


def _labelled_corpus(data, options: dict[str, Any], analyzer, input_format=None):
    """The corpus of DATA, and ``analyzer`` as it must read it: unless --headers was given, mail
    (by --input-format, or mbox files and maildirs recognised as such) gets the default header
    tokens, the same whichever way it was found to be mail."""
    corpus = _corpus(data, options, analyzer.headers, input_format)
    if options.get("headers") and not corpus.is_mail:  # plain text has no headers: they would be quietly unused
        raise click.UsageError("--headers adds the words of mail headers: read DATA as mail (--input-format email, "
                               "mbox or maildir)")
    headers = mail_headers(options.get("headers"), corpus.is_mail)  # tune has no --headers
    if headers != analyzer.headers:
        analyzer = dataclasses.replace(analyzer, headers=headers)
        corpus.headers = headers
    return corpus, analyzer


def _corpus(data, options: dict[str, Any], headers=(), input_format=None):
    from .readers import LabelledCorpus

    _each_once(data, "its documents would be read twice")
    return LabelledCorpus(data, input_format=options["input_format"] or input_format, encoding=options["encoding"],
                          max_document_bytes=options["max_document_size"],
                          headers=headers, columns=_columns(options["text_column"], options["label_column"],
                                                            options["id_column"], options["skip_unlabelled"]))


def _remembered_format(model, model_path: str, data, given: str | None) -> str | None:
    """The input format DATA are read in: the one given, else the one MODEL was trained on. Mail
    is read by name, so with a model trained on mail, stdin needs its line format said."""
    trained = model.summary.get("input_format")
    if given is None and trained in MAIL_FORMATS and "-" in data:
        raise DataError(f"{model_path} was trained on mail, which is read by name (DIR/<label>/ folders), not from "
                        f"stdin: give --input-format {'|'.join(LINE_FORMATS)} to read labelled lines from stdin")
    return given or trained


def _trained_columns(corpus, data) -> dict[str, str | None] | None:
    """The columns or fields DATA were read by (CSV and JSONL files, or any table given column
    options), kept in the model for eval and predict to read new ones by; None for other data."""
    from .readers import Columns, table_kind

    if corpus.columns is None and not any(table_kind(path) == "records" for path in data):
        return None
    columns = corpus.columns or Columns()
    return {"text": columns.text, "label": columns.label, "id": columns.id}


#: The options that name a table's columns for a labelled reader.
_COLUMN_OPTIONS = ("text_column", "label_column", "id_column")


def _remembered_columns(model, paths, given: dict[str, str | None]) -> dict[str, str | None]:
    """The column options ``given`` (of text_column, label_column, id_column), or where none
    was, those MODEL was trained with, if every path is a CSV or JSONL file to read the same way."""
    from .readers import table_kind

    trained = model.summary.get("columns")
    if any(given.values()) or not trained or not paths or not all(table_kind(path) == "records" for path in paths):
        return given
    return {name: trained[name.removesuffix("_column")] for name in given}


def _note_tables_read_whole(paths) -> None:
    """A table given to predict without a text column is one document, as any file is: say so,
    since classifying its rows was more likely meant."""
    from .readers import table_kind

    for path in paths:
        if table_kind(path) and os.path.isfile(path):
            click.echo(f"{path}: read as one document, as any file is; --text-column NAME classifies its rows "
                       "one by one", err=True)


@cli.command()
@click.argument("data", nargs=-1, required=True)
@click.option("-o", "--output", type=OutputPath(), help="Model file to write.")
@click.option("--update", "update_path", type=click.Path(dir_okay=False), metavar="MODEL",
              help="Add DATA to this model (new words grow its vocabulary); writes back to it unless -o.")
@click.option("--test-split", type=FiniteRange(0, 1, min_open=True, max_open=True), metavar="FRACTION",
              help="Hold out this stratified share of DATA, report accuracy on it, and train on the rest.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of --test-split, and of the folds of --calibrate and of spam filters.")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Count on a Dask cluster: tcp://HOST:8786 (a running scheduler) or local[:N] (N worker "
                   "processes here). Workers read DATA themselves: it must be on a filesystem they all see. "
                   "Folder-per-class data only; needs nbtext[dask].")
@click.option("--calibrate", is_flag=True,
              help="Fit a temperature on 5-fold out-of-fold predictions so that the probabilities can be "
                   "thresholded (of documents given 0.8, about 8 in 10 are right); predictions do not change. "
                   "DATA is held in memory.")
@click.option("-j", "--jobs", type=click.IntRange(1, MAX_PROCESSES), metavar="N",
              help="Count in N processes: this one and N-1 workers, which read folders' files themselves; the "
                   "model is the same bit for bit. Default: one per core, with workers starting only past 64 MB "
                   "of documents, below which one process (with threads for reading and finding tokens) is as "
                   "fast; from the start where Python makes each feature (character n-grams, where the "
                   "compiled scanner was not built).")
@spam_options
@nb_options
@analyzer_options
@input_options
@click.pass_context
def train(ctx, data, output, update_path, test_split, seed, dask_address, calibrate, jobs, spam_label, spam_cutoff,
          ham_cutoff, fp_target, **options) -> None:
    """Train a model on labelled DATA and write it to MODEL.

    DATA is a folder with one subfolder per class (DIR/LABEL/**/FILE, one file per document),
    or a file with one labelled document per line: TSV (LABEL<TAB>TEXT), JSONL
    ({"label": ..., "text": ...}) or fastText (__label__LABEL TEXT); - reads such lines
    from stdin. Several DATA are read in turn.

    With --update MODEL, DATA is added to an existing model: the result equals training on
    the old and the new data at once (the model keeps its analyzer; NB options given here
    replace the model's).

    Spam filters: trained on mail with a class named spam (or any data with --spam-label),
    the model also gets a calibrated spam score and cut-offs for `nbtext filter`, measured
    by 5-fold cross-validation on DATA (the messages are then held in memory).

    \b
    Example:
      nbtext train corpora/support-tickets/train -o tickets.joblib
      nbtext train sms.tsv --variant complement --ngram-range 1,2 -o sms.joblib
      nbtext train --update tickets.joblib new-tickets/
      nbtext train news/ -o news.joblib --calibrate      # probabilities to threshold
      nbtext train crawl/ -o crawl.joblib --jobs 8 --hash-features '2**22'
      nbtext train --input-format email mail/ -o filter.joblib   # mail/spam/*, mail/ham/*
      nbtext train boxes/ -o filter.joblib   # boxes/spam/spam.mbox, boxes/ham/inbox.mbox
      nbtext train /shared/news/ -o news.joblib --dask tcp://scheduler:8786
    """
    from . import render, training
    from .model import Model, trained_texts, with_texts
    from .modelfile import locked

    given = _given_options(ctx)
    analyzer, weighting, settings = _setup(options)
    base = None
    if update_path is None:
        if output is None:
            raise click.UsageError("give the model file to write with -o MODEL (or --update MODEL)")
    else:
        fixed = sorted(given & set(ANALYZER_OPTIONS))
        if fixed:
            raise click.UsageError("--update counts as the model was trained (its analyzer and term weighting); "
                                   f"drop --{fixed[0].replace('_', '-')}")
        if test_split is not None:
            raise click.UsageError("--test-split trains a new model; it does not go with --update")
        if output is None and is_pipe(update_path):  # else it is found after all the reading
            raise click.UsageError(f"--update {update_path}: a pipe, which the updated model cannot be written back "
                                   "to: name the file to write with -o MODEL")
        output = output or update_path
        _check_output(output, lambda message: _usage(f"--update {message}"))
        base = Model.load(update_path)
        settings = {name: value for name, value in settings.items() if name in given}
        analyzer = base.analyzer
        options.update(_remembered_columns(base, data, {name: options[name] for name in _COLUMN_OPTIONS}))
    _not_over_the_data(output, data)
    input_format = options["input_format"] if base is None else \
        _remembered_format(base, update_path, data, options["input_format"])
    if base is None:
        corpus, analyzer = _labelled_corpus(data, options, analyzer, input_format)
    else:  # the model's analyzer, headers and all
        corpus = _corpus(data, options, analyzer.headers, input_format)
    if input_format is None and corpus.is_mail:
        input_format = "email"  # detected mbox files or maildirs: later messages are read as mail too
    summary = {"inputs": _absolute(data), "input_format": input_format, "columns": _trained_columns(corpus, data)}
    if dask_address is not None:
        if base is not None or test_split is not None or "spam_label" in given:
            raise click.UsageError("--dask trains a new plain model: it does not go with --update, --test-split "
                                   "or --spam-label")
    if calibrate and (base is not None or dask_address is not None or test_split is not None or "spam_label" in given):
        raise click.UsageError("--calibrate trains a new plain model: not with --update, --dask or --test-split, "
                               "nor with --spam-label (a filter's score is calibrated already)")
    as_filter = (dask_address is None and base is None and test_split is None and not calibrate
                 and ("spam_label" in given or corpus.is_mail))
    if not as_filter and given & {"spam_cutoff", "ham_cutoff", "fp_target"}:
        raise click.UsageError("--spam-cutoff, --ham-cutoff and --fp-target are for spam filters: add --spam-label")
    if spam_cutoff is not None and ham_cutoff is not None and ham_cutoff > spam_cutoff:  # before a long read
        raise click.UsageError(f"the ham cut-off ({ham_cutoff}) is above the spam cut-off ({spam_cutoff})")
    with _read_report_before_errors(corpus, options["verbose"]), \
         render.progress(corpus.total_bytes, "reading") as advance:
        started = time.perf_counter()
        documents = corpus.read(progress=advance)
        if as_filter:
            documents = _held(documents, corpus, jobs)
            as_filter = "spam_label" in given or _makes_a_filter(corpus, (doc.label for doc in documents), spam_label)
        if dask_address is not None:
            model = _train_on_cluster(dask_address, corpus, analyzer, weighting, settings, summary, advance)
        elif base is not None:
            change = training.counts_for(base, documents, jobs=jobs)
        elif as_filter:
            from .spam import train_filter

            analyzer, filter_options = _filter_options(analyzer, weighting, settings, given)
            model = train_filter(documents, analyzer=analyzer, summary=summary, label=spam_label, seed=seed,
                                 fp_target=fp_target, spam_cutoff=spam_cutoff, ham_cutoff=ham_cutoff,
                                 **filter_options)
        elif calibrate:
            from .training import train_calibrated

            model = train_calibrated(documents, analyzer=analyzer, settings=settings, summary=summary, seed=seed,
                                     **weighting)
        elif test_split is None:
            model = training.train(documents, analyzer=analyzer, settings=settings, summary=summary, jobs=jobs,
                                   **weighting)
        else:
            model, held = _train_held_out(list(documents), corpus.report, test_split, seed, analyzer, weighting,
                                          settings, summary)
        corpus.check_all_read()  # before the model is written: it would lack a DATA named
        seconds = time.perf_counter() - started
    repeats = 0
    if base is not None:
        # Added to the model as it is now, which a learn may have changed while DATA was read;
        # under the lock, so that no other writer's change is lost.
        with contextlib.ExitStack() as held:
            if os.path.realpath(output) == os.path.realpath(update_path):
                held.enter_context(locked(update_path))
                base = Model.load(update_path)
            model = training.with_counts(base, change, settings=settings)
            model.summary["inputs"] = model.summary.get("inputs", []) + summary["inputs"]
            model.texts = with_texts(base.texts, corpus.report.texts)
            repeats = _already_in(base, corpus.report.texts)
            model.save(output)
    else:
        if test_split is None:  # every document read was trained on
            model.texts = trained_texts(corpus.report.texts)
        model.save(output)
    _print_read_report(corpus.report, options["verbose"], corpus.encoding)
    render.train_summary(model, output, seconds)
    if repeats:
        click.echo(_repeats_line(repeats, len(corpus.report.texts), update_path, "documents", "added"), err=True)
    # A misnamed folder (Spam/ beside spam/) would otherwise pass as a new class unnoticed.
    if base is not None and (added := [label for label in model.classes if label not in base.classes]):
        click.echo(f"new {plural(len(added), 'class')} from this update: {', '.join(added)} "
                   f"(the model had {', '.join(base.classes)})", err=True)
        for line in render.label_twins(added, base.classes):
            click.echo(line, err=True)
    if base is not None:
        _note_kept_measurements(model, update_path, "the documents this update adds")
    if test_split is not None:
        held_out = f"{held['n_documents']:,} {plural(held['n_documents'], 'document')}"
        click.echo(f"held-out accuracy {held['accuracy']:.4f}, macro F1 {held['macro_f1']:.4f} on {held_out} "
                   f"({test_split:.0%}, seed {seed}); the model is trained on the rest", err=True)
        if held["seen_in_training"]:
            click.echo(render.held_copies_line(held), err=True)
        if untested := render.untested_classes(model.summary["held_out"]):
            click.echo(untested, err=True)


def _already_in(model, digests) -> int:
    """How many of the documents of these text digests ``model`` holds already (the same text),
    by the digests it keeps of what it was trained on; 0 where it keeps none."""
    import numpy as np

    if model.texts is None or not len(digests):
        return 0
    return int(np.isin(np.asarray(digests, dtype=np.uint64), model.texts).sum())


def _repeats_line(repeats: int, total: int, model_path: str, things: str, verb: str) -> str:
    """What to say where ``repeats`` of the ``total`` documents ``verb`` to a model were in it already."""
    return (f"{repeats:,} of the {total:,} {things} {verb} {'is' if repeats == 1 else 'are'} in {model_path} already "
            f"(the same text): {'it' if repeats == 1 else 'each'} now counts twice, as two documents would")


def _usage(message: str) -> None:
    raise click.UsageError(message)


def _makes_a_filter(corpus, labels: Iterable[str], spam_label: str = SPAM_LABEL) -> bool:
    """Whether nbtext train makes a spam filter of this data unasked: mail with a spam class."""
    return corpus.is_mail and spam_label in labels


def _filter_options(analyzer, weighting: dict[str, Any], settings: dict[str, Any], given: set[str]):
    """(analyzer, train_filter's options) from the training options: a filter has defaults of
    its own, so only what the user typed is passed on."""
    from .spam import FILTER_TOKENS

    if "tokens" not in given:
        analyzer = dataclasses.replace(analyzer, tokens=FILTER_TOKENS)
    return analyzer, {"settings": {k: v for k, v in settings.items() if k in given},
                      **{k: v for k, v in weighting.items() if k in given}}


def _train_on_cluster(address, corpus, analyzer, weighting, settings, summary, advance):
    from .cluster import connect, train_on_cluster

    with connect(address) as client:
        return train_on_cluster(client, corpus, analyzer=analyzer, settings=settings, summary=summary,
                                on_shard=advance, **weighting)


def _train_held_out(documents, read_report, fraction, seed, analyzer, weighting, settings, summary):
    """A model of all but a stratified ``fraction`` of ``documents``, scored on that part; the
    model's texts are the kept documents' digests, which ``read_report`` took as they were read
    (in this process, in order)."""
    import numpy as np

    from .metrics import evaluate, seen_by_text
    from .model import trained_texts
    from .training import train as train_model
    from .folds import held_out

    mask = held_out([doc.label for doc in documents], fraction, seed)
    kept = [doc for doc, out in zip(documents, mask) if not out]
    test = [doc for doc, out in zip(documents, mask) if out]
    model = train_model(kept, analyzer=analyzer, settings=settings, summary=summary, **weighting)
    texts = np.array(read_report.texts, dtype=np.uint64)
    model.texts = trained_texts(texts[~mask])
    y_true, log_proba = [d.label for d in test], model.predict_log_proba([d.text for d in test])
    report = evaluate(y_true, log_proba, model.classes)
    # A held-out document with a copy among the kept ones scores as one the model learnt by heart.
    report.update(seen_by_text(y_true, log_proba, model.classes, texts[mask], model.texts))
    tested = {doc.label for doc in test}
    untested = {label: n for label, n in sorted(collections.Counter(doc.label for doc in documents).items())
                if label not in tested}
    model.summary["held_out"] = {"fraction": fraction, "seed": seed, "accuracy": report["accuracy"],
                                 "macro_f1": report["macro_f1"], "n_documents": report["n_documents"],
                                 "untested": untested, "seen_in_training": report["seen_in_training"],
                                 "unseen_accuracy": report["unseen_accuracy"]}
    return model, report


@cli.command()
@click.argument("models", nargs=-1, required=True, metavar="MODEL...")
@click.option("-o", "--output", required=True, type=OutputPath(), help="Model file to write.")
@click.option("--min-df", callback=_df, help="Prune again after merging (default: the first model's).")
@click.option("--max-df", callback=_df, help="Prune again after merging (default: the first model's).")
@click.option("--max-features", type=click.IntRange(min=1), help="Keep only the most frequent terms.")
def merge(models, output, min_df, max_df, max_features) -> None:
    """Merge models trained on separate parts of the data into one.

    The per-class counts are added, so the result equals one training run over all the data;
    pruning (--min-df, --max-df, --max-features) is applied after the merge, so the
    vocabulary does not depend on how the work was split. The models must share an analyzer.

    \b
    Example:
      nbtext train part1/ -o p1.joblib && nbtext train part2/ -o p2.joblib
      nbtext merge p1.joblib p2.joblib -o all.joblib --min-df 2
    """
    from . import render
    from .model import Model
    from .modelfile import locked
    from .training import merge as merge_models

    settings = {name: value for name, value in
                {"min_df": min_df, "max_df": max_df, "max_features": max_features}.items() if value is not None}
    _each_once(models, "its counts would be added twice")
    started = time.perf_counter()
    with locked(output):  # -o one of the MODELs: no learn may change it between reading and writing
        loaded = [Model.load(path) for path in models]
        merged = merge_models(loaded, settings=settings)
        seconds = time.perf_counter() - started
        merged.save(output)
    render.train_summary(merged, output, seconds, verb="merged")
    only_in: dict[tuple[str, ...], list[str]] = {}
    for label in merged.classes:  # a class folder named Spam/ in one part and spam/ in another, say
        holders = tuple(path for path, model in zip(models, loaded) if label in model.classes)
        if len(holders) < len(models):
            only_in.setdefault(holders, []).append(label)
    if only_in:
        groups = sorted(only_in.items(), key=lambda group: [models.index(path) for path in group[0]])
        click.echo("classes not in every model: " + "; ".join(f"{', '.join(labels)} (only in {', '.join(holders)})"
                                                              for holders, labels in groups), err=True)
        for line in render.label_twins([label for _, labels in groups for label in labels], merged.classes, ""):
            click.echo(line, err=True)
    trained_on: dict[str, str] = {}
    for path, model in zip(models, loaded):
        for data in model.summary.get("inputs", []):
            if data in trained_on and data != "-":  # told, not refused: a folder filled afresh each day is merge's use
                click.echo(f"{path} and {trained_on[data]} were both trained on {data}: if it held the same "
                           "documents both times, they count twice", err=True)
            trained_on.setdefault(data, path)
    #: The first model's settings are the merged model's; pruning given to merge overrides them.
    chosen = {key: value for key, value in loaded[0].settings.items()
              if key not in ("spam", "calibration") and key not in settings}
    for path, model in zip(models[1:], loaded[1:]):
        differ = [key for key, value in chosen.items() if model.settings[key] != value]
        if differ:  # a Multinomial part merged into a Complement one, say: told, as the counts add up fine
            click.echo(f"{path} was trained with {render.describe({key: model.settings[key] for key in differ})}; "
                       f"the merged model has {models[0]}'s {render.describe({key: chosen[key] for key in differ})}",
                       err=True)
    _note_kept_measurements(merged, models[0], "the merged data")


def _note_kept_measurements(model, source: str, data: str) -> None:
    """Say that ``model``'s filter score and cut-offs, or its calibration, are still ``source``'s:
    measured by cross-validation on its documents, which a merge or an update does not have."""
    kept = [what for what, key in (("spam filter's score and cut-offs", "spam"), ("calibration", "calibration"))
            if model.settings[key]]
    if kept:
        verb, them = ("is", "it") if kept == ["calibration"] else ("are", "them")
        click.echo(f"the {' and '.join(kept)} {verb} {source}'s, measured on its documents alone, not on {data}; "
                   f"train on all of it to measure {them} again", err=True)


@cli.command("eval")
@click.argument("args", nargs=-1, required=True, metavar="MODEL DATA... | --cv K DATA...")
@format_option("table", "json")
@click.option("--cv", type=click.IntRange(min=2), metavar="K",
              help="No model: cross-validate the training options below on DATA, stratified K-fold.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the --cv folds.")
@click.option("--errors", "errors_path", type=ErrorsPath(), metavar="FILE",
              help="Also write the documents MODEL labels wrongly to FILE, one a line in input order: "
                   "NAME<TAB>TRUE<TAB>PREDICTED<TAB>P(PREDICTED)<TAB>P(TRUE).")
@click.option("--explain", type=click.IntRange(min=1), metavar="N",
              help="With --errors: end each line with the N words that most raise the wrong label over the "
                   "true one, each with by how much (natural log-odds), as predict --explain does.")
@cutoff_options
@nb_options
@analyzer_options
@input_options
def eval_(args, fmt, cv, seed, errors_path, explain, spam_cutoff, ham_cutoff, **options) -> None:
    """Evaluate MODEL on labelled DATA (read as for train), or with --cv K, the training
    options on DATA by stratified K-fold cross-validation (for mail with a spam class, the
    filter train makes of it, calibration and all).

    Prints accuracy, per-class precision, recall, F1 and support, macro and weighted averages,
    the confusion matrix (rows: true class), the log loss, and how well the top-class
    probability is calibrated (a reliability table and the expected calibration error).
    For a spam filter MODEL, also its verdicts as `nbtext filter` gives them: the ham it
    calls spam, the spam it catches and the messages it leaves unsure, at its cut-offs or at
    --spam-cutoff and --ham-cutoff. Documents scored by a model trained on their very text
    (or with --cv, on a copy of it in another fold) are counted, with the accuracy on the
    others. --format json prints one object with accuracy, macro_f1, log_loss, ece,
    reliability, labels, per_class, confusion_matrix and n_documents (with --cv: the mean and
    standard deviation over the folds), seen_in_training and unseen_accuracy, and for a
    filter, filter. Where texts come under several labels (a copy in each class folder),
    each copy is scored against its own label, and the accuracy that counts an answer right
    for any of its text's labels is given too, over the distinct texts (multi_label_texts,
    distinct_texts, any_label_accuracy; not with --cv, whose folds split the copies).

    \b
    Example:
      nbtext eval tickets.joblib corpora/support-tickets/test
      nbtext eval tickets.joblib corpora/support-tickets/test --format json | jq .accuracy
      nbtext eval --cv 5 --variant complement corpora/support-tickets/train
      nbtext eval filter.joblib held-out-mail/ --spam-cutoff 0.95    # ham lost, spam caught
      nbtext eval tickets.joblib corpora/support-tickets/test --errors wrong.tsv
    """
    from . import render
    from .model import Model

    if cv is not None:
        if spam_cutoff is not None or ham_cutoff is not None:
            raise click.UsageError("--spam-cutoff and --ham-cutoff are for a spam filter MODEL, not for --cv K")
        if errors_path is not None:
            raise click.UsageError("--errors lists what a MODEL labels wrongly; with --cv K there is none")
        return _cross_validate(args, cv, seed, fmt, options)
    if len(args) < 2:
        raise click.UsageError("give MODEL and DATA (or --cv K DATA...)")
    unused = sorted(_given_options(click.get_current_context()) & {*ANALYZER_OPTIONS, *NB_OPTIONS, "seed"})
    if unused:  # they would be quietly unused: a model is scored as it was trained
        raise click.UsageError(f"--{unused[0].replace('_', '-')} is for --cv K: MODEL is scored as it was trained "
                               "(train it again to change that)")
    model_path, data = args[0], args[1:]
    if explain and errors_path is None:
        raise click.UsageError("--explain adds to each line of --errors FILE: give --errors FILE too")
    if errors_path is not None:
        if os.path.exists(errors_path) and os.path.exists(model_path) and os.path.samefile(errors_path, model_path):
            raise click.UsageError(f"--errors {errors_path} is MODEL: the list would be written over it")
        _not_over_the_data(errors_path, data, "--errors", "the list")
    model = Model.load(model_path)
    spam_filter = None
    if model.settings["spam"]:
        from .spam import SpamFilter

        spam_filter = SpamFilter.of(model).with_cutoffs(spam_cutoff, ham_cutoff)
    elif spam_cutoff is not None or ham_cutoff is not None:
        raise click.UsageError(f"--spam-cutoff and --ham-cutoff are for a spam filter; {model_path} is none")
    options.update(_remembered_columns(model, data, {name: options[name] for name in _COLUMN_OPTIONS}))
    input_format = _remembered_format(model, model_path, data, options["input_format"])
    corpus = _corpus(data, options, model.analyzer.headers, input_format)
    with _read_report_before_errors(corpus, options["verbose"], empty=model.empty_answer), \
         render.progress(corpus.total_bytes, "evaluating") as advance:
        errors: list[str] | None = [] if errors_path is not None else None
        report = _evaluate_stream(model, corpus.read(progress=advance), corpus.report, spam_filter, errors,
                                  explain)
        corpus.check_all_read()
    _print_read_report(corpus.report, options["verbose"], corpus.encoding, empty=model.empty_answer)
    if errors is not None:
        _write_errors(errors_path, errors)
    render.eval_report(report, fmt)


def _write_errors(path: str, lines: list[str]) -> None:
    """eval's list of wrongly labelled documents, written once they are all known. A file cut
    short (a full disk) is removed, as compilers remove theirs: a script that goes on to read
    it would take the lines written for the whole list."""
    try:
        out = open(path, "w", encoding="utf-8", errors="surrogateescape")
    except OSError as error:  # not opened, so not cut short either
        raise NbtextError(f"cannot write {path} ({error.strerror or error})") from None
    try:
        with out:
            out.writelines(lines)
    except OSError as error:
        removed = ""
        target = os.path.realpath(path)
        if os.path.isfile(target):  # not a device or a FIFO
            os.unlink(target)
            removed = "; the part written is removed"
        raise NbtextError(f"cannot write {path} ({error.strerror or error}){removed}") from None
    click.echo(f"{len(lines):,} {plural(len(lines), 'document')} labelled wrongly -> {path}", err=True)


def _evaluate_stream(model, documents, read_report, spam_filter=None, errors: list[str] | None = None,
                     explain: int | None = None) -> dict[str, Any]:
    """The evaluation of ``model`` on labelled ``documents``, with ``spam_filter``'s verdicts
    where it is one; the documents in which it knows no word go into ``read_report`` (the
    report of the reading that yields ``documents``, whose digests of their texts tell which
    the model was trained on), and into ``errors`` (where given) a line for each document it
    labels wrongly, with the ``explain`` words that most made it so."""
    import itertools

    import numpy as np

    from .metrics import evaluate, seen_by_text
    from .readers.document import without_known_words

    y_true: list[str] = []
    blocks: list[np.ndarray] = []
    stream = iter(documents)
    while batch := list(itertools.islice(stream, 1000)):
        blocks.append(model.predict_log_proba([doc.text for doc in batch]))
        read_report.no_known_word += without_known_words(batch, model.scored_as_empty(blocks[-1]))
        y_true += [doc.label for doc in batch]
        if errors is not None:
            errors += _wrongly_labelled(model, batch, blocks[-1], explain)
    if not y_true:
        raise NbtextError("no documents to evaluate")
    log_proba = np.vstack(blocks)
    report = evaluate(y_true, log_proba, model.classes)
    if model.texts is not None:  # documents the model was trained on score better than new ones
        # The read report took each document's digest as it was read, here and in order.
        report.update(seen_by_text(y_true, log_proba, model.classes, np.array(read_report.texts, dtype=np.uint64),
                                   model.texts))
    relabelled = read_report.repeated()[1]
    if relabelled:  # a text's copies under its several labels all get one answer: right for one at most
        predicted = np.asarray(model.classes, dtype=object)[np.argmax(log_proba, axis=1)]
        report.update(multi_label_texts=relabelled, **read_report.any_label(predicted))
    if spam_filter is not None:
        report["filter"] = spam_filter.judged(spam_filter.scores_of(log_proba, model.classes),
                                              np.array(y_true) == spam_filter.label)
    return report


def _wrongly_labelled(model, batch, log_proba, explain: int | None = None) -> list[str]:
    """``--errors`` lines for the documents of ``batch`` whose most probable class (the
    confusion matrix's prediction) is not their label: NAME, TRUE, PREDICTED, the probability
    of each, then the ``explain`` words that most raise PREDICTED over TRUE. Where the model
    has no class TRUE, its probability is empty and no word is weighed against it."""
    import numpy as np

    from .render import tsv_field

    column = {label: i for i, label in enumerate(model.classes)}
    best = np.argmax(log_proba, axis=1)
    wrong = [i for i, doc in enumerate(batch) if model.classes[best[i]] != doc.label]
    known = [i for i in wrong if batch[i].label in column]
    why = {}
    if explain and known:
        explained = model.explain([batch[i].text for i in known], explain, log_proba=log_proba[known],
                                  against=[batch[i].label for i in known])
        why = dict(zip(known, explained))
    lines = []
    for i in wrong:
        doc, row, true = batch[i], log_proba[i], column.get(batch[i].label)
        fields = [*map(tsv_field, [_identity(doc), doc.label, model.classes[best[i]]]), f"{np.exp(row[best[i]]):.6f}",
                  "" if true is None else f"{np.exp(row[true]):.6f}"]
        lines.append("\t".join([*fields, *(_explained_fields(why[i]) if i in why else [])]) + "\n")
    return lines


def _cross_validate(data, k: int, seed: int, fmt: str, options: dict[str, Any]) -> None:
    from . import render
    from .tuning import cross_validate

    analyzer, weighting, settings = _setup(options)
    corpus, analyzer = _labelled_corpus(data, options, analyzer)
    documents = _read_all(corpus, options["verbose"])
    _print_read_report(corpus.report, options["verbose"], corpus.encoding)
    _print_classes(corpus.report, k)
    as_filter = _makes_a_filter(corpus, (doc.label for doc in documents))
    if as_filter:
        click.echo("mail with a spam class: each fold is a filter, trained as nbtext train trains one (a filter's "
                   "defaults, and its calibration)", err=True)
    with render.progress(k, "cross-validating", unit="folds") as advance:
        if as_filter:  # train makes such mail a filter: its own defaults, and a calibration
            from .spam import cross_validate_filter

            analyzer, filter_options = _filter_options(analyzer, weighting, settings,
                                                       _given_options(click.get_current_context()))
            trial = cross_validate_filter(documents, k=k, seed=seed, analyzer=analyzer, progress=advance,
                                          **filter_options)
        else:  # the whole analyzer (n-grams, tokens, headers, hashing) is the base; the candidate adds the rest
            trial = cross_validate(documents, [{**settings, **weighting}], k=k, seed=seed, base_analyzer=analyzer,
                                   progress=advance)[0]
    # The read report took each document's digest as it was read, in order.
    render.cv_report({**trial.summary(), **trial.on_copies(corpus.report.texts)}, fmt, k=k, seed=seed)
    if trial.termless_folds:
        click.echo(f"{trial.termless_folds} of {k} folds had no term left to train on (every one pruned, or no "
                   "words): they answered with the class priors alone, and train refuses such a model", err=True)


@cli.command()
@click.argument("data", nargs=-1, required=True)
@click.option("-o", "--output", required=True, type=OutputPath(), help="Best model, trained on all DATA.")
@click.option("--cv", type=click.IntRange(min=2), default=3, show_default=True,  # tuning.DEFAULT_FOLDS, unimported
              help="Folds of the search.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the folds.")
@click.option("--grid", metavar="JSON|FILE",
              help='Settings to search, as JSON or a JSON file: {"alpha": [0.1, 1], "variant": ["complement"]}. '
                   "Keys: variant, alpha, analyzer, ngram_range, char_ngrams, tokens, tf, doc_norm, idf, norm, "
                   "min_df, max_df, fit_prior (as train's options: true or false for a flag, [1, 2] for a range).")
@click.option("--metric", type=click.Choice(["accuracy", "macro_f1"]), default="accuracy", show_default=True)
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True, help="Leaderboard rows shown.")
@format_option("table", "tsv", "json", piped="tsv")
@input_options
def tune(data, output, cv, seed, grid, metric, top, fmt, **options) -> None:
    """Search settings by cross-validation, show a leaderboard, save the best model.

    Every combination of the grid is scored by stratified K-fold cross-validation (documents
    are analyzed and counted once per analyzer, every weighting's sums in one pass). The best
    setting is then trained on all of DATA and written to MODEL, and stderr's last line is
    the nbtext train command that makes the same model, every option spelled out. Settings a
    --grid leaves out are train's defaults: {"alpha": [0.1, 1]} tries two alphas for the model
    nbtext train would make. The default grid covers variant x alpha x Rennie's transforms x
    min_df on uni+bigrams of words of two or more letters (128 settings), the search README's
    tuned figures measure; "tokens": ["words", "all-words"] in --grid also tries train's
    default tokens, which keep one-letter words. The same --seed gives the same result.

    \b
    Example:
      nbtext tune corpora/support-tickets/train -o best.joblib
      nbtext tune sms.tsv -o best.joblib --grid '{"alpha": [0.1, 0.3], "variant": ["complement"]}'
      nbtext tune reviews/ -o best.joblib --grid '{"char_ngrams": [null, [2, 5]], "alpha": [0.3, 1]}'
      nbtext tune corpora/support-tickets/train -o best.joblib --format json | jq -r '.[0].options'
    """
    from . import render
    from .model import trained_texts
    from .training import DEFAULT_ANALYZER
    from .tuning import cross_validate, expand, rank, train_setting

    candidates = expand(_grid(grid))
    _not_over_the_data(output, data)
    corpus, base = _labelled_corpus(data, options, DEFAULT_ANALYZER)  # mail: the header tokens train adds
    documents = _read_all(corpus, options["verbose"])
    _print_read_report(corpus.report, options["verbose"], corpus.encoding)
    _print_classes(corpus.report, cv)
    with render.progress(len(candidates) * cv, "tuning", unit="fits") as advance:
        trials = cross_validate(documents, candidates, k=cv, seed=seed, base_analyzer=base, metric=metric,
                                progress=advance)
    trials = rank(trials)
    model = train_setting(documents, trials[0].settings, base_analyzer=base,
                          summary={"inputs": _absolute(data), "input_format": options["input_format"],
                                   "columns": _trained_columns(corpus, data),
                                   "tuned": {"cv": cv, "seed": seed, metric: trials[0].mean, "std": trials[0].std}})
    model.texts = trained_texts(corpus.report.texts)
    model.save(output)  # before anything is printed: `| head -1` closes stdout, and the search is not lost
    render.leaderboard(trials[:top], metric, fmt, total=len(trials))
    termless = [trial for trial in trials if trial.termless_folds]
    if termless:
        click.echo(f"{len(termless)} of {len(trials)} settings had no term left to train on in some fold (every one "
                   f"pruned, or no words) and answered there with the class priors alone; the best of them: "
                   f"{render.describe(termless[0].settings)}", err=True)
    click.echo(f"best {metric} {trials[0].mean:.4f} ± {trials[0].std:.4f} -> {output}", err=True)
    copies = trials[0].on_copies(corpus.report.texts)
    if copies["seen_in_training"]:  # they flatter every setting, most those that learn a text by heart
        click.echo(f"best setting: {render.copies_line(copies)}", err=True)
    # Every setting spelled out: a filter's defaults are not a plain model's, and the line
    # stays right should train's defaults change.
    command = f"nbtext train DATA {render.describe(render.train_options(model))}"
    if _makes_a_filter(corpus, model.classes):
        click.echo(f"{output} is a plain model, not a spam filter (no calibration, no cut-offs); for nbtext filter, "
                   f"train one with these settings: {command} -o filter.joblib", err=True)
    else:
        click.echo(f"the same model: {command} -o MODEL", err=True)


def _grid(spec: str | None) -> dict[str, list[Any]]:
    from .tuning import read_grid

    try:
        return read_grid(spec)
    except DataError as error:
        raise click.BadParameter(str(error), param_hint="--grid") from None


@cli.command()
@model_argument
@click.argument("paths", nargs=-1, metavar="[PATH...|-]")
@click.option("--proba", is_flag=True, help="Also print the probability of each printed label (for a spam "
              "filter, the calibrated score nbtext filter gives).")
@click.option("--top-k", type=click.IntRange(min=1), default=1, show_default=True,
              help="Print the K most probable labels, best first.")
@click.option("--explain", type=click.IntRange(min=1), metavar="N",
              help="Also print the runner-up label and the N words of each document that most raise "
                   "its label over the runner-up, each with by how much (natural log-odds).")
@format_option("tsv", "jsonl")
@encoding_option("Encoding of the documents.")
@size_option
@click.option("--input-format", type=click.Choice(["folder", "csv", *MAIL_FORMATS]),
              help="Read files as mail (email), or as mbox files or maildirs (default: as the model "
                   "was trained; mbox files and maildirs are recognised anyway); csv reads the rows of a "
                   "table named by --text-column with CSV quoting, a .tsv's too.")
@click.option("-v", "--verbose", is_flag=True, help="Name every replaced, empty or skipped entry.")
@column_options(labelled=False)[0]
@column_options(labelled=False)[1]
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Score files and folders on a Dask cluster (tcp://HOST:8786, or local[:N]); the workers "
                   "must see the paths. Needs nbtext[dask].")
@click.option("-j", "--jobs", type=click.IntRange(1, MAX_PROCESSES), default=1, show_default=True, metavar="N",
              help="Score in N processes, for batch jobs: answers still come in input order, but in blocks "
                   "of about 1,000 documents, so a line that trickles in on stdin waits for its block. With 1, "
                   "a large batch is still scored on every core, by threads.")
def predict(model_path, paths, proba, top_k, explain, fmt, encoding, max_document_size, input_format, verbose,
            text_column, id_column, dask_address, jobs) -> None:
    """Classify documents with MODEL, one output line per document, in input order.

    A PATH that is a file is one document; a folder is walked. With - or no PATH, each line
    of stdin is one document (for a model trained on mail, stdin is one message, or each
    message of an mbox). Lines are PATH<TAB>LABEL for files and LABEL for stdin lines;
    --proba adds each label's probability, --top-k the next best labels (a backslash, tab,
    newline or carriage return in a name is written \\\\, \\t, \\n or \\r; printf %b turns
    it back). Answers stream: a line of stdin is answered as soon as it has been read, files
    256 at a time; going to a file or a pipe, they are counted on stderr when that is a
    terminal. After them, stderr counts the documents that were empty, skipped, decoded with
    replacement, or without a word the model knows (-v names them). --explain N ends each
    line with the runner-up label and the N words that most raise the label over it:
    WORD<TAB>WEIGHT pairs, weightiest first.

    \b
    Example:
      nbtext predict tickets.joblib inbox/
      cat messages.txt | nbtext predict tickets.joblib --proba --top-k 2
      echo "my parcel never arrived" | nbtext predict tickets.joblib --explain 3
      nbtext predict news.joblib /shared/crawl/ --jobs 8 > labels.tsv
      nbtext predict news.joblib /shared/crawl/ --dask tcp://scheduler:8786 > labels.tsv
    """
    from .model import Model
    from .readers import iter_unlabelled

    model = Model.load(model_path)
    k = min(top_k, len(model.classes))
    if k < top_k:  # fewer labels a line than asked for, said once rather than left to puzzle a script
        click.echo(f"--top-k {top_k}: the model has {k} classes, so each answer gives all {k}", err=True)
    report = ReadReport()
    input_format = input_format or _trained_format(model)
    named = _remembered_columns(model, paths, {"text_column": text_column, "id_column": id_column})
    text_column, id_column = named["text_column"], named["id_column"]
    columns = _columns(text_column, None, id_column)
    if columns is None:
        _note_tables_read_whole(paths)
    if dask_address:
        from .cluster import connect, predict_on_cluster

        if columns is not None:
            raise click.UsageError("--dask scores document files and folders, not table columns")
        format_batch = functools.partial(_format_batch, from_stdin=False, k=k, proba=proba, explain=explain, fmt=fmt)
        with connect(dask_address) as client:
            _write_answers(predict_on_cluster(client, model, paths, report, mail=input_format in MAIL_FORMATS,
                                              encoding=encoding, format_batch=format_batch,
                                              limit=max_document_size), "documents", report)
    else:
        if "-" in (paths or ["-"]) and sys.stdin is not None and sys.stdin.isatty():  # not left waiting unsaid
            hint = ("reading one message from the terminal; Ctrl-D ends" if input_format == "email"  # as filter
                    else "reading documents from the terminal, one a line; Ctrl-D ends")
            click.echo(hint, err=True)
        # With workers, they parse the mail too: parsing is most of the work of reading it. Only
        # where every document is mail, so that what they saw merges into the report in order.
        unparsed = jobs > 1 and input_format in MAIL_FORMATS and columns is None
        batches = iter_unlabelled(paths, report, encoding=encoding, input_format=input_format,
                                  max_document_bytes=max_document_size,
                                  headers=model.analyzer.headers, columns=columns, unparsed_mail=unparsed)
        format_batch = functools.partial(_format_batch, k=k, proba=proba, explain=explain, fmt=fmt)
        with contextlib.ExitStack() as stack:
            if jobs > 1:
                from .parallel import map_in_processes

                # Workers load the model themselves: the file is memory-mapped, so they share its pages.
                load = functools.partial(_load_one_thread, stack.enter_context(_path_for_workers(model, model_path)))
                answers = map_in_processes(format_batch, load, _blocks(batches, _BLOCK_DOCUMENTS), jobs)
            else:
                answers = (format_batch(model, batch, from_stdin) for batch, from_stdin in batches)
            with contextlib.closing(answers):  # on a closed pipe, stop the workers before exiting
                _write_answers(answers, "documents", report)
    _print_read_report(report, verbose, encoding, always=False, empty=model.empty_answer)
    report.check_all_read()  # a file named that was skipped: an error, once the others are answered


def _write_answers(answers: Iterable[tuple[str, ReadReport]], unit: str, report: ReadReport) -> None:
    """Write each block of answers to stdout as soon as it comes, and count them (one line a
    document) on a terminal's stderr while stdout goes to a file or a pipe. Each block comes
    with what its scorer saw, for ``report``: the documents in which the model knows no word,
    and what it read where it parsed them (a worker's mail)."""
    from . import render

    with render.progress(None, "scoring", unit=unit, beside_answers=True) as advance:
        for text, seen in answers:
            sys.stdout.write(text)
            sys.stdout.flush()
            advance(text.count("\n"))
            report.update(seen)


@contextlib.contextmanager
def _path_for_workers(model, model_path: str) -> Iterator[str]:
    """Where worker processes load ``model`` from: its file, or for a model that came through a
    pipe (read once, by a number only this process has), a copy in a temporary folder."""
    if not is_pipe(model_path):
        yield os.path.abspath(model_path)
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="nbtext-") as folder:
        model.save(os.path.join(folder, "model.joblib"))
        yield os.path.join(folder, "model.joblib")


def _load_one_thread(path: str):
    """The model for a worker process: the processes share the cores, so each scores in one thread."""
    from .model import Model

    model = Model.load(path)
    model.threads = 1
    return model


def _trained_format(model) -> str | None:
    """How to read new documents for ``model``: ``email`` when it was trained on mail (mbox
    files and maildirs are recognised anyway), else by their own form."""
    return "email" if model.summary.get("input_format") in MAIL_FORMATS else None


#: Documents per block handed to a scoring process: enough that sending it costs little.
_BLOCK_DOCUMENTS = 1000


def _blocks(batches: Iterable[tuple[Any, bool]], size: int) -> Iterator[tuple[Any, bool]]:
    """The same documents as ``batches`` of (documents or MailBatch, from_stdin), in blocks of
    at least ``size`` documents (or what is left), never mixing stdin lines with files, nor
    mail to parse with documents read. An input error comes after the block read before it."""
    from .readers import MailBatch

    block: list = []
    kind: tuple = ()  # (from_stdin, the MailBatch's headers or None) of the block

    def made() -> tuple[Any, bool]:
        from_stdin, headers = kind
        return (block if headers is None else MailBatch(block, headers)), from_stdin

    try:
        for batch, from_stdin in batches:
            mail = isinstance(batch, MailBatch)
            if block and kind != (from_stdin, batch.headers if mail else None):
                yield made()
                block = []
            block += batch.messages if mail else batch
            kind = (from_stdin, batch.headers if mail else None)
            if len(block) >= size:
                yield made()
                block = []
    except NbtextError:
        if block:
            yield made()
        raise
    if block:
        yield made()


#: A surrogate escape: a byte of a file name that is not valid UTF-8.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _format_batch(model, batch, from_stdin: bool, *, k: int, proba: bool, fmt: str,
                  explain: int | None = None) -> tuple[str, ReadReport]:
    """predict's output lines for one batch of documents (or a MailBatch, parsed here), and
    what was seen: the documents in which the model knows no word, and what was parsed."""
    import numpy as np

    from .readers.document import without_known_words
    from .render import tsv_field

    batch, seen = documents_of(batch)
    if not batch:
        return "", seen
    classes = model.classes if fmt == "jsonl" else [tsv_field(label) for label in model.classes]
    texts = [doc.text for doc in batch]
    log_proba = model.predict_log_proba(texts)
    best = np.argsort(-log_proba, axis=1, kind="stable")[:, :k]
    why = model.explain(texts, explain, log_proba=log_proba) if explain else None
    lines = []
    for d, (doc, row, order) in enumerate(zip(batch, log_proba, best)):
        top = [(classes[i], float(np.exp(row[i]))) for i in order]
        if fmt == "jsonl":
            record: dict[str, Any] = {"line": int(doc.source.rsplit(":", 1)[1])} if from_stdin else {"path": doc.source}
            if doc.message_id:
                record["message_id"] = doc.message_id
            record["label"] = top[0][0]
            if proba:
                record["proba"] = top[0][1]
            if k > 1:
                record["top"] = [{"label": c, "proba": p} if proba else {"label": c} for c, p in top]
            if why:
                record["against"] = why[d].against
                record["explain"] = [{"term": term, "weight": weight} for term, weight in why[d].terms]
            line = json.dumps(record, ensure_ascii=False)
            if not line.isascii() and _SURROGATE.search(line):  # a name not valid UTF-8: JSON escapes it
                line = json.dumps(record)
            lines.append(line)
        else:
            fields = [] if from_stdin else [tsv_field(_identity(doc))]
            for label, p in top:
                fields += [label, f"{p:.6f}"] if proba else [label]
            if why:
                fields += [tsv_field(why[d].against), *_explained_fields(why[d])]
            lines.append("\t".join(fields))
    seen.no_known_word = without_known_words(batch, model.scored_as_empty(log_proba))
    return "\n".join(lines) + "\n", seen


def _identity(doc) -> str:
    """A document's name in predict output: its path (a maildir's message's too), and for a
    message in an mbox ``PATH:INDEX`` followed by its Message-ID where it has one."""
    if doc.message_id and ":" in doc.source and not os.path.exists(doc.source):
        return f"{doc.source} {doc.message_id}"
    return doc.source


class _FilterCommand(click.Command):
    """bogofilter's exit statuses: 2 means unsure, so every error, usage errors too, exits 3."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.ClickException as error:
            raise _filter_error(error)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # a full disk is an error of the filter's own (3), found before the group's flush
            return result
        except BrokenPipeError:  # `| head`: quietly, as SIGPIPE ends bogofilter, not an error (3) to fix
            _quiet_pipe()
        except (NbtextError, OSError) as error:
            if isinstance(error, OSError):
                error = _output_lost(error) or error
            raise _filter_error(click.ClickException(str(error))) from None
        except click.ClickException as error:
            raise _filter_error(error)
        except (click.exceptions.Exit, click.exceptions.Abort):  # the verdict's exit status; Ctrl-C
            raise
        except Exception:  # a bug: its traceback is shown, but a mail rule must read 3 (error), not 1 (ham)
            import traceback

            traceback.print_exc()
            raise click.exceptions.Exit(EXIT_FILTER_ERROR) from None


def _filter_error(error: click.ClickException) -> click.ClickException:
    """``error`` with the filter's exit status for errors."""
    error.exit_code = EXIT_FILTER_ERROR
    return error


@cli.command("filter", cls=_FilterCommand)
@model_argument
@click.argument("source", default="-", metavar="[MESSAGE|MBOX|MAILDIR|FOLDER|-]")
@click.option("-p", "--passthrough", is_flag=True,
              help="One message: write it to stdout unchanged, with an X-Nbtext-Status header added at the "
                   "end of its header block (on an error, unchanged, exit 3).")
@click.option("-e", "--exit-zero", is_flag=True,
              help="One message: exit 0 whatever the verdict (errors still exit 3), as procmail 'fw' "
                   "recipes with --passthrough and shell scripts under 'set -e' need.")
@click.option("-q", "--quiet", is_flag=True, help="One message: print nothing; the exit status is the verdict.")
@click.option("--explain", type=click.IntRange(min=1), metavar="N",
              help="Add to each line the N words of the message that most raise its score (a score of 0.5 or "
                   "more) or lower it (below 0.5), each with by how much (natural log-odds); with "
                   "--passthrough, as an X-Nbtext-Words header.")
@cutoff_options
@size_option
@click.option("-v", "--verbose", is_flag=True, help="Name every replaced, empty or skipped entry.")
@click.option("-j", "--jobs", type=click.IntRange(1, MAX_PROCESSES), default=1, show_default=True, metavar="N",
              help="Many messages: read and score them in N processes, for nightly batch jobs; the lines "
                   "still come in order, in blocks of about 1,000 messages.")
def filter_(model_path, source, passthrough, exit_zero, quiet, explain, spam_cutoff, ham_cutoff, max_document_size,
            verbose, jobs) -> None:
    """Classify mail as Spam, Ham or Unsure with a filter MODEL, as bogofilter does.

    One message (a file, or stdin): exit status 0 spam, 1 ham, 2 unsure, 3 error, so
    procmail and maildrop rules written for bogofilter work unchanged; a line
    VERDICT<TAB>SCORE is printed (PATH<TAB>VERDICT<TAB>SCORE for a file) unless --quiet or
    --passthrough. Many messages (an mbox, a maildir, a folder of message files): one line
    each, IDENTITY<TAB>VERDICT<TAB>SCORE, in order and as they are read; exit 0. An mbox of
    several messages on stdin is refused (exit 3), not given one verdict: give its path. A
    backslash, tab, newline or carriage return in a path is written \\\\, \\t, \\n or \\r, so
    that a line is one message (printf %b turns the path back).

    A message is Spam when its score is at or above the spam cut-off, Ham below the ham
    cut-off, and Unsure between them; the model's cut-offs apply unless given here. The
    score is the model's probability that the message is spam, calibrated on the training
    data by cross-validation: of messages scored 0.9, about nine in ten were spam.

    \b
    Example:
      nbtext filter filter.joblib message.eml; echo $?
      nbtext filter --passthrough --exit-zero filter.joblib < message.eml
      nbtext filter filter.joblib ~/Maildir | awk -F'\\t' '$2 == "Spam"'
      nbtext filter filter.joblib archive.mbox --jobs 4 > verdicts.tsv
      nbtext filter filter.joblib missed.eml --explain 10
    """
    import numpy as np

    from .model import Model
    from .phrasing import size_text
    from .readers import Document, iter_unlabelled, standard_input
    from .readers.decoding import WIDE_HEAD, decode_file
    from .readers.document import without_known_words
    from .readers.filekinds import decompressed, file_not_text, stream_not_text
    from .readers.mail import read_message
    from .readers.mailboxes import holds_mbox_messages, is_mbox
    from .readers.report import TooLarge
    from .render import tsv_field
    from .spam import VERDICTS, SpamFilter
    from .mailheaders import insert_header, status_header, words_header

    stream = "stdin" if source == "-" else source if is_pipe(source) else None  # read once, so one message
    single = stream is not None or (os.path.isfile(source) and not is_mbox(source))
    raw = None
    opened = contextlib.ExitStack()
    rest = None  # where a message larger than the cap goes on: no more of it is read, unless passed through
    if single:
        if source == "-":
            handle = standard_input()
            if handle.isatty():
                click.echo("reading one message from the terminal; Ctrl-D ends", err=True)
        else:
            handle = opened.enter_context(open(source, "rb"))
        raw = handle.read(max_document_size + 1)
        if len(raw) > max_document_size:
            rest = handle
        elif stream is None:
            try:
                inner = decompressed(raw, max_document_size)  # as a mail server may keep it: see read_listed
            except TooLarge:
                inner, rest = None, handle
            if inner is not None:  # a compressed mbox gives a line a message, as one read as a file does
                raw = None if holds_mbox_messages(inner) else inner
    try:
        if explain and quiet:
            raise click.UsageError("--explain adds words to the verdict line, which --quiet does not print")
        if rest is not None:
            raise DataError(f"{'<stdin>' if source == '-' else source}: a message of more than "
                            f"{size_text(max_document_size)}, the most one document may be (--max-document-size)")
        if stream is not None and raw is not None and holds_mbox_messages(raw):  # before the model loads for nothing
            # one verdict, one exit status, for many messages would be no message's verdict
            raise DataError(f"{stream} holds several mbox messages, and the filter gives {stream} one verdict: give "
                            "the mbox as a file (nbtext filter MODEL BOX.mbox) for a line each")
        kind = None if raw is None else stream_not_text(raw) if stream else file_not_text(raw[:WIDE_HEAD], source)
        if kind is not None:  # a program, a PDF, a Word document: no mail
            raise DataError(f"{'<stdin>' if source == '-' else source}: not text ({kind}), so no message to filter")
        model = Model.load(model_path)
        spam_filter = SpamFilter.of(model).with_cutoffs(spam_cutoff, ham_cutoff)
        trained_format = _trained_format(model)
        report = ReadReport()
        if raw is not None:  # one message, read above
            if trained_format:
                doc = read_message(raw, source, None, report, model.analyzer.headers)
            else:
                doc_text, replaced = decode_file(raw, "utf-8")[:2]
                doc = report.add(Document(doc_text, None, source), replaced=replaced)
            log_proba = model.predict_log_proba([doc.text])
            report.no_known_word = without_known_words([doc], model.scored_as_empty(log_proba))
            score = float(spam_filter.scores_of(log_proba, model.classes)[0])
            verdict = int(spam_filter.verdicts(np.array([score]))[0])
            why = model.explain([doc.text], explain, log_proba=log_proba)[0] if explain else None
            if passthrough:  # made in here too: whatever goes wrong, the message goes on
                passed = insert_header(raw, status_header(verdict, score))
                if why is not None:
                    passed = insert_header(passed, words_header(why))
    except Exception:  # an error, or a bug in reading this message: either way it must not be lost
        if passthrough and raw is not None:
            sys.stdout.buffer.write(raw)  # nothing lost: the message goes on unchanged
            if rest is not None:  # and the part of it past the cap, as it comes
                shutil.copyfileobj(rest, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        raise
    finally:
        opened.close()
    if raw is not None:
        if passthrough:
            sys.stdout.buffer.write(passed)
            sys.stdout.buffer.flush()
        elif not quiet:
            fields = [] if source == "-" else [tsv_field(source)]
            words = _explained_fields(why) if why is not None else []
            click.echo("\t".join([*fields, VERDICTS[verdict], f"{score:.6f}", *words]))
        _print_filter_report(report, spam_filter, model, verbose)  # an empty message, say: why its verdict
        ctx = click.get_current_context()
        ctx.exit(0 if exit_zero else verdict)
    if passthrough:
        raise click.UsageError("--passthrough is for one message (a file or stdin)")
    batches = iter_unlabelled([source], report, input_format=trained_format, headers=model.analyzer.headers,
                              max_document_bytes=max_document_size,
                              unparsed_mail=jobs > 1 and trained_format in MAIL_FORMATS)
    with contextlib.ExitStack() as stack:
        if jobs > 1:
            from .parallel import map_in_processes

            load = functools.partial(_filter_of, stack.enter_context(_path_for_workers(model, model_path)),
                                     spam_cutoff, ham_cutoff)
            answers = map_in_processes(functools.partial(_filter_batch, explain=explain), load,
                                       _blocks(batches, _BLOCK_DOCUMENTS), jobs)
        else:
            answers = (_filter_batch((model, spam_filter), batch, from_stdin, explain=explain)
                       for batch, from_stdin in batches)
        with contextlib.closing(answers):  # on a closed pipe, stop the workers before exiting
            _write_answers(answers, "messages", report)
    _print_filter_report(report, spam_filter, model, verbose)
    report.check_all_read()


def _print_filter_report(report, spam_filter, model, verbose: bool) -> None:
    """filter's read report, where it has more to say than how many messages were read: the
    messages that were empty or had no word the model knows, and what the filter made of them."""
    empty = ""
    if report.empty or report.no_known_word:  # what the filter makes of a message with no words, its way
        empty = spam_filter.empty_answer(model)
    _print_read_report(report, verbose, "utf-8", always=False, empty=empty)


def _filter_of(path: str, spam_cutoff: float | None, ham_cutoff: float | None):
    """The model and its spam filter at the cut-offs given, for a worker process."""
    from .spam import SpamFilter

    model = _load_one_thread(path)
    return model, SpamFilter.of(model).with_cutoffs(spam_cutoff, ham_cutoff)


def _filter_batch(state, batch, from_stdin: bool, explain: int | None = None) -> tuple[str, ReadReport]:
    """filter's lines for one batch of messages (or a MailBatch, parsed here), IDENTITY<TAB>VERDICT
    <TAB>SCORE (and the words that explain it), and what was seen: the messages in which the
    model knows no word, what was parsed."""
    from .readers.document import without_known_words
    from .render import tsv_field
    from .spam import VERDICTS

    model, spam_filter = state
    batch, seen = documents_of(batch)
    if not batch:
        return "", seen
    texts = [doc.text for doc in batch]
    log_proba = model.predict_log_proba(texts)
    scores = spam_filter.scores_of(log_proba, model.classes)
    seen.no_known_word = without_known_words(batch, model.scored_as_empty(log_proba))
    why = model.explain(texts, explain, log_proba=log_proba) if explain else None
    return "".join("\t".join([tsv_field(_identity(doc)), VERDICTS[v], f"{s:.6f}",
                              *(_explained_fields(why[d]) if why else [])]) + "\n"
                   for d, (doc, v, s) in enumerate(zip(batch, spam_filter.verdicts(scores), scores))), seen


def _explained_fields(explanation) -> list[str]:
    """An explanation's words and weights as TSV fields: WORD, WEIGHT, WORD, WEIGHT..."""
    from .render import tsv_field

    return [field for term, weight in explanation.terms for field in (tsv_field(term), f"{weight:.6f}")]


@cli.command(context_settings={"ignore_unknown_options": True})
@model_argument
@click.argument("items", nargs=-1, required=True, metavar="--spam|--ham PATH...")
@click.option("--unlearn", is_flag=True, help="Remove these messages, learned before with the same label, exactly.")
@size_option
@click.option("-v", "--verbose", is_flag=True, help="Name every replaced, empty or skipped entry.")
def learn(model_path, items, unlearn, max_document_size, verbose) -> None:
    """Teach a filter MODEL from corrections: add messages as spam or ham, or take them back.

    Each PATH after --spam is learned as spam, after --ham as ham: a message file, an mbox,
    a maildir or a folder of message files. New words grow the vocabulary; the cut-offs stay.
    --unlearn removes a registration exactly (the counts return to what they were). As with
    bogofilter, the model keeps counts, not the messages: a message learned twice counts
    twice, so unlearn a wrong registration before learning its correction. Folders with no
    message in them (a quiet night's .Junk/new) leave the model as it is, with exit status
    0; a PATH whose every entry is skipped is an error.
    The model is rewritten atomically under a lock (a hidden file beside it,
    .filter.joblib.lock), so several learn processes can run at once without losing an
    update.

    \b
    Example:
      nbtext learn filter.joblib --spam missed-spam.eml --ham ~/Maildir/.False-Positives
      nbtext learn filter.joblib --unlearn --spam wrongly-learned.eml
    """
    from .model import Model, with_texts
    from .modelfile import folder_given, locked
    from .readers import iter_unlabelled
    from .readers.document import text_digest
    from .spam import SpamFilter
    from .training import update

    if is_pipe(model_path):
        raise NbtextError(f"{model_path}: a pipe; learn rewrites the model it teaches, so it takes the model file")
    if model_path in ("--spam", "--ham"):
        raise click.UsageError("the model file comes first: nbtext learn MODEL --spam|--ham PATH...")
    if os.path.isdir(model_path):  # checked here, as the lock is taken before the model is loaded
        raise folder_given(model_path, "the model file comes first, then --spam|--ham PATH...")
    if not os.path.isfile(model_path):
        raise NbtextError(f"{model_path}: no such model file")
    groups: dict[str, list[str]] = {}
    current = None
    for item in items:
        if item in ("--spam", "--ham"):
            current = item[2:]
            groups.setdefault(current, [])
        elif item.startswith("--") or current is None:
            raise click.UsageError(f"unexpected {item!r}: give --spam PATH... and/or --ham PATH...")
        else:
            groups[current].append(item)
    if not any(groups.values()):
        raise click.UsageError("give the messages: --spam PATH... and/or --ham PATH...")
    _each_once([path for paths in groups.values() for path in paths],
               f"its messages would be {'unlearned' if unlearn else 'learned'} twice")
    report = ReadReport()
    with locked(model_path):
        model = Model.load(model_path)
        spam_filter = SpamFilter.of(model)
        # the ham class only where --ham is given: a filter with several other classes learns spam too
        labels = {kind: spam_filter.label if kind == "spam" else spam_filter.ham_label(model.classes)
                  for kind in groups}
        documents = []
        for kind, paths in groups.items():
            for batch, _ in iter_unlabelled(paths, report, input_format=_trained_format(model),
                                            headers=model.analyzer.headers, max_document_bytes=max_document_size):
                assert isinstance(batch, list)  # mail comes parsed, as unparsed_mail is not asked
                documents += [dataclasses.replace(doc, label=labels[kind]) for doc in batch]
        if report.unread:  # nothing learned: a path named that gave no message is a slip to mend first
            _print_read_report(report, verbose, "utf-8", always=False)
            report.check_all_read()
        if not documents:
            # A quiet night's .Junk/new: a nightly job that learns it must not fail for that.
            given = ", ".join(path for paths in groups.values() for path in paths)
            click.echo(f"nothing to {'unlearn' if unlearn else 'learn'}: no message in {given}; {model_path} is "
                       "unchanged", err=True)
            return
        try:
            updated = update(model, documents, remove=unlearn)
        except NotLearnedError as error:  # said of documents; here the likely slip is the wrong class's option
            given = " and ".join(f"--{kind}" for kind in groups)
            raise DataError(f"{error}: the messages were not all learned as given ({given}); unlearn each with "
                            "the option it was learned with") from None
        _count_learned(updated.summary, [labels[kind] for kind in groups], documents, unlearn)
        digests = [text_digest(doc.text) for doc in documents]
        updated.texts = with_texts(model.texts, digests, remove=unlearn)
        repeats = 0 if unlearn else _already_in(model, digests)
        updated.save(model_path)
    _print_read_report(report, verbose, "utf-8", always=False)
    verb = "unlearned" if unlearn else "learned"
    counts = ", ".join(f"{sum(doc.label == labels[k] for doc in documents):,} {k}" for k in groups)
    click.echo(f"{verb} {counts} -> {model_path} ({len(updated.terms):,} terms)", err=True)
    if repeats:  # a message learned twice counts twice, as bogofilter counts it: said, as merge says it
        click.echo(_repeats_line(repeats, len(documents), model_path, "messages", "learned"), err=True)


def _count_learned(summary: dict[str, Any], labels: list[str], documents: list, unlearn: bool) -> None:
    """Keep in a filter's ``summary`` how many messages of each label learn has added, net of
    those unlearned, for nbtext info to tell from the data it was trained on; unlearning all
    of them leaves the file as it was."""
    learned = dict(summary.get("learned", {}))
    for label in labels:
        change = sum(doc.label == label for doc in documents)
        learned[label] = learned.get(label, 0) + (-change if unlearn else change)
    summary.pop("learned", None)
    if any(learned.values()):
        summary["learned"] = {label: n for label, n in learned.items() if n}


@cli.command("inspect-top-words")
@model_argument
@click.option("-k", "--top", "k", type=click.IntRange(min=1), default=20, show_default=True,
              help="How many words per class.")
@click.option("--class", "labels", multiple=True, metavar="LABEL", help="Only this class (repeatable).")
@format_option("table", "tsv", "json", piped="tsv")
def inspect_top_words(model_path, k, labels, fmt) -> None:
    """Show, for each class, the words that most raise it, with their scores.

    \b
    Scores, per variant (w a word, c a class, not-c all the other classes):
      multinomial  log P(w|c) - log P(w|not-c), with P(w|c) = (N_cw + alpha) / (N_c + alpha |V|)
                   from word counts: how many times more likely w is in c than elsewhere.
      bernoulli    the same log ratio, with P(w|c) = (D_cw + alpha) / (D_c + 2 alpha) from
                   document counts.
      complement   weight_c(w) - mean of weight_c'(w) over the other classes, where
                   weight_c(w) = -log P(w|not-c): Complement NB learns each class from the
                   others, so a word favours c by how much more it adds to c's score.
    Raw P(w|c) is not shown on purpose: it ranks stop words first.

    \b
    Example:
      nbtext inspect-top-words tickets.joblib -k 10
      nbtext inspect-top-words tickets.joblib --class billing | cut -f3   # piped: TSV
    """
    from . import render
    from .model import Model

    model = Model.load(model_path)
    if model.analyzer.hash_features is not None:
        raise NbtextError(f"{model_path} hashes its features into {model.analyzer.hash_features:,} buckets "
                          "(--hash-features): it keeps no words, so none can be shown. Train without "
                          "--hash-features to inspect words.")
    unknown = sorted(set(labels) - set(model.classes))
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], model.classes, n=1)
        raise NbtextError(f"no class {', '.join(unknown)} in the model{f' (did you mean {close[0]}?)' if close else ''}"
                          f"; it has: {', '.join(model.classes)}")
    top = model.top_words(k)
    if labels:
        top = {label: words for label, words in top.items() if label in labels}
    render.top_words(top, fmt)


@cli.command()
@model_argument
@format_option("text", "json")
def info(model_path, fmt) -> None:
    """Show how MODEL was made, and the options of nbtext train that make it again.

    Prints the Naive Bayes variant, the documents of each class, the vocabulary, a
    calibration or a spam filter's cut-offs (with what cross-validation measured at them),
    the DATA it was trained on, and, where they apply, the held-out or tuned score and the
    messages nbtext learn added since. The last line gives the train options that give
    the model's settings, every one spelled out, so that a default changed since cannot
    change them: the same documents give the same model, and new documents a model made
    the same way (a filter's cut-offs and a calibration are measured on the data).
    --format json prints one object: path, bytes, nbtext_version, format_version, summary,
    analyzer, weighting, settings and train_options.

    \b
    Example:
      nbtext info tickets.joblib
      eval "nbtext train new-tickets/ -o new.joblib $(nbtext info tickets.joblib --format json | jq -r .train_options)"
    """
    from . import modelfile, render
    from .model import Model

    payload = modelfile.load(model_path)
    model = Model.from_payload(payload, model_path)
    written = {"bytes": os.path.getsize(model_path), "nbtext_version": payload.get("nbtext_version"),
               "format_version": payload.get("format_version")}
    render.model_info(model, model_path, written, fmt)


#: What OpenBLAS reads for its number of threads, the first one set winning.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def main() -> None:
    """Console-script entry point.

    numpy's OpenBLAS starts a thread per core, each with its own work space, as numpy is
    imported: 0.05 s of every ``nbtext predict`` here, and a thread that spins beside ours.
    nbtext multiplies no dense matrices (its products are its own sparse loops), so the command
    asks for one thread before anything imports numpy, unless the user chose a number. Its
    worker processes inherit the setting; the library, imported by others, leaves it alone.
    """
    if not any(name in os.environ for name in BLAS_THREAD_VARIABLES):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    _stand_in_for_closed_streams()
    _names_as_their_bytes(sys.stdout)
    _names_as_their_bytes(sys.stderr)
    _stop_cleanly_on(("SIGTERM", "SIGHUP"))
    interrupted = _note_interrupts()
    try:
        cli.main(prog_name="nbtext")
    except SystemExit:
        if interrupted:
            _end_as_interrupted()
        raise
    except BrokenPipeError:  # an error's message, or the usage, into `2>&1 | head` gone before it
        _quiet_pipe()


def _note_interrupts() -> list[int]:
    """Ctrl-C still raises KeyboardInterrupt (click says "Aborted!" and exits 1); the list
    returned gets an entry when it does, so that main can end the process as interrupted."""
    import signal

    seen: list[int] = []

    def interrupt(number: int, _frame: Any) -> None:
        seen.append(number)
        raise KeyboardInterrupt

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not where it is ignored
        signal.signal(signal.SIGINT, interrupt)
    return seen


def _end_as_interrupted() -> None:
    """End by Ctrl-C's signal, after the usual clean-up: a shell loop (``for f in *; do nbtext
    ...; done``) stops at Ctrl-C only when the command it ran died of SIGINT. An exit status of
    1 tells the shell the command handled the interrupt, and the loop went on to the next one.
    Python ends so when KeyboardInterrupt leaves the program, after its exit handlers (worker
    processes stopped) have run; the traceback is not shown, "Aborted!" said it."""
    def quiet(kind, error, traceback) -> None:
        if not issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, error, traceback)

    sys.excepthook = quiet
    raise KeyboardInterrupt from None


def _stop_cleanly_on(names: tuple[str, ...]) -> None:
    """``kill``, ``timeout`` and a closed terminal end a run as Ctrl-C does, through its
    clean-up: worker processes stopped (a kill that ended only this process left them and the
    forkserver running), a half-written model's temporary file removed. The exit status stays
    128 + the signal's number, as a shell reports for a killed process. A signal the caller
    ignores (``nohup``) stays ignored."""
    import signal

    def stop(number: int, _frame: Any) -> None:
        raise SystemExit(128 + number)

    for name in names:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is signal.SIG_DFL:
            signal.signal(number, stop)


def _stand_in_for_closed_streams() -> None:
    """Started with stdin, stdout or stderr closed, a process hands their numbers to the next
    files it opens (a model's temporary file could become descriptor 1, where a worker's
    inherited stdout writes): /dev/null holds them. Writing to a closed stdout is an error, as
    for any Unix tool; a closed stderr takes the messages nowhere, as asked. A closed stdin
    stays None, for the readers to refuse (``standard_input``)."""
    for number, stream in enumerate((sys.stdin, sys.stdout, sys.stderr)):
        if stream is None:
            held = os.open(os.devnull, os.O_RDWR)
            if held != number:
                os.dup2(held, number)
                os.close(held)
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")


class _ClosedOutput(io.TextIOBase):
    """stdout when the command was started with it closed: what is written fails as writing to
    a bad file descriptor does, so that the answers are not lost without a word."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "stdout is closed")


def _names_as_their_bytes(stream) -> None:
    """A file name that is not valid UTF-8 (a latin-1 ``caf\xe9.txt``) reaches Python as
    surrogate escapes; under a UTF-8 locale such as en_US.UTF-8 stdout refuses them, and
    predict and filter stopped at that file. Written back as the name's own bytes, as ls does,
    the name stays one that ``cut -f1 | xargs cat`` can open. On stderr, which wrote them as
    backslash escapes, the same: a class folder of that name had its count printed out of line
    with the others', and a path that ``-v`` named could not be pasted into a command. A
    surrogate that is no byte's escape (``\\ud800``, in a term of a model a library caller
    trained on such text) is written as that escape, where it stopped inspect-top-words."""
    import codecs

    encoding = getattr(stream, "encoding", None)
    if encoding and codecs.lookup(encoding).name == "utf-8" and hasattr(stream, "reconfigure"):
        codecs.register_error("nbtext-bytes", _bytes_or_escapes)
        stream.reconfigure(errors="nbtext-bytes")


def _bytes_or_escapes(error: UnicodeError) -> tuple[bytes, int]:
    """The surrogates UTF-8 refused: a byte's escape (U+DC80 to U+DCFF) as that byte, any
    other as its backslash escape."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    written = (bytes([ord(ch) - 0xDC00]) if "\udc80" <= ch <= "\udcff" else ch.encode("ascii", "backslashreplace")
               for ch in error.object[error.start:error.end])
    return b"".join(written), error.end


def _quiet_pipe() -> None:
    """Our reader went away (``| head -1``): stop quietly, as a Unix tool killed by SIGPIPE."""
    _drop_unwritten_output()
    sys.exit(EXIT_BROKEN_PIPE)


def _output_lost(error: OSError) -> DataError | None:
    """The error to report where ``error`` is the output's failing to be written (a full disk,
    a closed stdout), with the unwritten rest dropped; None for any other OSError."""
    if error.errno not in _OUTPUT_LOST:
        return None
    _drop_unwritten_output()
    return DataError(f"cannot write the output: {error.strerror}")


def _drop_unwritten_output() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot complain again."""
    if isinstance(sys.stdout, _ClosedOutput):  # it keeps nothing to flush
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
