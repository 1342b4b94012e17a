"""train, merge and tune: the commands that write a model."""

from __future__ import annotations

import time
from typing import Any

import click

from .. import render
from ..cluster import connect, train_on_cluster
from ..errors import DataError, NbtextError
from ..inputs import corpus_for, training_corpus
from ..model import Model
from ..modelfile import unsafe_output
from ..parallel import read_all
from ..phrasing import plural
from ..readers import Document, ReadReport
from ..readers.files import is_pipe
from ..semisupervised import (EM_DEFAULTS, EM_ITERATIONS, EM_WEIGHT, em_analyzer, em_settings, em_weighting,
                              train_semisupervised, tune_em, unlabelled_documents)
from ..spam_training import makes_a_filter, train_mail
from ..training import DEFAULT_ANALYZER, merge_files, train_calibrated, train_held_out, update_file
from ..training import train as train_model
from ..tuning import EM_GRID, expand, read_grid
from ..tuning import tune as tune_settings
from .common import (each_once, not_over_the_data, note_kept_measurements, print_classes, print_read_report,
                     repeats_line, reported_on_error)
from .flags import flag_of
from .options import (ANALYZER_OPTIONS, FiniteRange, OutputPath, analyzer_options, document_frequency, format_option,
                      given_options, input_options, jobs_option, labelled_columns, nb_options, spam_options,
                      top_option, value_column_options)
from .options import PlotPath
from .setup import filter_options, training_setup


@click.command()
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
                   "processes here). Workers read DATA themselves: it must be on a filesystem they all see, or "
                   "a URL (s3://...). Folders of class folders, line files and tables; needs nbtext[dask].")
@click.option("--calibrate", is_flag=True,
              help="Fit a temperature on 5-fold out-of-fold predictions so that the probabilities can be "
                   "thresholded (of documents given 0.8, about 8 in 10 are right); predictions do not change. "
                   "DATA is held in memory.")
@jobs_option(None, "Count in N processes: this one and N-1 workers, which read folders' files themselves; the "
                   "model is the same bit for bit. Default: one per core, with workers starting only past 64 MB "
                   "of documents, below which one process (with threads for reading and finding tokens) is as "
                   "fast; from the start where Python makes each feature (character n-grams, where the "
                   "compiled scanner was not built).")
@click.option("--unlabelled", "unlabelled_paths", multiple=True, metavar="PATH",
              help="Learn from these unlabelled documents too, by EM (Nigam et al. 2000), read as predict reads "
                   "them: a file is one document, a folder's files at any depth, - stdin's lines. Unless set, "
                   "the model is then Multinomial NB over words without English stop words (--variant "
                   "multinomial --ngram-range 1,1 --stop-words english --tf raw --alpha 0.01 --min-df 2). "
                   "Repeatable.")
@click.option("--em-weight", type=FiniteRange(0, 1, min_open=True), default=EM_WEIGHT, show_default=True,
              help="Weight of an unlabelled document beside a labelled one in EM.")
@click.option("--em-iterations", type=click.IntRange(0, 1000), default=EM_ITERATIONS, show_default=True,
              help="The most EM steps; EM stops sooner once the log-likelihood stops rising.")
@spam_options
@nb_options
@analyzer_options
@input_options
@value_column_options[0]
@value_column_options[1]
@click.pass_context
def train(ctx, data, output, update_path, test_split, seed, dask_address, calibrate, jobs, unlabelled_paths,
          em_weight, em_iterations, spam_label, spam_cutoff, ham_cutoff, fp_target, combining, numeric_columns,
          categorical_columns, **options) -> None:
    """Train a model on labelled DATA and write it to MODEL.

    DATA is a folder with one subfolder per class (DIR/LABEL/**/FILE, one file per document),
    or a file with one labelled document per line: TSV (LABEL<TAB>TEXT), JSONL
    ({"label": ..., "text": ...}) or fastText (__label__LABEL TEXT); - reads such lines
    from stdin. Several DATA are read in turn.

    With --update MODEL, DATA is added to an existing model: the result equals training on
    the old and the new data at once (the model keeps its analyzer; NB options given here
    replace the model's).

    Tables (CSV, TSV, JSONL) may have columns of numbers and of categories beside the text:
    --numeric-columns and --categorical-columns learn them too, in one model (Gaussian and
    Categorical NB, with the text's scores and one class prior); without a text column, the
    model is made of them alone.

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
      nbtext train tickets.csv --numeric-columns age --categorical-columns product,tier -o tickets.joblib
      nbtext train few-labelled/ --unlabelled archive/ -o news.joblib   # EM
    """
    given = given_options(ctx)
    if unlabelled_paths:
        others = [flag for flag, on in (("--update", update_path), ("--test-split", test_split is not None),
                                        ("--dask", dask_address), ("--calibrate", calibrate),
                                        ("--spam-label", "spam_label" in given),
                                        ("--numeric-columns", numeric_columns or categorical_columns)) if on]
        if others:
            raise click.UsageError(f"--unlabelled trains a new plain model by EM; it does not go with {others[0]}")
        options.update({name: value for name, value in EM_DEFAULTS.items() if name not in given})
    elif given & {"em_weight", "em_iterations"}:
        raise click.UsageError("--em-weight and --em-iterations are for EM: add --unlabelled PATH")
    analyzer, weighting, settings = training_setup(options)
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
        unsafe = unsafe_output(output)
        if unsafe is not None:
            raise click.UsageError(f"--update {output} is {unsafe}")
        if numeric_columns or categorical_columns:
            raise click.UsageError("--update reads the model's own numeric and categorical columns; drop "
                                   "--numeric-columns and --categorical-columns")
        base = Model.load(update_path)
        settings = {name: value for name, value in settings.items() if name in given}
    not_over_the_data(output, data)
    each_once(data, "its documents would be read twice")
    reading = {"input_format": options["input_format"], "encoding": options["encoding"],
               "max_document_bytes": options["max_document_size"],
               "columns": labelled_columns(options, numeric_columns, categorical_columns)}
    if (numeric_columns or categorical_columns) and (calibrate or "spam_label" in given):
        raise click.UsageError("numeric and categorical columns are learnt by plain training, --test-split, "
                               "--update and --dask; not yet with --calibrate or --spam-label")
    if base is None:
        corpus, analyzer = training_corpus(data, analyzer, headers=options["headers"], **reading)
    else:  # the model's analyzer, headers and all, and the format and columns it was trained on
        corpus = corpus_for(base, data, **reading)
    if dask_address is not None and (base is not None or test_split is not None or "spam_label" in given):
        raise click.UsageError("--dask trains a new plain model: it does not go with --update, --test-split "
                               "or --spam-label")
    if calibrate and (base is not None or dask_address is not None or test_split is not None or "spam_label" in given):
        raise click.UsageError("--calibrate trains a new plain model: not with --update, --dask or --test-split, "
                               "nor with --spam-label (a filter's score is calibrated already)")
    as_filter = (dask_address is None and base is None and test_split is None and not calibrate
                 and ("spam_label" in given or corpus.is_mail))
    if not as_filter and given & {"spam_cutoff", "ham_cutoff", "fp_target", "combining"}:
        raise click.UsageError("--spam-cutoff, --ham-cutoff, --fp-target and --combining are for spam filters: add "
                               "--spam-label")
    if spam_cutoff is not None and ham_cutoff is not None and ham_cutoff > spam_cutoff:  # before a long read
        raise click.UsageError(f"the ham cut-off ({ham_cutoff}) is above the spam cut-off ({spam_cutoff})")
    held = None
    with reported_on_error(corpus.report, options["verbose"], corpus.encoding), \
         render.progress(corpus.total_bytes, "reading") as advance:
        started = time.perf_counter()
        if dask_address is not None:
            with connect(dask_address) as client:
                model = train_on_cluster(client, corpus, analyzer=analyzer, settings=settings, on_shard=advance,
                                         **weighting)
        elif base is not None:
            update = update_file(update_path, corpus.read(progress=advance), base=base, output=output,
                                 settings=settings, jobs=jobs)
            model = update.model
        elif as_filter:  # a filter where the mail has a spam class (or --spam-label asks for one)
            filter_analyzer, as_filter_options = filter_options(analyzer, weighting, settings, given)
            model = train_mail(corpus.read(progress=advance), label=spam_label, required="spam_label" in given,
                               seed=seed, jobs=jobs,
                               plain={"analyzer": analyzer, "settings": settings, "jobs": jobs, **weighting},
                               as_filter={"analyzer": filter_analyzer, "fp_target": fp_target, "combining": combining,
                                          "spam_cutoff": spam_cutoff, "ham_cutoff": ham_cutoff, **as_filter_options})
        elif unlabelled_paths:
            model, unlabelled_report = _train_by_em(corpus, unlabelled_paths, options, advance, analyzer=analyzer,
                                                    settings=settings, weight=em_weight, iterations=em_iterations,
                                                    **weighting)
        elif calibrate:
            model = train_calibrated(corpus.read(progress=advance), analyzer=analyzer, settings=settings, seed=seed,
                                     **weighting)
        elif test_split is None:
            model = train_model(corpus.read(progress=advance), analyzer=analyzer, settings=settings, jobs=jobs,
                                **weighting)
        else:
            model, held = train_held_out(corpus.read(progress=advance), fraction=test_split, seed=seed,
                                         analyzer=analyzer, settings=settings, **weighting)
        seconds = time.perf_counter() - started
    if base is None:
        model.save(output)
    print_read_report(corpus.report, options["verbose"], corpus.encoding)
    if unlabelled_paths:
        _print_unlabelled(unlabelled_report, options, corpus.encoding)
        click.echo(render.em_lines(model), err=True)
    render.train_summary(model, output, seconds)
    if base is not None:
        if update.repeats:
            click.echo(repeats_line(update.repeats, len(corpus.report.texts), update_path, "documents", "added"),
                       err=True)
        before = update.before
        # A misnamed folder (Spam/ beside spam/) would otherwise pass as a new class unnoticed.
        if added := [label for label in model.classes if label not in before.classes]:
            click.echo(f"new {plural(len(added), 'class')} from this update: {', '.join(added)} "
                       f"(the model had {', '.join(before.classes)})", err=True)
            for line in render.label_twins(added, before.classes):
                click.echo(line, err=True)
        note_kept_measurements(model, update_path, "the documents this update adds")
    if held is not None:
        held_out = f"{held['n_documents']:,} {plural(held['n_documents'], 'document')}"
        click.echo(f"held-out accuracy {held['accuracy']:.4f}, macro F1 {held['macro_f1']:.4f} on {held_out} "
                   f"({test_split:.0%}, seed {seed}); the model is trained on the rest", err=True)
        if held["seen_in_training"]:
            click.echo(render.held_copies_line(held), err=True)
        if untested := render.untested_classes(model.summary["held_out"]):
            click.echo(untested, err=True)


@click.command()
@click.argument("models", nargs=-1, required=True, metavar="MODEL...")
@click.option("-o", "--output", required=True, type=OutputPath(), help="Model file to write.")
@click.option("--min-df", callback=document_frequency, help="Prune again after merging (default: the first model's).")
@click.option("--max-df", callback=document_frequency, help="Prune again after merging (default: the first model's).")
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
    settings = {name: value for name, value in
                {"min_df": min_df, "max_df": max_df, "max_features": max_features}.items() if value is not None}
    each_once(models, "its counts would be added twice")
    started = time.perf_counter()
    merged = merge_files(models, output, settings=settings)
    render.train_summary(merged.model, output, time.perf_counter() - started, verb="merged")
    if merged.only_in:
        click.echo("classes not in every model: " + "; ".join(f"{', '.join(labels)} (only in {', '.join(holders)})"
                                                              for holders, labels in merged.only_in), err=True)
        for line in render.label_twins([label for _, labels in merged.only_in for label in labels],
                                       merged.model.classes, ""):
            click.echo(line, err=True)
    for path, other, data in merged.trained_twice:
        click.echo(f"{path} and {other} were both trained on {data}: if it held the same documents both times, "
                   "they count twice", err=True)
    for path, theirs, chosen in merged.other_settings:
        click.echo(f"{path} was trained with {render.describe(theirs)}; the merged model has {models[0]}'s "
                   f"{render.describe(chosen)}", err=True)
    note_kept_measurements(merged.model, models[0], "the merged data")


@click.command()
@click.argument("data", nargs=-1, required=True)
@click.option("-o", "--output", required=True, type=OutputPath(), help="Best model, trained on all DATA.")
@click.option("--cv", type=click.IntRange(min=2), default=3, show_default=True,  # tuning.DEFAULT_FOLDS, unimported
              help="Folds of the search.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the folds.")
@click.option("--grid", metavar="JSON|FILE",
              help='Settings to search, as JSON or a JSON file: {"alpha": [0.1, 1], "variant": ["complement"]}. '
                   "Keys: variant, alpha, analyzer, ngram_range, char_ngrams, tokens, tf, doc_norm, idf, norm, "
                   "min_df, max_df, fit_prior, columns (as train's options: true or false for a flag, [1, 2] for a "
                   'range; columns: lists of --numeric-columns and --categorical-columns to try, [["size"], []]).')
@click.option("--metric", type=click.Choice(["accuracy", "macro_f1", "micro_f1"]),
              help="What the search maximises: accuracy (the default), macro F1, or the micro F1 of label sets (the "
                   "default where texts come with several labels; eval's, at its threshold).")
@top_option(10, "Leaderboard rows shown.")
@format_option("table", "tsv", "json", piped="tsv")
@click.option("--plot", "plot_path", type=PlotPath(), metavar="FILE",
              help="Also draw the search to FILE (.svg, .png or .pdf): for each setting the grid varies, every "
                   "setting's score by its value, the best at each value joined. Needs nbtext[plot].")
@click.option("--unlabelled", "unlabelled_paths", multiple=True, metavar="PATH",
              help="Search EM's settings over these unlabelled documents too (read as train --unlabelled reads "
                   f"them); the default grid is then the EM weight, {EM_GRID['em_weight']}. Repeatable.")
@input_options
@value_column_options[0]
@value_column_options[1]
def tune(data, output, cv, seed, grid, metric, top, fmt, plot_path, numeric_columns, categorical_columns,
         unlabelled_paths, **options) -> None:
    """Search settings by cross-validation, show a leaderboard, save the best model.

    Every combination of the grid is scored by stratified K-fold cross-validation (documents
    are analyzed and counted once per analyzer, every weighting's sums in one pass). The best
    setting is then trained on all of DATA and written to MODEL, and stderr's last line is
    the nbtext train command that makes the same model, every option spelled out. Settings a
    --grid leaves out are train's defaults: {"alpha": [0.1, 1]} tries two alphas for the model
    nbtext train would make. The default grid covers variant x alpha x Rennie's transforms x
    min_df on uni+bigrams of words of two or more letters (128 settings), the search whose
    nested scores the accuracy docs give; "tokens": ["words", "all-words"] in --grid also
    tries train's default tokens, which keep one-letter words. The same --seed gives the same result.

    With --numeric-columns or --categorical-columns, every setting is tried with those columns
    and without them, to tell whether they help; "columns": [["size"], []] in --grid chooses
    which to try.

    Where texts come with several labels (a file in several class folders, a fastText line
    of several __label__s), the folds are of texts, a text's copies together, and settings
    are ranked by the micro F1 of the label sets, as eval scores them.

    With --unlabelled, each fold's model is made by EM of the other folds' labelled documents
    and every unlabelled one (train --unlabelled's model), and the grid searches the EM
    weight (em_weight), em_iterations, and the model's variant, alpha, idf, norm, min_df,
    max_df and fit_prior.

    \b
    Example:
      nbtext tune corpora/support-tickets/train -o best.joblib
      nbtext tune sms.tsv -o best.joblib --grid '{"alpha": [0.1, 0.3], "variant": ["complement"]}'
      nbtext tune reviews/ -o best.joblib --grid '{"char_ngrams": [null, [2, 5]], "alpha": [0.3, 1]}'
      nbtext tune corpora/support-tickets/train -o best.joblib --format json | jq -r '.[0].options'
      nbtext tune mail.csv -o best.joblib --numeric-columns log_size --categorical-columns mailer
      nbtext tune few-labelled/ --unlabelled archive/ -o news.joblib   # the EM weight
    """
    if unlabelled_paths and (numeric_columns or categorical_columns):
        raise click.UsageError("--unlabelled learns from text alone; it does not go with --numeric-columns or "
                               "--categorical-columns")
    try:
        candidates = expand(read_grid(grid, unlabelled=bool(unlabelled_paths)), numeric_columns, categorical_columns)
    except DataError as error:
        raise click.BadParameter(error.spoken(flag_of), param_hint="--grid") from None
    if plot_path is not None:  # before the reading: a missing matplotlib is known now
        from ..plots import check_plot_path

        try:
            check_plot_path(plot_path)
        except NbtextError as error:
            raise click.BadParameter(str(error), param_hint="--plot") from None
    not_over_the_data(output, data)
    each_once(data, "its documents would be read twice")
    columns = labelled_columns(options, numeric_columns, categorical_columns)
    # mail: the header tokens train adds
    corpus, base = training_corpus(data, em_analyzer() if unlabelled_paths else DEFAULT_ANALYZER,
                                   input_format=options["input_format"], encoding=options["encoding"],
                                   max_document_bytes=options["max_document_size"], columns=columns)
    with reported_on_error(corpus.report, options["verbose"], corpus.encoding), \
         render.progress(corpus.total_bytes, "reading") as advance:
        documents = read_all(corpus.read(progress=advance))
    print_read_report(corpus.report, options["verbose"], corpus.encoding)
    if unlabelled_paths:
        unlabelled, report = _read_unlabelled(corpus, unlabelled_paths, options)
        _print_unlabelled(report, options, corpus.encoding)
    print_classes(corpus.report, cv)
    several = corpus.report.repeated()[1]  # texts of several labels: scored, and said by info, as sets
    metric = metric or ("micro_f1" if several else "accuracy")
    summary = {**corpus.summary, **({"several_labels": several} if several else {})}
    with render.progress(len(candidates) * cv, "tuning", unit="fits") as advance:
        if unlabelled_paths:
            tuned = tune_em(documents, unlabelled, candidates, analyzer=base, settings=em_settings(), k=cv, seed=seed,
                            metric=metric, summary=summary, progress=advance, **em_weighting())
        else:
            tuned = tune_settings(documents, candidates, k=cv, seed=seed, base_analyzer=base, metric=metric,
                                  summary=summary, progress=advance, digests=corpus.report.texts)
    trials, model = tuned.trials, tuned.model
    model.save(output)  # before anything is printed: `| head -1` closes stdout, and the search is not lost
    if plot_path is not None:
        from ..plots import plot_search

        plot_search(trials, plot_path, metric)
        click.echo(f"plot -> {plot_path}", err=True)
    render.leaderboard(trials[:top], metric, fmt, total=len(trials))
    termless = [trial for trial in trials if trial.termless_folds]
    if termless:
        click.echo(f"{len(termless)} of {len(trials)} settings had no term left to train on in some fold (every one "
                   f"pruned, or no words) and answered there with the class priors alone; the best of them: "
                   f"{render.describe(termless[0].settings)}", err=True)
    click.echo(f"best {metric} {trials[0].mean:.4f} ± {trials[0].std:.4f} -> {output}", err=True)
    if unlabelled_paths:
        click.echo(render.em_lines(model), err=True)
    copies = trials[0].on_copies(corpus.report.texts)
    if copies["seen_in_training"]:  # they flatter every setting, most those that learn a text by heart
        click.echo(f"best setting: {render.copies_line(copies)}", err=True)
    # Every setting spelled out: a filter's defaults are not a plain model's, and the line
    # stays right should train's defaults change.
    command = f"nbtext train DATA {render.describe(render.train_options(model))}"
    if makes_a_filter(corpus.is_mail, model.classes):
        click.echo(f"{output} is a plain model, not a spam filter (no calibration, no cut-offs); for nbtext filter, "
                   f"train one with these settings: {command} -o filter.joblib", err=True)
    else:
        click.echo(f"the same model: {command} -o MODEL", err=True)


def _train_by_em(corpus, paths: tuple[str, ...], options: dict[str, Any], advance,
                 **em: Any) -> tuple[Model, ReadReport]:
    """train --unlabelled: the unlabelled documents read, then EM, a step a tick; and what
    reading the unlabelled documents saw."""
    unlabelled, report = _read_unlabelled(corpus, paths, options)
    advance(corpus.total_bytes or 0)
    with render.progress(em["iterations"], "EM", unit="steps") as step:
        return train_semisupervised(corpus.read(), unlabelled, on_step=lambda _: step(1), **em), report


def _read_unlabelled(corpus, paths: tuple[str, ...], options: dict[str, Any]) -> tuple[list[Document], ReadReport]:
    """The unlabelled documents of ``paths``, read as predict reads them (mail with the labelled
    ``corpus``'s headers), and what reading them saw."""
    report = ReadReport()
    with reported_on_error(report, options["verbose"], corpus.encoding):
        unlabelled = unlabelled_documents(paths, report, encoding=options["encoding"],
                                          max_document_bytes=options["max_document_size"], headers=corpus.headers)
        report.check_all_read()
    return unlabelled, report


def _print_unlabelled(report: ReadReport, options: dict[str, Any], encoding: str) -> None:
    for line in report.lines(verbose=options["verbose"], encoding=encoding):
        click.echo(f"unlabelled: {line}", err=True)
