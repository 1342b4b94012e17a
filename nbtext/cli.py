"""The command layer: parse options, call the library, hand results to render.

Exit codes (see nbtext.errors): 0 success, 1 data or model error (one line on stderr),
2 usage error, 141 when the reader of our output goes away (``| head -1``).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from typing import Any

import click

from . import __version__
from .errors import EXIT_BROKEN_PIPE, NbtextError
from .readers.mail import USEFUL_HEADERS

VARIANT_NAMES = ("multinomial", "bernoulli", "complement")
FORMAT_NAMES = ("folder", "tsv", "jsonl", "fasttext", "email", "mbox", "maildir")
MAIL_NAMES = ("email", "mbox", "maildir")


class _Group(click.Group):
    """Turns the library's errors into one clean line and exit status 1."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except NbtextError as error:
            raise click.ClickException(str(error)) from None
        except BrokenPipeError:
            _quiet_pipe()


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="nbtext")
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


def input_options(command: Callable) -> Callable:
    """--input-format, --encoding and --verbose, for commands that read labelled DATA."""
    decorators = [
        click.option("--input-format", type=click.Choice(FORMAT_NAMES),
                     help="How to read DATA (default: a folder, or from the file name or first line; "
                          "mail formats: email = one RFC 822 message per file, mbox, maildir)."),
        click.option("--encoding", default="utf-8", show_default=True,
                     help="Encoding of the documents; invalid bytes are replaced and counted."),
        click.option("-v", "--verbose", is_flag=True, help="Name every replaced, empty or skipped entry."),
    ]
    return functools.reduce(lambda f, d: d(f), reversed(decorators), command)


def _ngram_range(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, int]:
    try:
        low, high = (int(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter("expected MIN,MAX, e.g. 1,2") from None
    if not 1 <= low <= high:
        raise click.BadParameter("need 1 <= MIN <= MAX")
    return low, high


def _df(ctx: click.Context, param: click.Parameter, value: str | None) -> int | float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        raise click.BadParameter("expected a document count (e.g. 2) or a proportion (e.g. 0.5)") from None
    if number < 0 or ("." in value and number > 1):
        raise click.BadParameter("a count must be >= 0 and a proportion between 0.0 and 1.0")
    return number if "." in value else int(number)


def _header_list(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    return tuple(name.strip().lower() for name in value.split(",") if name.strip())


def analyzer_options(command: Callable) -> Callable:
    """Tokenizer and vocabulary options, for commands that build a vocabulary."""
    decorators = [
        click.option("--analyzer", type=click.Choice(["word", "char_wb"]), default="word", show_default=True,
                     help="Word tokens, or character n-grams inside word boundaries."),
        click.option("--ngram-range", default="1,1", show_default=True, callback=_ngram_range,
                     metavar="MIN,MAX", help="Lengths of the n-grams (in words, or characters for char_wb)."),
        click.option("--lowercase/--no-lowercase", default=True, show_default=True),
        click.option("--stop-words", metavar="english|FILE",
                     help="Drop these words: scikit-learn's English list, or a file with one word a line."),
        click.option("--min-df", default="1", show_default=True, callback=_df,
                     help="Drop terms in fewer documents than this (a count, or a proportion like 0.01)."),
        click.option("--max-df", default="1.0", show_default=True, callback=_df,
                     help="Drop terms in more documents than this (a count, or a proportion like 0.5)."),
        click.option("--max-features", type=click.IntRange(min=1), help="Keep only the most frequent terms."),
        click.option("--tf", type=click.Choice(["raw", "binary", "log"]), default="raw", show_default=True,
                     help="Term frequency per document: the count, presence (0/1), or log(1 + count)."),
        click.option("--binary", is_flag=True, help="Same as --tf binary: count a term once per document."),
        click.option("--doc-norm", type=click.Choice(["l2", "none"]), default="none", show_default=True,
                     help="Scale each document's vector to unit length before summing (Rennie et al.)."),
        click.option("--idf/--no-idf", default=False, show_default=True,
                     help="Weigh terms by inverse document frequency, log((1 + n) / (1 + df)) + 1."),
        click.option("--headers", default="", metavar="NAME,...", callback=_header_list,
                     help="Mail only: add these headers' words as prefixed tokens (subject_free, "
                          "from_example_com). Useful: " + "; ".join(
                              f"{name}: {why}" for name, why in USEFUL_HEADERS.items()) + "."),
    ]
    return functools.reduce(lambda f, d: d(f), reversed(decorators), command)


#: Options fixed when documents are counted: --update keeps the model's.
ANALYZER_OPTIONS = ("analyzer", "ngram_range", "lowercase", "stop_words", "tf", "binary", "doc_norm", "headers")


def _given_options(ctx: click.Context) -> set[str]:
    """Names of the options the user typed (not left at their defaults)."""
    from click.core import ParameterSource

    return {name for name in ctx.params if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE}


def _absolute(paths: tuple[str, ...]) -> list[str]:
    return [p if p == "-" else os.path.abspath(p) for p in paths]


def format_option(*choices: str) -> Callable:
    return click.option("--format", "fmt", type=click.Choice(choices), default=choices[0], show_default=True,
                        help="Output format.")


model_argument = click.argument("model_path", metavar="MODEL", type=click.Path(dir_okay=False))


def _print_read_report(report, verbose: bool, encoding: str, *, always: bool = True) -> None:
    lines = report.lines(verbose=verbose, encoding=encoding)
    if always or len(lines) > 1:
        click.echo("\n".join(lines), err=True)


# --- commands ------------------------------------------------------------------------------


@cli.command()
@click.argument("data", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Model file to write.")
@click.option("--update", "update_path", type=click.Path(dir_okay=False), metavar="MODEL",
              help="Add DATA to this model (new words grow its vocabulary); writes back to it unless -o.")
@click.option("--variant", type=click.Choice(VARIANT_NAMES), default="multinomial", show_default=True,
              help="Which Naive Bayes.")
@click.option("--alpha", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
              help="Additive (Laplace/Lidstone) smoothing.")
@click.option("--fit-prior/--uniform-prior", default=True, show_default=True,
              help="Learn class priors from the data, or treat classes as equally likely.")
@click.option("--norm", is_flag=True, help="Complement NB: normalise the weights per class (Rennie et al.).")
@analyzer_options
@input_options
@click.pass_context
def train(ctx, data, output, update_path, variant, alpha, fit_prior, norm, analyzer, ngram_range, lowercase,
          stop_words, min_df, max_df, max_features, tf, binary, doc_norm, idf, headers, input_format, encoding,
          verbose) -> None:
    """Train a model on labelled DATA and write it to MODEL.

    DATA is a folder with one subfolder per class (DIR/LABEL/**/FILE, one file per document),
    or a file with one labelled document per line: TSV (LABEL<TAB>TEXT), JSONL
    ({"label": ..., "text": ...}) or fastText (__label__LABEL TEXT); - reads such lines
    from stdin. Several DATA are read in turn.

    With --update MODEL, DATA is added to an existing model: the result equals training on
    the old and the new data at once (the model keeps its analyzer; NB options given here
    replace the model's).

    \b
    Example:
      nbtext train corpora/support-tickets/train -o tickets.joblib
      nbtext train sms.tsv --variant complement --ngram-range 1,2 -o sms.joblib
      nbtext train --update tickets.joblib new-tickets/
    """
    from . import render
    from .analysis import Analyzer, load_stop_words
    from .model import Model
    from .readers import LabelledCorpus
    from . import training

    given = _given_options(ctx)
    settings = {"variant": variant, "alpha": alpha, "fit_prior": fit_prior, "norm": norm, "idf": idf,
                "min_df": min_df, "max_df": max_df, "max_features": max_features}
    weighting = {"tf": "binary" if binary else tf, "doc_norm": None if doc_norm == "none" else doc_norm}
    if update_path is None:
        if output is None:
            raise click.UsageError("give the model file to write with -o MODEL (or --update MODEL)")
        base = None
        analyzer_settings = Analyzer(analyzer=analyzer, ngram_range=ngram_range, lowercase=lowercase,
                                     stop_words=load_stop_words(stop_words), headers=headers)
    else:
        fixed = sorted(given & set(ANALYZER_OPTIONS))
        if fixed:
            raise click.UsageError(f"--update keeps the model's analyzer; drop --{fixed[0].replace('_', '-')}")
        output = output or update_path
        base = Model.load(update_path)
        settings = {name: value for name, value in settings.items() if name in given}
    if base is not None and input_format is None:
        input_format = base.summary.get("input_format")
    reading = analyzer_settings if base is None else base.analyzer
    corpus = LabelledCorpus(data, input_format=input_format, encoding=encoding, headers=reading.headers)
    with render.progress(corpus.total_bytes, "reading") as advance:
        documents = corpus.read(progress=advance)
        if base is None:
            model = training.train(documents, analyzer=analyzer_settings, settings=settings, **weighting,
                                   summary={"inputs": _absolute(data), "input_format": input_format})
        else:
            model = training.update(base, documents, settings=settings)
            model.summary["inputs"] = model.summary.get("inputs", []) + _absolute(data)
    model.save(output)
    _print_read_report(corpus.report, verbose, corpus.encoding)
    render.train_summary({**model.summary, "variant": model.settings["variant"]}, output)


@cli.command()
@click.argument("models", nargs=-1, required=True, metavar="MODEL...")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="Model file to write.")
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
    from .training import merge as merge_models

    settings = {name: value for name, value in
                {"min_df": min_df, "max_df": max_df, "max_features": max_features}.items() if value is not None}
    merged = merge_models([Model.load(path) for path in models], settings=settings)
    merged.save(output)
    render.train_summary({**merged.summary, "variant": merged.settings["variant"]}, output, verb="merged")


@cli.command("eval")
@model_argument
@click.argument("data", nargs=-1, required=True)
@format_option("table", "json")
@input_options
def eval_(model_path, data, fmt, input_format, encoding, verbose) -> None:
    """Evaluate MODEL on labelled DATA (read as for train).

    Prints accuracy, per-class precision, recall, F1 and support, macro and weighted averages,
    the confusion matrix (rows: true class) and the log loss. --format json prints one
    object with accuracy, macro_f1, log_loss, labels, per_class, confusion_matrix and
    n_documents.

    \b
    Example:
      nbtext eval tickets.joblib corpora/support-tickets/test
      nbtext eval tickets.joblib corpora/support-tickets/test --format json | jq .accuracy
    """
    import numpy as np

    from . import render
    from .metrics import evaluate
    from .model import Model
    from .readers import LabelledCorpus

    model = Model.load(model_path)
    corpus = LabelledCorpus(data, input_format=input_format or model.summary.get("input_format"),
                            encoding=encoding, headers=model.analyzer.headers)
    y_true: list[str] = []
    blocks: list[np.ndarray] = []
    with render.progress(corpus.total_bytes, "evaluating") as advance:
        batch: list = []
        for doc in corpus.read(progress=advance):
            batch.append(doc)
            if len(batch) == 1000:
                blocks.append(model.predict_log_proba([d.text for d in batch]))
                y_true += [d.label for d in batch]
                batch = []
        if batch:
            blocks.append(model.predict_log_proba([d.text for d in batch]))
            y_true += [d.label for d in batch]
    if not y_true:
        raise NbtextError("no documents to evaluate")
    _print_read_report(corpus.report, verbose, corpus.encoding)
    render.eval_report(evaluate(y_true, np.vstack(blocks), model.classes), fmt)


@cli.command()
@model_argument
@click.argument("paths", nargs=-1, metavar="[PATH...|-]")
@click.option("--proba", is_flag=True, help="Also print the probability of each printed label.")
@click.option("--top-k", type=click.IntRange(min=1), default=1, show_default=True,
              help="Print the K most probable labels, best first.")
@format_option("tsv", "jsonl")
@click.option("--encoding", default="utf-8", show_default=True, help="Encoding of the documents.")
@click.option("--input-format", type=click.Choice(["folder", *MAIL_NAMES]),
              help="Read files as mail (email), or as mbox files or maildirs (default: as the model "
                   "was trained; mbox files and maildirs are recognised anyway).")
@click.option("-v", "--verbose", is_flag=True, help="Name every replaced, empty or skipped entry.")
def predict(model_path, paths, proba, top_k, fmt, encoding, input_format, verbose) -> None:
    """Classify documents with MODEL, one output line per document, in input order.

    A PATH that is a file is one document; a folder is walked. With - or no PATH, each line
    of stdin is one document. Lines are PATH<TAB>LABEL for files and LABEL for stdin lines;
    --proba adds each label's probability, --top-k the next best labels. Answers stream:
    each is printed as soon as its input has been read.

    \b
    Example:
      nbtext predict tickets.joblib inbox/
      cat messages.txt | nbtext predict tickets.joblib --proba --top-k 2
    """
    import numpy as np

    from .model import Model
    from .readers import ReadReport, iter_unlabelled

    model = Model.load(model_path)
    classes = model.classes
    k = min(top_k, len(classes))
    report = ReadReport()
    out = sys.stdout
    trained_on = model.summary.get("input_format")
    input_format = input_format or ("email" if trained_on in MAIL_NAMES else None)
    batches = iter_unlabelled(paths, report, encoding=encoding, input_format=input_format,
                              headers=model.analyzer.headers)
    for batch, from_stdin in batches:
        log_proba = model.predict_log_proba([doc.text for doc in batch])
        best = np.argsort(-log_proba, axis=1, kind="stable")[:, :k]
        lines = []
        for doc, row, order in zip(batch, log_proba, best):
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
                lines.append(json.dumps(record, ensure_ascii=False))
            else:
                fields = [] if from_stdin else [_identity(doc)]
                for label, p in top:
                    fields += [label, f"{p:.6f}"] if proba else [label]
                lines.append("\t".join(fields))
        out.write("\n".join(lines) + "\n")
        out.flush()
    _print_read_report(report, verbose, encoding, always=False)


def _identity(doc) -> str:
    """A document's name in predict output: its path, and for a message in an mbox or
    maildir ``PATH:INDEX`` followed by its Message-ID where it has one."""
    if doc.message_id and ":" in doc.source and not os.path.exists(doc.source):
        return f"{doc.source} {doc.message_id}"
    return doc.source


@cli.command("inspect-top-words")
@model_argument
@click.option("-k", "--top", "k", type=click.IntRange(min=1), default=20, show_default=True,
              help="How many words per class.")
@click.option("--class", "labels", multiple=True, metavar="LABEL", help="Only this class (repeatable).")
@format_option("table", "tsv", "json")
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
      nbtext inspect-top-words tickets.joblib --class billing --format tsv
    """
    from . import render
    from .model import Model

    model = Model.load(model_path)
    unknown = sorted(set(labels) - set(model.classes))
    if unknown:
        raise NbtextError(f"no class {', '.join(unknown)} in the model; it has: {', '.join(model.classes)}")
    top = model.top_words(k)
    if labels:
        top = {label: words for label, words in top.items() if label in labels}
    render.top_words(top, fmt)


def main() -> None:
    """Console-script entry point."""
    cli.main(prog_name="nbtext")


def _quiet_pipe() -> None:
    """Our reader went away (``| head -1``): stop quietly, as a Unix tool killed by SIGPIPE."""
    # Point stdout at /dev/null so that the interpreter's final flush cannot complain again.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(EXIT_BROKEN_PIPE)
