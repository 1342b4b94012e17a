"""inspect-top-words, info and export: what a model has learned, how it was made, and the
model as a linear one for other programs."""

from __future__ import annotations

import os
import sys

import click

from .. import render
from ..model import Model
from .options import ExportPath, format_option, model_argument, top_option


@click.command("inspect-top-words")
@model_argument
@top_option(20, "How many words per class.", "-k")
@click.option("--class", "labels", multiple=True, metavar="LABEL", help="Only this class (repeatable).")
@format_option("table", "tsv", "json", piped="tsv")
def inspect_top_words(model_path, top, labels, fmt) -> None:
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

    A model with numeric or categorical columns also shows, per class, each numeric column's
    mean and standard deviation, and the categorical values that most raise the class:
    log P(v|c) - mean of log P(v|c') over the other classes (as column=value rows in TSV and JSON).

    \b
    Example:
      nbtext inspect-top-words tickets.joblib --top 10
      nbtext inspect-top-words tickets.joblib --class billing | cut -f3   # piped: TSV
    """
    model = Model.load(model_path)
    render.top_words(model.top_words(top, labels), fmt, columns=model.column_profile(top, labels))


@click.command()
@model_argument
@format_option("table", "json", renamed={"text": "table"})
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
    model, written = Model.with_file_facts(model_path)
    render.model_info(model, model_path, written, fmt)


@click.command()
@model_argument
@click.option("-o", "--output", type=ExportPath(), help="File to write (default: stdout, for json and csv).")
@click.option("--format", "fmt", type=click.Choice(["json", "npz", "csv"]),
              help="json: weights, bias, terms and how text becomes x, in one object; npz: numpy's arrays, "
                   "the rest as JSON in 'meta'; csv: a row per term, a column per class, the first row the bias. "
                   "Default: from -o's suffix, else json.")
def export(model_path, output, fmt) -> None:
    """Write MODEL as a linear model, to run where a dot product runs (SQL, JavaScript, a mail
    server's plugin).

    A document's score for class c is the weights of c times x, plus c's bias: x counts each
    term of the document's features (as MODEL's analyzer makes them), then log(1 + count)
    where tf is log (1 where present, for binary), divided by the row's length for doc_norm
    l2, times idf where given; for Bernoulli NB (presence), 1 where present. The class with the
    highest score is the label; subtracting log(sum of exp(score)) gives predict's
    log-probabilities (before a calibration or a filter's spam scaling, which json names). A
    model with numeric or categorical columns adds each column's log-likelihood (json and npz
    hold their means, variances and category log-probabilities).

    \b
    Example:
      nbtext export tickets.joblib -o tickets.json
      nbtext export tickets.joblib --format csv | head -3
      nbtext export tickets.joblib -o tickets.npz
    """
    from ..export import write_export  # here: the other commands of this module need none of it

    fmt = fmt or {".npz": "npz", ".csv": "csv"}.get(os.path.splitext(output or "")[1].lower(), "json")
    if fmt == "npz" and output is None and sys.stdout.isatty():
        raise click.UsageError("npz is binary: write it to a file with -o FILE.npz, or pipe it")
    model = Model.load(model_path)
    if output is None:
        stream = sys.stdout.buffer if fmt == "npz" else sys.stdout
        write_export(model, stream, fmt)
        return
    with open(output, "wb" if fmt == "npz" else "w", newline="" if fmt == "csv" else None,
              encoding=None if fmt == "npz" else "utf-8") as out:
        write_export(model, out, fmt)
    click.echo(f"exported {len(model.terms):,} terms x {len(model.classes):,} classes as {fmt} -> {output}", err=True)
