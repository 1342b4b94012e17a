"""learn: teach a filter from corrections."""

from __future__ import annotations

import click

from ..learning import learn as learn_messages
from ..readers import ReadReport
from .common import each_once, print_read_report, repeats_line, reported_on_error
from .options import model_argument, size_option


@click.command(context_settings={"ignore_unknown_options": True})
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
    if model_path in ("--spam", "--ham"):
        raise click.UsageError("the model file comes first: nbtext learn MODEL --spam|--ham PATH...")
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
    each_once([path for paths in groups.values() for path in paths],
              f"its messages would be {'unlearned' if unlearn else 'learned'} twice")
    report = ReadReport()
    with reported_on_error(report, verbose):
        learned = learn_messages(model_path, groups, unlearn=unlearn, report=report,
                                 max_document_bytes=max_document_size)
    if learned.model is None:  # a quiet night's .Junk/new: a nightly job that learns it must not fail for that
        given = ", ".join(path for paths in groups.values() for path in paths)
        click.echo(f"nothing to {'unlearn' if unlearn else 'learn'}: no message in {given}; {model_path} is "
                   "unchanged", err=True)
        return
    print_read_report(report, verbose, "utf-8", always=False)
    verb = "unlearned" if unlearn else "learned"
    counts = ", ".join(f"{n:,} {kind}" for kind, n in learned.counts.items())
    click.echo(f"{verb} {counts} -> {model_path} ({len(learned.model.terms):,} terms)", err=True)
    if learned.repeats:  # a message learned twice counts twice, as bogofilter counts it: said, as merge says it
        click.echo(repeats_line(learned.repeats, sum(learned.counts.values()), model_path, "messages", "learned"),
                   err=True)
