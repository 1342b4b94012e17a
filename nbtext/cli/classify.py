"""predict and filter: the commands that answer documents with a model, line by line."""

from __future__ import annotations

import contextlib
import functools
import sys
import traceback
from collections.abc import Iterable
from typing import Any

import click

from .. import render
from ..answers import UNSURE, predicted_lines, verdict_line, verdict_lines
from ..errors import EXIT_FILTER_ERROR, EXIT_SOME_UNSURE, NbtextError
from ..filtering import Message, judge_message, messages, one_message, with_filter
from ..inputs import remembered_columns, trained_format
from ..model import Model
from ..readers import MAIL_FORMATS, ReadReport, iter_unlabelled
from ..scoring import in_order
from ..spam import SpamFilter
from . import process
from .common import note_tables_read_whole, print_read_report
from .flags import flag_of
from .options import (FiniteRange, column_options, columns_of, cutoff_options, encoding_option, format_option,
                      jobs_option, model_argument, size_option, top_option)


@click.command()
@model_argument
@click.argument("paths", nargs=-1, metavar="[PATH...|-]")
@click.option("--proba", is_flag=True, help="Also print the probability of each printed label (for a spam "
              "filter, the calibrated score nbtext filter gives).")
@top_option(1, "Print the N most probable labels, best first.", "--top-k")
@click.option("--threshold", type=FiniteRange(0, 1, min_open=True), metavar="P",
              help="Print only labels of probability P or more; a document with none is answered 'unsure' "
                   "(null in JSON), and predict exits 4 once all are answered: route those to a person. "
                   "Naive Bayes is overconfident: threshold a model trained with --calibrate.")
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
              help="Score files, folders and table rows on a Dask cluster (tcp://HOST:8786, or local[:N]); "
                   "the workers must see the paths, or read them as URLs (s3://...). Needs nbtext[dask].")
@jobs_option(1, "Score in N processes, for batch jobs: answers still come in input order, but in blocks of "
                "about 1,000 documents, so a line that trickles in on stdin waits for its block. 1 by default, "
                "unlike train, so that each answer comes as soon as its document is read; with 1, a large batch "
                "is still scored on every core, by threads.")
def predict(model_path, paths, proba, top, threshold, explain, fmt, encoding, max_document_size, input_format,
            verbose, text_column, id_column, dask_address, jobs) -> None:
    """Classify documents with MODEL, one output line per document, in input order.

    A PATH that is a file is one document; a folder is walked. With - or no PATH, each line
    of stdin is one document (for a model trained on mail, stdin is one message, or each
    message of an mbox). Lines are PATH<TAB>LABEL for files and LABEL for stdin lines;
    --proba adds each label's probability, --top the next best labels (a backslash, tab,
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
      cat messages.txt | nbtext predict tickets.joblib --proba --top 2
      echo "my parcel never arrived" | nbtext predict tickets.joblib --explain 3
      nbtext predict news.joblib /shared/crawl/ --jobs 8 > labels.tsv
      nbtext predict news.joblib /shared/crawl/ --dask tcp://scheduler:8786 > labels.tsv
      nbtext predict calibrated.joblib inbox/ --threshold 0.9 | grep -P '\tunsure$'   # for a person
    """
    model = Model.load(model_path)
    if threshold is not None and UNSURE in model.classes:
        raise click.UsageError(f"--threshold answers '{UNSURE}' where no label is probable enough, and "
                               f"{model_path} has a class '{UNSURE}'")
    k = min(top, len(model.classes))
    if k < top:  # fewer labels a line than asked for, said once rather than left to puzzle a script
        click.echo(f"--top {top}: the model has {k} classes, so each answer gives all {k}", err=True)
    report = ReadReport()
    input_format = input_format or trained_format(model)
    columns = remembered_columns(model, paths, columns_of(text_column, None, id_column))
    if columns is None:
        note_tables_read_whole(paths)
    answer = functools.partial(predicted_lines, k=k, proba=proba, explain=explain, fmt=fmt, threshold=threshold)
    if dask_address:
        # Here, not at the top: the cluster module brings training's, 15 ms of every predict's start-up.
        from ..cluster import connect, predict_on_cluster

        with connect(dask_address) as client:
            answers = predict_on_cluster(client, model, paths, report, mail=input_format in MAIL_FORMATS,
                                         encoding=encoding, format_batch=functools.partial(answer, from_stdin=False),
                                         limit=max_document_size, columns=columns, input_format=input_format)
            _write_answers(answers, "documents", report)
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
        answers = in_order(batches, answer, model=model, model_path=model_path, jobs=jobs)
        with contextlib.closing(answers):  # on a closed pipe, stop the workers before exiting
            _write_answers(answers, "documents", report)
    print_read_report(report, verbose, encoding, always=False, empty=model.empty_answer)
    report.check_all_read()  # a file named that was skipped: an error, once the others are answered
    if report.unsure:
        click.get_current_context().exit(EXIT_SOME_UNSURE)


def _write_answers(answers: Iterable[tuple[str, ReadReport]], unit: str, report: ReadReport) -> None:
    """Write each block of answers to stdout as soon as it comes, and count them (one line a
    document) on a terminal's stderr while stdout goes to a file or a pipe. Each block comes
    with what its scorer saw, for ``report``: the documents in which the model knows no word,
    and what it read where it parsed them (a worker's mail)."""
    with render.progress(None, "scoring", unit=unit, beside_answers=True) as advance:
        for text, seen in answers:
            sys.stdout.write(text)
            sys.stdout.flush()
            advance(text.count("\n"))
            report.update(seen)


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
            process.quiet_pipe()
        except (NbtextError, OSError) as error:
            if isinstance(error, OSError):
                error = process.output_lost(error) or error
            message = error.spoken(flag_of) if isinstance(error, NbtextError) else str(error)
            raise _filter_error(click.ClickException(message)) from None
        except click.ClickException as error:
            raise _filter_error(error)
        except (click.exceptions.Exit, click.exceptions.Abort):  # the verdict's exit status; Ctrl-C
            raise
        except Exception:  # a bug: its traceback is shown, but a mail rule must read 3 (error), not 1 (ham)
            traceback.print_exc()
            raise click.exceptions.Exit(EXIT_FILTER_ERROR) from None


def _filter_error(error: click.ClickException) -> click.ClickException:
    """``error`` with the filter's exit status for errors."""
    error.exit_code = EXIT_FILTER_ERROR
    return error


@click.command("filter", cls=_FilterCommand)
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
@jobs_option(1, "Many messages: read and score them in N processes, for nightly batch jobs; the lines still "
                "come in order, in blocks of about 1,000 messages. 1 by default, as predict: each line comes as "
                "soon as its message is read.")
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
    if source == "-" and sys.stdin is not None and sys.stdin.isatty():  # not left waiting unsaid
        click.echo("reading one message from the terminal; Ctrl-D ends", err=True)
    with one_message(source, max_document_size) as message:
        if message is not None:
            try:
                if explain and quiet:
                    raise click.UsageError("--explain adds words to the verdict line, which --quiet does not print")
                judged = judge_message(model_path, message, spam_cutoff=spam_cutoff, ham_cutoff=ham_cutoff,
                                       explain=explain, passthrough=passthrough, max_document_bytes=max_document_size)
            except Exception:  # an error, or a bug in reading this message: either way it must not be lost
                if passthrough:
                    _pass_unchanged(message)
                raise
            if judged.passed is not None:
                sys.stdout.buffer.write(judged.passed)
                sys.stdout.buffer.flush()
            elif not quiet:
                click.echo(verdict_line(source, judged.verdict, judged.score, judged.why))
            # an empty message, say: why its verdict
            _print_filter_report(judged.report, judged.spam_filter, judged.model, verbose)
            click.get_current_context().exit(0 if exit_zero else judged.verdict)
    if explain and quiet:
        raise click.UsageError("--explain adds words to the verdict line, which --quiet does not print")
    model = Model.load(model_path)
    state = with_filter(model, spam_cutoff=spam_cutoff, ham_cutoff=ham_cutoff)
    if passthrough:
        raise click.UsageError("--passthrough is for one message (a file or stdin)")
    report = ReadReport()
    batches = messages(source, model, report, max_document_bytes=max_document_size, parse_apart=jobs > 1)
    answers = in_order(batches, functools.partial(verdict_lines, explain=explain), model=model, model_path=model_path,
                       jobs=jobs, state_of=functools.partial(with_filter, spam_cutoff=spam_cutoff,
                                                             ham_cutoff=ham_cutoff))
    with contextlib.closing(answers):  # on a closed pipe, stop the workers before exiting
        _write_answers(answers, "messages", report)
    _print_filter_report(report, state[1], model, verbose)
    report.check_all_read()


def _pass_unchanged(message: Message) -> None:
    """--passthrough on an error: the message goes on unchanged, and the part of it past the
    cap as it comes, so that nothing is lost."""
    sys.stdout.buffer.write(message.raw)
    if message.rest is not None:
        while chunk := message.rest.read(1 << 16):  # not shutil's copy: shutil imports lzma, 1 ms a message
            sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()


def _print_filter_report(report: ReadReport, spam_filter: SpamFilter, model: Model, verbose: bool) -> None:
    """filter's read report, where it has more to say than how many messages were read: the
    messages that were empty or had no word the model knows, and what the filter made of them."""
    empty = ""
    if report.empty or report.no_known_word:  # what the filter makes of a message with no words, its way
        empty = spam_filter.empty_answer(model)
    print_read_report(report, verbose, "utf-8", always=False, empty=empty)
