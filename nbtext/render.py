"""Showing results: rich tables and progress on a terminal, plain TSV/JSON for pipelines.

Only this module and the command layer import rich, and only when they draw something, so
``nbtext predict`` never pays for it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import shlex
import sys
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

import numpy as np

from .readers import MAIL_FORMATS

#: The escapes of PostgreSQL's text format (and "linear TSV"): a field keeps to one line and one
#: column, and the backslash is escaped too so that every field reads back unambiguously.
_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def tsv_field(value: str) -> str:
    r"""``value`` as one TSV field: a backslash, tab, newline or carriage return in it is written
    ``\\``, ``\t``, ``\n`` or ``\r``, so a file named with a tab cannot shift the label into
    another column, nor one named with a newline split its line in two.

    >>> tsv_field("inbox/a\tb.txt"), tsv_field("plain/name.txt")
    ('inbox/a\\tb.txt', 'plain/name.txt')
    """
    if "\\" in value or "\t" in value or "\n" in value or "\r" in value:  # most names: 0.1 µs, not 1.7
        return value.translate(_TSV_ESCAPES)
    return value


def untested_classes(held: dict[str, Any]) -> str:
    """What a --test-split's score leaves out (``held`` is a model summary's ``held_out``): the
    classes too small for their share to round to a document, with their sizes; "" if none."""
    untested = held.get("untested") or {}  # model files written before it was recorded have none
    if not untested:
        return ""
    named = ", ".join(f"{tsv_field(label)} {n:,}" for label, n in untested.items())
    return (f"not tested: {len(untested):,} {'class' if len(untested) == 1 else 'classes'} too small to hold out "
            f"a document at {held['fraction']:.0%} ({named})")


def console(file: IO[str] | None = None, *, width: int | None = None):
    """A rich Console on ``file`` (stdout by default); colour only on a terminal. Markup is off:
    cells hold the user's words and labels, and ``[want]`` must print as itself. Into a file or
    a pipe, lines end at their last character: rich pads every cell to its column's width."""
    from rich.console import Console

    file = file or sys.stdout
    out = file if _is_terminal(file) else _TrimmedLines(file)
    drawn = Console(file=out, width=width, highlight=False, soft_wrap=False, markup=False)
    drawn.on_broken_pipe = _reader_gone  # rich's own exits 1, which a shell takes for a failure
    return drawn


def _reader_gone() -> None:
    """Our reader went away (``| head``): raised on, for the command to stop as SIGPIPE stops a tool."""
    raise BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))


def _is_terminal(file: IO[str]) -> bool:
    try:
        return file.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed file
        return False


class _TrimmedLines:
    """Writes whole lines to ``file`` without the spaces at their ends."""

    def __init__(self, file: IO[str]) -> None:
        self._file = file
        self._partial = ""
        self.encoding = getattr(file, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        if lines:
            self._file.write("".join(line.rstrip(" ") + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:  # rich ends each print with a newline, so nothing is held back here
        self._file.flush()

    def isatty(self) -> bool:
        return False


@contextlib.contextmanager
def progress(total: int | None, description: str, *, unit: str = "bytes",
             beside_answers: bool = False) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr when it is a terminal (bytes, or a count of ``unit``; with no
    ``total``, the count so far); a no-op callback otherwise. ``beside_answers``: the command
    streams its answers to stdout, so the bar shows only while they go elsewhere (a file, a
    pipe): on the terminal, the answers are the progress, and the bar would tear them."""
    if not sys.stderr.isatty() or (beside_answers and sys.stdout.isatty()):
        yield lambda n: None
        return
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    if total is None and unit != "bytes":
        columns = [TextColumn("{task.description}"), BarColumn(), TextColumn(f"{{task.completed:,.0f}} {unit}"),
                   TimeElapsedColumn()]
    else:
        amount = DownloadColumn() if unit == "bytes" else MofNCompleteColumn()
        columns = [TextColumn("{task.description}"), BarColumn(), amount, TimeRemainingColumn()]
    # Left alone, rich would catch stdout too and print it above the bar, on stderr: the answers.
    with Progress(*columns, console=console(sys.stderr), transient=True, redirect_stdout=False) as bar:
        task = bar.add_task(description, total=total)
        yield lambda n: bar.advance(task, n)


def label_twins(labels: Iterable[str], classes: Iterable[str], owner: str = "the model's ") -> list[str]:
    r"""A line for each of ``labels`` that is one of ``classes`` written another way: in
    another Unicode form, or in other letter case. A folder named on macOS is named decomposed
    (e and U+0301 for é), one named elsewhere composed; a folder ``Spam`` beside a model's
    ``spam`` is a new class. Each pair prints alike, or nearly, but is two labels.

    >>> line, = label_twins(["cafe\u0301", "tea"], ["caf\u00e9", "tea"])
    >>> line.split(" (")[1].split(";")[0]
    'decomposed and composed'
    >>> label_twins(["Tea", "coffee"], ["tea", "milk"])
    ["Tea and the model's tea differ only in letter case, which makes them two labels: rename one to the other"]
    """
    def form(name: str) -> str:
        return "composed" if unicodedata.is_normalized("NFC", name) else "decomposed"

    def key(name: str) -> str:
        return unicodedata.normalize("NFC", name).casefold()

    by_key: dict[str, list[str]] = {}
    for name in classes:
        by_key.setdefault(key(name), []).append(name)
    lines, told = [], set()
    for label in labels:
        same = key(label)
        twins = [name for name in by_key.get(same, []) if name != label]
        if not twins or same in told:
            continue
        told.add(same)
        twin = twins[0]
        if unicodedata.normalize("NFC", label) == unicodedata.normalize("NFC", twin):
            lines.append(f"{tsv_field(label)} and {owner}{tsv_field(twin)} are one name written in two Unicode "
                         f"forms ({form(label)} and {form(twin)}; macOS writes file names decomposed), which are "
                         "two labels: convmv -r -f utf8 -t utf8 --nfc --notest DIR renames DIR's files and folders "
                         "to the composed form")
        else:
            lines.append(f"{tsv_field(label)} and {owner}{tsv_field(twin)} differ only in letter case, which makes "
                         "them two labels: rename one to the other")
    return lines


#: A filter that catches less of its training spam than this, out of fold, is said to be trained
#: on too little mail (SpamAssassin: 10 messages of each kind caught none, 300 of each 75%).
FEW_CATCHES = 0.5


def em_lines(model) -> str:
    """What EM did (``train --unlabelled``): its steps and how the log-likelihood rose."""
    em = model.summary["em"]
    likelihood = em["log_likelihood"]
    rose = f", log-likelihood {likelihood[0]:,.0f} -> {likelihood[-1]:,.0f}" if likelihood else ""
    return (f"EM: {model.summary['labelled_documents']:,} labelled and {model.summary['unlabelled_documents']:,} "
            f"unlabelled documents (each weighing {em['weight']:g}), {em['steps']} "
            f"{'step' if em['steps'] == 1 else 'steps'}{rose}")


def train_summary(model, output: str, seconds: float, file: IO[str] | None = None, *, verb: str = "trained") -> None:
    """The short account printed after training (or merging) ``model``, which took ``seconds``."""
    file = file or sys.stderr
    print(f"{verb} {model.settings['variant']} Naive Bayes on {model.summary['documents']:,} documents "
          f"in {seconds:.1f}s -> {output}", file=file)
    _model_lines(model, file)


def _model_lines(model, file: IO[str]) -> None:
    """What training's summary says of ``model`` below its first line: the documents of each
    class, the vocabulary, a calibration and a filter's cut-offs."""
    summary, settings = model.summary, model.settings
    per_class = summary["documents_per_class"]
    labels = [tsv_field(label) for label in per_class]  # one line each, as the counts after reading show them
    width = max(map(len, labels))
    for label, n in zip(labels, per_class.values()):
        print(f"  {label:<{width}}  {n:>8,}", file=file)
    single = sum(n == 1 for n in per_class.values())
    if len(per_class) > MATRIX_CLASSES and single * 2 > len(per_class):  # ids, or texts, read as labels
        print(f"{single:,} of the {len(per_class):,} classes have one document each: is the label read from "
              "the right column or field?", file=file)
    buckets = model.analyzer.hash_features
    if buckets:  # how many distinct words fell into them is not counted: only the buckets are
        pruned = "" if summary["vocabulary_size"] == summary["terms_seen"] else f", {summary['vocabulary_size']:,} kept"
        print(f"vocabulary: words hashed into {buckets:,} buckets, {summary['terms_seen']:,} of them used{pruned}",
              file=file)
    elif model.columns is not None and not summary["terms_seen"]:
        print("no text: the model is its numeric and categorical columns alone", file=file)
    else:
        print(f"vocabulary: {summary['vocabulary_size']:,} terms (of {summary['terms_seen']:,} seen)", file=file)
    for line in column_lines(model.columns):
        print(line, file=file)
    calibration = settings["calibration"]
    if calibration:
        print(f"calibrated: temperature {calibration['temperature']:.3f}; out of fold "
              f"({calibration['folds']}-fold): log loss {calibration['log_loss']['before']:.4f} -> "
              f"{calibration['log_loss']['after']:.4f}, expected calibration error {calibration['ece']['before']:.4f}"
              f" -> {calibration['ece']['after']:.4f}", file=file)
    spam = settings["spam"]
    if spam:
        combined = ", words combined by chi-square" if spam.get("combining") == "chi-square" else ""
        print(f"spam filter ({spam['label']!r} is spam{combined}): spam cut-off {spam['spam_cutoff']:.4f}, "
              f"ham cut-off {spam['ham_cutoff']:.4f}", file=file)
        measured = spam.get("measured")
        if measured:
            print(f"  {measured['folds']}-fold cross-validation at these cut-offs: ham false positives "
                  f"{measured['ham_false_positive_rate']:.2%}, spam recall {measured['spam_recall']:.2%}, "
                  f"unsure {measured['unsure_share']:.2%}", file=file)
            if measured["spam_recall"] < FEW_CATCHES:
                spam_count = model.summary.get("documents_per_class", {}).get(spam["label"], 0)
                print(f"  few catches: out of fold, this filter caught {measured['spam_recall']:.0%} of its "
                      f"{spam_count:,} spam: with so few messages its scores seldom clear the {spam['spam_cutoff']:.2f} cut-off. "
                      "Train it on more mail (hundreds of messages of each kind), or lower the cut-off with "
                      "--spam-cutoff, at the risk of losing good mail", file=file)


def column_lines(columns) -> list[str]:
    """What a model learnt of a table's numeric and categorical columns, a line for each kind."""
    if columns is None:
        return []
    missing = dict(zip(columns.names, columns.missing.tolist()))

    def empty(name: str) -> str:
        return f" ({missing[name]:,} empty)" if missing[name] else ""

    lines = []
    if columns.numeric:
        lines.append("numeric columns (Gaussian): "
                     + ", ".join(tsv_field(name) + empty(name) for name in columns.numeric))
    if columns.categorical:
        lines.append("categorical columns: " + ", ".join(
            f"{tsv_field(name)} {len(values):,} {'value' if len(values) == 1 else 'values'}{empty(name)}"
            for name, values in zip(columns.categorical, columns.categories)))
    return lines


def model_info(model, path: str, written: dict[str, Any], fmt: str, file: IO[str] | None = None) -> None:
    """What ``nbtext info`` says of the model file at ``path``: what it was trained on and how,
    as training's summary says it, and the options of `nbtext train` that give its settings.
    ``written`` holds the file's size and the nbtext version and model format that wrote it."""
    file = file or sys.stdout
    summary = {key: value for key, value in model.summary.items() if key != "seconds"}  # old files stored it
    chosen = train_options(model)
    options = describe(chosen)
    if fmt == "json":
        print(json.dumps(_finite({"path": path, **written, "summary": summary, "analyzer": model.analyzer.to_dict(),
                                  "weighting": {"tf": model.counts.tf, "doc_norm": model.counts.doc_norm},
                                  "settings": model.settings, "train_options": options,
                                  "columns": None if model.columns is None else {
                                      "numeric": list(model.columns.numeric),
                                      "categorical": {name: list(values) for name, values in
                                                      zip(model.columns.categorical, model.columns.categories)}}})),
              file=file)
        return
    print(f"{path}: {model.settings['variant']} Naive Bayes on {summary['documents']:,} documents, written by nbtext "
          f"{written['nbtext_version']} (model format {written['format_version']}), {written['bytes']:,} bytes",
          file=file)
    _model_lines(model, file)
    inputs = ", ".join(tsv_field(data) for data in summary.get("inputs", []))
    print(f"trained on: {inputs or 'documents given to the library'}", file=file)
    held = summary.get("held_out")
    if held:
        print(f"held out when trained: {held['n_documents']:,} documents ({held['fraction']:g}, seed {held['seed']}), "
              f"accuracy {held['accuracy']:.4f}, macro F1 {held['macro_f1']:.4f}", file=file)
        if held.get("seen_in_training"):  # model files written before it was counted have none
            print(held_copies_line(held), file=file)
        if untested := untested_classes(held):
            print(untested, file=file)
    if summary.get("several_labels"):
        from .metrics import MULTI_LABEL_THRESHOLD  # here: every command's start-up imports this module

        several = summary["several_labels"]
        print(f"several labels: {several:,} {'text' if several == 1 else 'texts'} trained on had more than one; "
              f"predict --threshold {MULTI_LABEL_THRESHOLD} --top K gives each text its labels as a set", file=file)
    tuned = summary.get("tuned")
    if tuned:
        metric = next(key for key in tuned if key not in ("cv", "seed", "std"))
        print(f"tuned: {tuned['cv']}-fold {metric} {tuned[metric]:.4f} ± {tuned['std']:.4f} (seed {tuned['seed']})",
              file=file)
    learned = summary.get("learned")
    if learned:
        print("learned since (nbtext learn, net of unlearn): " + ", ".join(f"{n:+,} {tsv_field(label)}"
                                                                        for label, n in learned.items()), file=file)
    if chosen.get("stop_words") == "FILE":
        print(f"stop words: {len(model.analyzer.stop_words):,}, not scikit-learn's English list (--format json lists "
              "them)", file=file)
    print(f"train options: {options}", file=file)


def _multi_label_lines(figures: dict[str, Any]) -> str:
    """eval's lines of labels scored as sets (``metrics.multi_label``)."""
    micro, macro = figures["micro"], figures["macro"]
    at_k = "   ".join(f"P@{k} {at['precision']:.4f}  R@{k} {at['recall']:.4f}" for k, at in figures["at_k"].items())
    return (f"as sets of labels, each of probability {figures['threshold']:g} or more, over the {figures['texts']:,} "
            f"distinct texts ({figures['several_labels']:,} with several; labels a text: "
            f"{figures['labels_per_text']['true']:.2f} true, {figures['labels_per_text']['given']:.2f} given):\n"
            f"  micro precision {micro['precision']:.4f}  recall {micro['recall']:.4f}  F1 {micro['f1']:.4f}   "
            f"macro precision {macro['precision']:.4f}  recall {macro['recall']:.4f}  F1 {macro['f1']:.4f}\n"
            f"  {at_k}")


def train_options(model) -> dict[str, Any]:
    """The options of `nbtext train` that give ``model``'s settings, as ``describe`` takes them:
    every one spelled out, so that they give the same model whatever the defaults are, with
    the input format and columns it was read by. A filter's cut-offs and a calibration are
    measured on the data, not given, so only their seed is. A stop-word list that is not
    scikit-learn's is written FILE: the model keeps the words, not the file."""
    analyzer, settings, summary = model.analyzer, model.settings, model.summary
    options: dict[str, Any] = {}
    if summary.get("input_format"):
        options["input_format"] = summary["input_format"]
    columns = summary.get("columns") or {}
    for name in ("text", "label", "id"):
        if columns.get(name) is not None and not (name == "text" and columns.get("text_optional")):
            options[f"{name}_column"] = columns[name]
    for name in ("numeric", "categorical"):
        if columns.get(name):
            options[f"{name}_columns"] = ",".join(columns[name])
    options.update(analyzer=analyzer.analyzer, ngram_range=analyzer.ngram_range)
    if analyzer.char_ngrams:
        options["char_ngrams"] = analyzer.char_ngrams
    if analyzer.analyzer == "word":
        options["tokens"] = analyzer.tokens
    options["lowercase"] = analyzer.lowercase
    if analyzer.analyzer == "word":
        options["cjk_bigrams"] = analyzer.cjk_bigrams
    if analyzer.stop_words:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # scikit-learn: 0.5 s, for this list alone

        options["stop_words"] = "english" if analyzer.stop_words == ENGLISH_STOP_WORDS else "FILE"
    if summary.get("input_format") in MAIL_FORMATS:
        options["headers"] = ",".join(analyzer.headers) or "none"
    if analyzer.hash_features is not None:
        options["hash_features"] = analyzer.hash_features
    options.update(tf=model.counts.tf, doc_norm=model.counts.doc_norm or "none")
    options.update({name: settings[name] for name in ("idf", "variant", "alpha", "fit_prior", "norm", "min_df",
                                                      "max_df")})
    if settings["max_features"] is not None:
        options["max_features"] = settings["max_features"]
    em = summary.get("em")
    if em:  # EM's documents are given by path, as DATA is
        options.update(unlabelled="PATH", em_weight=em["weight"])
        if "iterations" in em:
            options["em_iterations"] = em["iterations"]
    measured = (settings["spam"] or {}).get("measured") or {}
    if settings["spam"]:
        options["spam_label"] = settings["spam"]["label"]
        if "combining" in settings["spam"]:  # written only where not naive Bayes'
            options["combining"] = settings["spam"]["combining"]
        if "fp_target" in measured:
            options["fp_target"] = measured["fp_target"]
    if settings["calibration"]:
        options["calibrate"] = True
    held = summary.get("held_out")
    if held:
        options["test_split"] = held["fraction"]
    seeded = [part["seed"] for part in (measured, settings["calibration"], held) if part and "seed" in part]
    if seeded:
        options["seed"] = seeded[0]
    return options


def eval_report(report: dict[str, Any], fmt: str, file: IO[str] | None = None, *, width: int | None = None) -> None:
    """Print an evaluation report as rich tables (``table``), each label on one line as TSV
    writes it (``tsv_field``), or one JSON object (``json``)."""
    file = file or sys.stdout
    if fmt == "json":
        print(json.dumps(_finite(report), allow_nan=False), file=file)
        return
    from rich.table import Table

    out = console(file, width=width)
    loss = report["log_loss"]
    # With no document of a class the model knows, there is no log loss to give (null in JSON).
    loss_text = "n/a" if math.isnan(loss) else f"{loss:.4f}"
    # Lines of text are not wrapped to the console's width (80 columns into a file): a grep for
    # one must find all of it.
    out.print(f"accuracy {report['accuracy']:.4f}   macro F1 {report['macro_f1']:.4f}   "
              f"log loss {loss_text}   documents {report['n_documents']:,}", soft_wrap=True)
    if report.get("seen_in_training"):
        out.print(_seen_line(report, "are in the model's training data (the same text)"), soft_wrap=True)
    if report.get("multi_label_texts"):
        texts = report["multi_label_texts"]
        out.print(f"{texts:,} {'text has' if texts == 1 else 'texts have'} more than one label, and each copy is "
                  "scored against its own, so one answer is right for one of them at most: counted right for any "
                  f"of its text's labels, accuracy over the {report['distinct_texts']:,} distinct texts "
                  f"{report['any_label_accuracy']:.4f}", soft_wrap=True)
    if report.get("multi_label"):
        out.print(_multi_label_lines(report["multi_label"]), soft_wrap=True)
    if report["n_unknown_label"]:
        unknown = report["n_unknown_label"]
        named = ", ".join(f"{tsv_field(label)} {n:,}" for label, n in report["unknown_labels"].items())
        out.print(f"{unknown:,} {'document has a label' if unknown == 1 else 'documents have labels'} the model "
                  f"never saw ({named}): counted as errors, left out of the log loss and the calibration",
                  soft_wrap=True)
        for line in label_twins(report["unknown_labels"], report["labels"]):
            out.print(line, soft_wrap=True)
    if "filter" in report:
        judged = report["filter"]
        out.print(f"spam filter ({judged['spam_label']!r} is spam; spam at or above {judged['spam_cutoff']:.4f}, ham "
                  f"below {judged['ham_cutoff']:.4f}): ham lost {judged['ham_false_positives']:,} of "
                  f"{judged['n_ham']:,} ({judged['ham_false_positive_rate']:.2%}), spam caught "
                  f"{judged['spam_caught']:,} of {judged['n_spam']:,} ({judged['spam_recall']:.2%}), unsure "
                  f"{judged['unsure']:,} ({judged['unsure_share']:.2%})", soft_wrap=True)
    table = Table("class", "precision", "recall", "F1", "support", box=None)
    for label, row in report["per_class"].items():
        table.add_row(tsv_field(label), *(f"{row[k]:.4f}" for k in ("precision", "recall", "f1")),
                      f"{row['support']:,}")
    for name in ("macro_avg", "weighted_avg"):
        avg = report[name]
        table.add_row(name.replace("_", " "), *(f"{avg[k]:.4f}" for k in ("precision", "recall", "f1")),
                      f"{report['n_documents']:,}", style="bold")
    _print_whole(out, table)
    _print_whole(out, _confusion_matrix(out, list(map(tsv_field, report["labels"])), report["confusion_matrix"]))
    if report["reliability"]:
        bins = Table("probability", "documents", "mean probability", "accuracy", box=None, title_justify="left",
                     title=f"top-class calibration, ECE {report['ece']:.4f}")
        for row in report["reliability"]:
            bins.add_row(f"{row['low']:.1f}-{row['high']:.1f}", f"{row['documents']:,}", f"{row['confidence']:.4f}",
                         f"{row['accuracy']:.4f}")
        _print_whole(out, bins)


def top_words(top: dict[str, list[tuple[str, float]]], fmt: str, file: IO[str] | None = None,
              *, width: int | None = None, columns: dict[str, dict[str, Any]] | None = None) -> None:
    """Print the words that raise each class: a table, TSV lines or one JSON object; with a
    model's ``columns`` (``Model.column_profile``), the categorical values that raise each class
    after its words (``column=value``), and in the table, each numeric column's mean and spread."""
    file = file or sys.stdout
    if columns:
        top = {label: words + [(f"{name}={value}", lift) for name, values in columns[label]["categorical"].items()
                               for value, lift in values]
               for label, words in top.items()}
    if fmt == "json":
        print(json.dumps({label: [{"word": w, "score": s} for w, s in words] for label, words in top.items()}),
              file=file)
    elif fmt == "tsv":
        for label, words in top.items():
            for rank, (word, score) in enumerate(words, 1):
                print(f"{tsv_field(label)}\t{rank}\t{tsv_field(word)}\t{score:.6f}", file=file)
    else:
        from rich.table import Table

        table = Table("class", "rank", "word", "score", box=None)
        for label, words in top.items():
            for rank, (word, score) in enumerate(words, 1):
                table.add_row(tsv_field(label) if rank == 1 else "", str(rank), word, f"{score:.3f}",
                              end_section=rank == len(words))
        _print_whole(console(file, width=width), table)
        numeric = {label: part["numeric"] for label, part in (columns or {}).items() if part["numeric"]}
        if numeric:
            spread = Table("class", "column", "mean", "std", box=None)
            for label, stats in numeric.items():
                for i, (name, (mean, std)) in enumerate(stats.items()):
                    spread.add_row(tsv_field(label) if i == 0 else "", tsv_field(name), f"{mean:.6g}", f"{std:.6g}",
                                   end_section=i == len(stats) - 1)
            _print_whole(console(file, width=width), spread)


def cv_report(summary: dict[str, Any], fmt: str, *, k: int, seed: int, file: IO[str] | None = None) -> None:
    """Cross-validated figures: mean and standard deviation over the folds."""
    file = file or sys.stdout
    if fmt == "json":
        print(json.dumps(_finite({**summary, "seed": seed})), file=file)
        return
    names = (("accuracy", "accuracy"), ("macro_f1", "macro F1"), ("log_loss", "log loss"), ("micro_f1", "micro F1 of "
             "label sets"))
    figures = "   ".join(f"{name} {summary[key]['mean']:.4f} ± {summary[key]['std']:.4f}"  # eval's words
                         for key, name in names if key in summary)
    folds = f"{k} folds of texts, stratified" if "micro_f1" in summary else f"{k}-fold stratified"
    print(f"{figures}   ({folds}, seed {seed})", file=file)
    if summary.get("filter"):
        judged = summary["filter"]
        print(f"spam filter ({judged['spam_label']!r} is spam; each fold's at its own cut-offs): ham lost "
              f"{judged['ham_false_positives']:,} of {judged['n_ham']:,} ({judged['ham_false_positive_rate']:.2%}), "
              f"spam caught {judged['spam_caught']:,} of {judged['n_spam']:,} ({judged['spam_recall']:.2%}), unsure "
              f"{judged['unsure']:,} ({judged['unsure_share']:.2%})", file=file)
    if summary.get("seen_in_training"):
        print(copies_line(summary), file=file)


def learning_curve(points: list[dict[str, Any]], fmt: str, *, k: int, seed: int, file: IO[str] | None = None) -> None:
    """A learning curve (``evaluation.learning_curve``): a table, or one JSON array."""
    file = file or sys.stdout
    if fmt == "json":
        print(json.dumps([{**point, "folds": k, "seed": seed} for point in points]), file=file)
        return
    from rich.table import Table

    table = Table("share", "documents", "accuracy", "std", "macro F1", "std", box=None, title_justify="left",
                  title=f"learning curve, {k}-fold stratified, seed {seed}")
    for point in points:
        table.add_row(f"{point['share']:.0%}", f"{point['documents']:,.0f}", f"{point['accuracy']['mean']:.4f}",
                      f"{point['accuracy']['std']:.4f}", f"{point['macro_f1']['mean']:.4f}",
                      f"{point['macro_f1']['std']:.4f}")
    _print_whole(console(file), table)


def held_copies_line(held: dict[str, Any]) -> str:
    """How many held-out documents (of ``--test-split``) have the text of one the model is
    trained on, and the accuracy on the others."""
    return _seen_line(held, "held out have the text of one the model is trained on")


def copies_line(summary: dict[str, Any]) -> str:
    """How many documents a cross-validation's folds scored on a copy of their text, and the accuracy on the others."""
    return _seen_line(summary, "were scored by a model trained on the same text (a copy in another fold)")


def _seen_line(report: dict[str, Any], were: str) -> str:
    """How many documents were scored by a model trained on their text, and the accuracy on the others."""
    seen, unseen = report["seen_in_training"], report["n_documents"] - report["seen_in_training"]
    rest = f": accuracy on the other {unseen:,} {report['unseen_accuracy']:.4f}" if unseen else ""
    return f"{seen:,} of the {report['n_documents']:,} documents {were}{rest}"


#: The flags whose off side is not --no-NAME.
_OFF_FLAGS = {"fit_prior": "--uniform-prior"}


def describe(settings: dict[str, Any]) -> str:
    """A setting as the command-line options of `nbtext train` that give it.

    >>> describe({"variant": "complement", "ngram_range": (1, 2), "idf": False, "fit_prior": False})
    '--variant complement --ngram-range 1,2 --no-idf --uniform-prior'
    """
    parts = []
    for key, value in settings.items():
        if key in ("numeric_columns", "categorical_columns") and not value:  # a setting without them
            continue
        if key in ("ngram_range", "char_ngrams") and value:
            value = ",".join(map(str, value))
        if value is None:
            value = "none"
        if isinstance(value, bool):
            name = key.replace("_", "-")
            parts.append(f"--{name}" if value else _OFF_FLAGS.get(key, f"--no-{name}"))
        else:
            parts.append(f"--{key.replace('_', '-')} {shlex.quote(str(value))}")  # a column or label with a space
    return " ".join(parts)


def leaderboard(trials: list, metric: str, fmt: str = "table", *, total: int, file: IO[str] | None = None,
                width: int | None = None) -> None:
    """The best settings of a search, best first, with mean and spread over the folds: a table,
    TSV lines (rank, mean, std, seconds, options) or one JSON array, each setting there both
    as its values and as the options of `nbtext train` that give it."""
    file = file or sys.stdout
    if fmt == "json":
        print(json.dumps([{"rank": rank, "metric": metric, "mean": trial.mean, "std": trial.std,
                           "seconds": trial.seconds, "settings": trial.settings, "options": describe(trial.settings)}
                          for rank, trial in enumerate(trials, 1)]), file=file)
        return
    if fmt == "tsv":
        for rank, trial in enumerate(trials, 1):
            print(f"{rank}\t{trial.mean:.6f}\t{trial.std:.6f}\t{trial.seconds:.3f}\t{describe(trial.settings)}",
                  file=file)
        return
    from rich.table import Table

    table = Table("rank", f"{metric} mean", "std", "seconds", "settings", box=None,
                  title=f"best {len(trials)} of {total} settings", title_justify="left")
    for rank, trial in enumerate(trials, 1):
        table.add_row(str(rank), f"{trial.mean:.4f}", f"{trial.std:.4f}", f"{trial.seconds:.2f}",
                      describe(trial.settings))
    _print_whole(console(file, width=width), table)


#: The most classes shown as a confusion matrix (R52 has 52); with more, its table would be
#: unreadable and take minutes to lay out (a label column mistaken for ids: one class a row).
MATRIX_CLASSES = 60
#: How many of the most frequent confusions are listed instead.
TOP_CONFUSIONS = 20


def _confusion_matrix(out, labels: list[str], counts: list[list[int]]):
    """The confusion matrix, rows the true class: columns named by their classes when that fits
    the console, else numbered as the rows are (as Weka does), so that no name is cut short.
    Past MATRIX_CLASSES classes, the most frequent confusions instead."""
    from rich.table import Table

    if len(labels) > MATRIX_CLASSES:
        return _top_confusions(labels, counts)

    cells = _shaded(counts)
    named = Table("true \\ predicted", *labels, box=None, title="confusion matrix", title_justify="left")
    for label, row in zip(labels, cells):
        named.add_row(label, *row)
    if _natural_width(out, named) <= out.width:
        return named
    numbered = Table("true \\ predicted", *map(str, range(1, len(labels) + 1)), box=None, title_justify="left",
                     title="confusion matrix (columns: the predicted class, numbered as the rows)")
    digits = len(str(len(labels)))
    for number, (label, row) in enumerate(zip(labels, cells), 1):
        numbered.add_row(f"{number:>{digits}} {label}", *row)
    return numbered


def _shaded(counts: list[list[int]]) -> list[list[Any]]:
    """The matrix's cells as text, shaded on a terminal by their share of the row (the true
    class's documents), so that where the mistakes are shows at a glance: the diagonal green,
    a confusion red, the more of the row it takes, the stronger. In a pipe, plain text."""
    from rich.text import Text

    out = []
    for i, row in enumerate(counts):
        total = max(sum(row), 1)
        cells = []
        for j, n in enumerate(row):
            share = n / total
            style = ("green" if i == j else "bold white on red" if share >= 0.1 else "red" if share >= 0.02
                     else "") if n else "dim"
            cells.append(Text(str(n) if n else ".", style=style))
        out.append(cells)
    return out


def _top_confusions(labels: list[str], counts: list[list[int]]):
    """The TOP_CONFUSIONS largest cells off the diagonal, largest first (ties by true class)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    matrix = np.asarray(counts)
    np.fill_diagonal(matrix, 0)
    rows, columns = np.nonzero(matrix)
    order = np.lexsort((columns, rows, -matrix[rows, columns]))[:TOP_CONFUSIONS]
    table = Table("true", "predicted", "documents", box=None)
    for i in order:
        table.add_row(labels[rows[i]], labels[columns[i]], f"{matrix[rows[i], columns[i]]:,}")
    title = (f"most frequent confusions ({len(labels):,} classes, too many for a confusion matrix; --format json "
             "has it whole)")
    return Group(Text(title, style="italic"), table)


def _natural_width(out, table) -> int:
    return out.measure(table, options=out.options.update(max_width=1 << 20)).maximum


def _print_whole(out, table) -> None:
    """Print ``table`` whole: where the console is narrower than it (80 columns, when writing to
    a file), widen the console rather than cut names and counts to an ellipsis. On a terminal a
    longer line wraps, but keeps every character."""
    width = out.width
    out.width = max(width, _natural_width(out, table))
    try:
        out.print(table)
    finally:
        out.width = width


def _finite(value: Any) -> Any:
    """``value`` with NaN (an undefined figure) as None, since JSON has no NaN."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
