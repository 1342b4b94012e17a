"""eval: how well a model, or training options by cross-validation, label labelled data."""

from __future__ import annotations

import os
from typing import Any

import click

from .. import render
from ..answers import wrong_lines
from ..combining import COMBINING
from ..errors import NbtextError
from ..evaluation import CURVE_SHARES, MULTI_LABEL_THRESHOLD, cross_validate, evaluate_model, learning_curve
from ..inputs import corpus_for, training_corpus
from ..model import Model
from ..parallel import read_all
from ..phrasing import plural
from ..readers.document import labels_of
from ..spam import SpamFilter
from ..spam import spam_class
from ..spam_training import makes_a_filter
from .common import each_once, not_over_the_data, print_classes, print_read_report, reported_on_error
from .options import (ANALYZER_OPTIONS, NB_OPTIONS, ErrorsPath, FiniteRange, PlotPath, analyzer_options,
                      cutoff_options, format_option, given_options, input_options, labelled_columns, nb_options,
                      value_column_options)
from .setup import filter_options, training_setup


@click.command("eval")
@click.argument("args", nargs=-1, required=True, metavar="MODEL DATA... | --cv K DATA...")
@format_option("table", "json")
@click.option("--cv", type=click.IntRange(min=2), metavar="K",
              help="No model: cross-validate the training options below on DATA, stratified K-fold.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the --cv folds.")
@click.option("--learning-curve", is_flag=True,
              help="With --cv K: train on growing shares of each fold's training documents (5% to 100%) and "
                   "score each on the held-out fold: would more labelled data help? With --plot, drawn too.")
@click.option("--errors", "errors_path", type=ErrorsPath(), metavar="FILE",
              help="Also write the documents MODEL labels wrongly to FILE, one a line in input order: "
                   "NAME<TAB>TRUE<TAB>PREDICTED<TAB>P(PREDICTED)<TAB>P(TRUE).")
@click.option("--plot", "plot_path", type=PlotPath(), metavar="FILE",
              help="Also draw the evaluation to FILE (.svg, .png or .pdf): the confusion matrix, each class's "
                   "precision and recall, the reliability diagram (before and after a calibration), and for a "
                   "spam filter its scores of ham and spam with the cut-offs. Needs nbtext[plot].")
@click.option("--threshold", type=FiniteRange(0, 1, min_open=True), metavar="P",
              help="Score labels as sets, each text given every label of probability P or more (as predict "
                   "--threshold gives them): micro and macro precision, recall and F1, and precision and recall at "
                   f"1 and 3. Where texts come with several labels, this is done at {MULTI_LABEL_THRESHOLD} unless "
                   "told.")
@click.option("--explain", type=click.IntRange(min=1), metavar="N",
              help="With --errors: end each line with the N words that most raise the wrong label over the "
                   "true one, each with by how much (natural log-odds), as predict --explain does.")
@click.option("--combining", type=click.Choice(COMBINING),
              help="With --cv K on mail with a spam class: how each fold's filter combines a message's words, as "
                   "train --combining (default nb).")
@cutoff_options
@nb_options
@analyzer_options
@input_options
@value_column_options[0]
@value_column_options[1]
def eval_(args, fmt, cv, seed, learning_curve, errors_path, plot_path, threshold, explain, combining, spam_cutoff,
          ham_cutoff, **options) -> None:
    """Evaluate MODEL on labelled DATA (read as for train), or with --cv K, the training
    options on DATA by stratified K-fold cross-validation (for mail with a spam class, the
    filter train makes of it, calibration and all).

    Prints accuracy, per-class precision, recall, F1 and support, macro and weighted averages,
    the confusion matrix (rows: true class), the log loss, and how well the top-class
    probability is calibrated (a reliability table and the expected calibration error).
    For a spam filter MODEL, also its verdicts as `nbtext filter` gives them: the ham it
    calls spam, the spam it catches and the messages it leaves unsure, at its cut-offs or at
    --spam-cutoff and --ham-cutoff; with --cv on mail with a spam class, each fold's filter's
    at the cut-offs it chose, pooled. Documents scored by a model trained on their very text
    (or with --cv, on a copy of it in another fold) are counted, with the accuracy on the
    others. --format json prints one object with accuracy, macro_f1, log_loss, ece,
    reliability, labels, per_class, confusion_matrix and n_documents (with --cv: the mean and
    standard deviation over the folds), seen_in_training and unseen_accuracy, and for a
    filter, filter. Where texts come under several labels (a copy in each class folder),
    each copy is scored against its own label, and the accuracy that counts an answer right
    for any of its text's labels is given too, over the distinct texts (multi_label_texts,
    distinct_texts, any_label_accuracy); and the labels are scored as sets, each text given
    every label at least as probable as --threshold (multi_label: micro and macro precision,
    recall and F1, precision and recall at 1 and 3). With --cv, the folds are then of texts,
    a text's copies together, and the sets' micro F1 is given (micro_f1). A document of
    several labels is a file in several class folders, a fastText line of several
    __label__s, a JSONL list of labels, or a table's label cell split by --label-separator.
    A MODEL with numeric or categorical columns reads them from DATA's tables; with --cv,
    --numeric-columns and --categorical-columns name the columns to learn, as for train.

    \b
    Example:
      nbtext eval tickets.joblib corpora/support-tickets/test
      nbtext eval tickets.joblib corpora/support-tickets/test --format json | jq .accuracy
      nbtext eval --cv 5 --variant complement corpora/support-tickets/train
      nbtext eval filter.joblib held-out-mail/ --spam-cutoff 0.95    # ham lost, spam caught
      nbtext eval tickets.joblib corpora/support-tickets/test --errors wrong.tsv
      nbtext eval topics.joblib reuters/test --threshold 0.1    # several labels a text
    """
    if cv is not None:
        if spam_cutoff is not None or ham_cutoff is not None:
            raise click.UsageError("--spam-cutoff and --ham-cutoff are for a spam filter MODEL, not for --cv K")
        if errors_path is not None:
            raise click.UsageError("--errors lists what a MODEL labels wrongly; with --cv K there is none")
        if plot_path is not None and not learning_curve:
            raise click.UsageError("--plot draws a MODEL's evaluation, or with --cv K a --learning-curve")
        if threshold is not None:
            raise click.UsageError(f"--threshold scores a MODEL's labels as sets; with --cv K, texts of several "
                                   f"labels are scored as sets at {MULTI_LABEL_THRESHOLD}")
        if learning_curve:
            if combining is not None:
                raise click.UsageError("--learning-curve cross-validates plain models; --combining is a filter's")
            return _learning_curve(args, cv, seed, fmt, plot_path, options)
        return _cross_validate(args, cv, seed, fmt, options, combining)
    if combining is not None:
        raise click.UsageError("a MODEL combines a message's words as it was trained (train --combining); "
                               "--combining is for --cv K")
    if learning_curve:
        raise click.UsageError("--learning-curve cross-validates training options: give --cv K")
    if len(args) < 2:
        raise click.UsageError("give MODEL and DATA (or --cv K DATA...)")
    unused = sorted(given_options(click.get_current_context())
                    & {*ANALYZER_OPTIONS, *NB_OPTIONS, "seed", "numeric_columns", "categorical_columns"})
    if unused:  # they would be quietly unused: a model is scored as it was trained
        raise click.UsageError(f"--{unused[0].replace('_', '-')} is for --cv K: MODEL is scored as it was trained "
                               "(train it again to change that)")
    model_path, data = args[0], args[1:]
    _check_plot(plot_path)
    if explain and errors_path is None:
        raise click.UsageError("--explain adds to each line of --errors FILE: give --errors FILE too")
    if errors_path is not None:
        if os.path.exists(errors_path) and os.path.exists(model_path) and os.path.samefile(errors_path, model_path):
            raise click.UsageError(f"--errors {errors_path} is MODEL: the list would be written over it")
        not_over_the_data(errors_path, data, "--errors", "the list")
    model = Model.load(model_path)
    spam_filter = None
    if model.settings["spam"]:
        spam_filter = SpamFilter.of(model).with_cutoffs(spam_cutoff, ham_cutoff)
    elif spam_cutoff is not None or ham_cutoff is not None:
        raise click.UsageError(f"--spam-cutoff and --ham-cutoff are for a spam filter; {model_path} is none")
    each_once(data, "its documents would be read twice")
    corpus = corpus_for(model, data, input_format=options["input_format"], encoding=options["encoding"],
                        max_document_bytes=options["max_document_size"],
                        columns=labelled_columns(options))
    with reported_on_error(corpus.report, options["verbose"], corpus.encoding, empty=model.empty_answer), \
         render.progress(corpus.total_bytes, "evaluating") as advance:
        evaluation = evaluate_model(model, corpus.read(progress=advance), spam_filter=spam_filter,
                                    wrong=errors_path is not None, explain=explain, threshold=threshold)
    print_read_report(corpus.report, options["verbose"], corpus.encoding, empty=model.empty_answer)
    if errors_path is not None:
        _write_errors(errors_path, wrong_lines(evaluation.wrong))
    if plot_path is not None:  # before the report: `| head -1` closes stdout, and the picture is not lost
        from ..plots import plot_evaluation

        plot_evaluation(evaluation.report, plot_path, title=f"{os.path.basename(model_path)} on "
                                                            f"{', '.join(map(os.path.basename, data))}",
                        **evaluation.picture_parts(model, spam_filter))
        click.echo(f"plot -> {plot_path}", err=True)
    render.eval_report(evaluation.report, fmt)


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


def _check_plot(plot_path: str | None) -> None:
    """Before any reading: a picture's suffix, and matplotlib, are known now, not after an hour."""
    if plot_path is None:
        return
    from ..plots import check_plot_path

    try:
        check_plot_path(plot_path)
    except NbtextError as error:
        raise click.BadParameter(str(error), param_hint="--plot") from None


def _learning_curve(data: tuple[str, ...], k: int, seed: int, fmt: str, plot_path: str | None,
                    options: dict[str, Any]) -> None:
    _check_plot(plot_path)
    documents, analyzer, settings, _ = _training_data(data, k, options)
    with render.progress(k * len(CURVE_SHARES), "learning curve", unit="models") as advance:
        points = learning_curve(documents, k=k, seed=seed, analyzer=analyzer, settings=settings, progress=advance)
    if plot_path is not None:  # before the table: `| head -1` closes stdout, and the picture is not lost
        from ..plots import plot_learning_curve

        plot_learning_curve(points, plot_path)
        click.echo(f"plot -> {plot_path}", err=True)
    render.learning_curve(points, fmt, k=k, seed=seed)


def _training_data(data: tuple[str, ...], k: int, options: dict[str, Any]) -> tuple[list, Any, dict[str, Any], Any]:
    """The documents of DATA read as train reads them, the analyzer, the training settings
    (weighting and columns in them), and the corpus."""
    numeric, categorical = options.pop("numeric_columns"), options.pop("categorical_columns")
    analyzer, weighting, settings = training_setup(options)
    each_once(data, "its documents would be read twice")
    corpus, analyzer = training_corpus(data, analyzer, headers=options["headers"], input_format=options["input_format"],
                                       encoding=options["encoding"], max_document_bytes=options["max_document_size"],
                                       columns=labelled_columns(options, numeric, categorical))
    with reported_on_error(corpus.report, options["verbose"], corpus.encoding), \
         render.progress(corpus.total_bytes, "reading") as advance:
        documents = read_all(corpus.read(progress=advance))
    print_read_report(corpus.report, options["verbose"], corpus.encoding)
    print_classes(corpus.report, k)
    if numeric or categorical:
        settings.update(numeric_columns=",".join(numeric), categorical_columns=",".join(categorical))
    return documents, analyzer, {**settings, **weighting}, corpus


def _cross_validate(data: tuple[str, ...], k: int, seed: int, fmt: str, options: dict[str, Any],
                    combining: str | None = None) -> None:
    given = given_options(click.get_current_context())
    documents, analyzer, settings, corpus = _training_data(data, k, options)
    as_filter = None
    # train makes mail with a spam class a filter
    if "numeric_columns" not in settings and makes_a_filter(corpus.is_mail, labels_of(documents)):
        click.echo("mail with a spam class: each fold is a filter, trained as nbtext train trains one (a filter's "
                   "defaults, and its calibration)", err=True)
        weighting = {key: settings.pop(key) for key in ("tf", "doc_norm")}
        analyzer, as_filter = filter_options(analyzer, weighting, settings, given)
        as_filter["label"] = spam_class(labels_of(documents))
        if combining is not None:
            as_filter["combining"] = combining
        settings.update(weighting)
    elif combining is not None:
        raise click.UsageError("--combining is how a spam filter scores; these data make no filter (mail with a "
                               "spam class does)")
    with render.progress(k, "cross-validating", unit="folds") as advance:
        trial = cross_validate(documents, k=k, seed=seed, analyzer=analyzer, settings=settings,
                               filter_options=as_filter, progress=advance)
    # The read report took each document's digest as it was read, in order.
    render.cv_report({**trial.summary(), **trial.on_copies(corpus.report.texts)}, fmt, k=k, seed=seed)
    if trial.termless_folds:
        click.echo(f"{trial.termless_folds} of {k} folds had no term left to train on (every one pruned, or no "
                   "words): they answered with the class priors alone, and train refuses such a model", err=True)
