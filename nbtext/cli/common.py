"""What the command bodies share: checks of the paths a command is given, and the accounts of
reading printed on stderr.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator

import click

from ..errors import NbtextError
from ..model import Model
from ..phrasing import plural
from ..readers import ReadReport, table_kind
from ..readers.report import KEPT_EMPTY
from ..render import tsv_field
from .flags import flag_of


def each_once(paths: Iterable[str], why: str) -> None:
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


def not_over_the_data(output: str, data: Iterable[str], option: str = "-o", what: str = "the model") -> None:
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


def print_read_report(report: ReadReport, verbose: bool, encoding: str, *, always: bool = True,
                      empty: str = KEPT_EMPTY) -> None:
    """The read report on stderr; ``empty``: what became of the empty documents (a classifier's
    answer to them). Where it is printed only if it has more to say than ``always`` would,
    before an error, the repeated texts are left out: they explain no error."""
    lines = report.lines(verbose=verbose, encoding=encoding, empty=empty, repeats=always, name_of=flag_of)
    if always or len(lines) > 1:
        click.echo("\n".join(lines), err=True)


def print_classes(report: ReadReport, folds: int) -> None:
    """The classes read and their sizes, on one line: a search or a cross-validation shows no
    model summary, and a folder given one level too high (parts, or train/ and test/) shows here.
    Then the classes of one document: the fold that tests it trains without it; and those of
    fewer documents than folds, which some folds do not test. Nothing where no document was
    read: the cross-validation says so."""
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
def reported_on_error(report: ReadReport, verbose: bool, encoding: str = "utf-8", *,
                      empty: str = KEPT_EMPTY) -> Iterator[None]:
    """On an error, first show what was skipped or mended in reading, if anything: "no documents
    to train on" alone hides that the files sat outside any class folder; the report names it."""
    try:
        yield
    except NbtextError:
        print_read_report(report, verbose, encoding, always=False, empty=empty)
        raise


def note_tables_read_whole(paths: Iterable[str]) -> None:
    """A table given to predict without a text column is one document, as any file is: say so,
    since classifying its rows was more likely meant."""
    for path in paths:
        if table_kind(path) and os.path.isfile(path):
            click.echo(f"{path}: read as one document, as any file is; --text-column NAME classifies its rows "
                       "one by one", err=True)


def repeats_line(repeats: int, total: int, model_path: str, things: str, verb: str) -> str:
    """What to say where ``repeats`` of the ``total`` documents ``verb`` to a model were in it already."""
    return (f"{repeats:,} of the {total:,} {things} {verb} {'is' if repeats == 1 else 'are'} in {model_path} already "
            f"(the same text): {'it' if repeats == 1 else 'each'} now counts twice, as two documents would")


def usage(message: str) -> None:
    raise click.UsageError(message)


def note_kept_measurements(model: Model, source: str, data: str) -> None:
    """Say that ``model``'s filter score and cut-offs, or its calibration, are still ``source``'s:
    measured by cross-validation on its documents, which a merge or an update does not have."""
    kept = [what for what, key in (("spam filter's score and cut-offs", "spam"), ("calibration", "calibration"))
            if model.settings[key]]
    if kept:
        verb, them = ("is", "it") if kept == ["calibration"] else ("are", "them")
        click.echo(f"the {' and '.join(kept)} {verb} {source}'s, measured on its documents alone, not on {data}; "
                   f"train on all of it to measure {them} again", err=True)
