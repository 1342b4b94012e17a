"""Accuracy of nbtext next to scikit-learn, corpus by corpus, under each corpus's protocol.

    python benchmarks/accuracy.py                      # every corpus, nbtext vs sklearn default
    python benchmarks/accuracy.py --corpora 20news-bydate,R8 --tuned
    python benchmarks/accuracy.py --corpora rt-polarity --tuned --grid my-grid.json --cv 5   # another search
    python benchmarks/accuracy.py --corpora lingspam --tuned --repeats 5   # that search's CV, 5 seeds
    python benchmarks/accuracy.py --corpora lingspam,sms-spam --tuned --grid examples/tune-marks.json   # ! and $ too
    python benchmarks/accuracy.py --mail               # spam corpora read as text vs as mail
    python benchmarks/accuracy.py --corpora spamassassin-2003 --tuned --input-format email   # mail read as mail
    python benchmarks/accuracy.py --corpora 20news-bydate --tuned --input-format email --headers none   # posts

Both sides read the same decoded documents (nbtext's readers). "sklearn default" is
CountVectorizer() + MultinomialNB(); "sklearn tuned" (with --tuned) is
TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), min_df=2) + ComplementNB or
MultinomialNB with alpha chosen by 3-fold inner cross-validation. "nbtext tuned" (with
--tuned) is nested cross-validation: in each outer fold, `nbtext tune`'s search picks the best
setting of its default grid by 3-fold cross-validation on that fold's training documents only
(--grid and --cv change that search; --repeats repeats its cross-validation with other seeds),
and the chosen setting, trained on them, is scored on the fold's test documents. Figures are
mean accuracy over the folds of the protocol; stderr gets each fold's chosen setting and each
corpus's time.

A second table pairs each nbtext column with the scikit-learn one beside it, document by
document: how many test documents only nbtext classifies right, how many only scikit-learn
does, and McNemar's exact p-value for that split (the chance of one at least as uneven if
neither were better). A gap of a few documents with a large p is noise, either way.

--input-format and --headers read the documents as nbtext train's options do: mail gets the
default header tokens unless --headers says otherwise, and "nbtext default" is then what
`nbtext train` gives mail with a spam class, a filter's defaults.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.protocols import PROTOCOLS, folds  # noqa: E402
from nbtext.readers import MAIL_FORMATS, LabelledCorpus  # noqa: E402
from nbtext.readers.mail import DEFAULT_MAIL_HEADERS, header_names, mail_headers  # noqa: E402
from nbtext.spam_training import FILTER_TOKENS, train_filter  # noqa: E402
from nbtext.training import DEFAULT_ANALYZER, train  # noqa: E402
from nbtext.tuning import DEFAULT_FOLDS, cross_validate, expand, rank, read_grid, train_setting  # noqa: E402

PUBLISHED = {"20news-bydate": "TWCNB 0.861", "movie-review-polarity": "MNB-bi 0.8585", "rt-polarity": "MNB-bi 0.790"}
#: The columns compared document by document: each nbtext figure with the scikit-learn one it is
#: held to (the defaults with the tuned pipeline too: that is the accuracy goal).
PAIRS = [("nbtext default", "sklearn default"), ("nbtext default", "sklearn tuned"),
         ("nbtext tuned", "sklearn tuned")]


def correct(model, test_docs) -> np.ndarray:
    """Whether ``model`` predicts the label of each of ``test_docs``."""
    return np.asarray(model.predict([d.text for d in test_docs])) == [d.label for d in test_docs]


def accuracy(model, test_docs) -> float:
    """The share of ``test_docs`` whose label ``model`` predicts."""
    return float(correct(model, test_docs).mean())


def mcnemar_p(only_first: int, only_second: int) -> float:
    """McNemar's exact two-sided p-value: the chance, were both classifiers equally good, that
    the documents only one of them gets right split at least this unevenly between them."""
    from scipy.stats import binomtest

    if only_first + only_second == 0:  # nothing to split: no evidence either way
        return 1.0
    return float(binomtest(only_first, only_first + only_second, 0.5).pvalue)


def read_documents(path, input_format: str | None = None, headers: tuple[str, ...] | None = None) -> list:
    """The documents at ``path`` as `nbtext train` reads them: mail gets the default header
    tokens unless ``headers`` says otherwise."""
    headers = mail_headers(headers, input_format in MAIL_FORMATS)
    return list(LabelledCorpus([str(path)], input_format=input_format, headers=headers))


def default_model(train_docs, mail: bool = False):
    """The model `nbtext train` gives ``train_docs`` with no options: for mail with a spam
    class, a filter (scored here as labels, as `nbtext eval` scores it: spam where its
    calibrated score is 0.5 or more, never unsure)."""
    if mail and any(d.label == "spam" for d in train_docs):
        return filter_default_model(train_docs)
    return train(train_docs)


def filter_default_model(train_docs):
    """The filter `nbtext train --spam-label spam` gives ``train_docs`` with no other options."""
    return train_filter(train_docs, analyzer=replace(DEFAULT_ANALYZER, tokens=FILTER_TOKENS))


def nbtext_default(train_docs, test_docs, mail: bool = False) -> np.ndarray:
    return correct(default_model(train_docs, mail), test_docs)


def read_folds(name: str, input_format: str | None = None, headers: tuple[str, ...] | None = None,
               limit: int | None = None) -> Iterator[tuple[list, list]]:
    """The training and test documents of each fold of corpus ``name``'s protocol, read as
    `nbtext train` reads them (``read_documents``)."""
    for fold in folds(name, limit=limit):
        with tempfile.TemporaryDirectory() as scratch:
            train_arg, test_arg = fold.write(Path(scratch))
            documents = (read_documents(train_arg, input_format, headers),
                         read_documents(test_arg, input_format, headers))
        yield documents


def inner_search(train_docs, grid: str | None = None, k: int = DEFAULT_FOLDS, repeats: int = 1) -> list:
    """The trials of `nbtext tune`'s search on ``train_docs`` (with ``grid``: `--grid GRID --cv K`).

    With ``repeats`` above 1 the cross-validation is repeated with seeds 0, 1, ... and each
    setting scored over all repeats' folds (a study: `nbtext tune` runs it once)."""
    candidates = expand(read_grid(grid))
    trials = cross_validate(train_docs, candidates, k=k, seed=0)
    for seed in range(1, repeats):
        for trial, again in zip(trials, cross_validate(train_docs, candidates, k=k, seed=seed)):
            trial.reports += again.reports
    return trials


def tuned_setting(train_docs, grid: str | None = None, k: int = DEFAULT_FOLDS, repeats: int = 1) -> dict:
    """The setting `nbtext tune` picks on ``train_docs``: the best of ``inner_search``."""
    return rank(inner_search(train_docs, grid, k, repeats))[0].settings


def nbtext_tuned(train_docs, test_docs, **search) -> np.ndarray:
    setting = tuned_setting(train_docs, **search)
    print(f"  picked {setting}", file=sys.stderr, flush=True)  # do a corpus's folds agree?
    return correct(train_setting(train_docs, setting), test_docs)  # trained as nbtext tune trains it


def sklearn_default(train_docs, test_docs) -> np.ndarray:
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    pipeline = make_pipeline(CountVectorizer(), MultinomialNB())
    pipeline.fit([d.text for d in train_docs], [d.label for d in train_docs])
    return correct(pipeline, test_docs)


def sklearn_tuned(train_docs, test_docs) -> np.ndarray:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.model_selection import GridSearchCV
    from sklearn.naive_bayes import ComplementNB, MultinomialNB
    from sklearn.pipeline import Pipeline

    pipeline = Pipeline([("tfidf", TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), min_df=2)),
                         ("nb", ComplementNB())])
    grid = {"nb": [ComplementNB(), MultinomialNB()], "nb__alpha": [0.01, 0.03, 0.1, 0.3, 1.0]}
    search = GridSearchCV(pipeline, grid, cv=3, n_jobs=1)
    search.fit([d.text for d in train_docs], [d.label for d in train_docs])
    return correct(search, test_docs)


MAIL_CORPORA = ["spamassassin-2003", "enron1", "enron2", "enron3", "enron4", "enron5", "enron6"]


def mail_versus_text(corpora: list[str]) -> None:
    """The spam corpora read as plain text and read as mail, side by side, under the defaults
    ``nbtext train`` gives mail with a spam class (a filter's)."""
    print("| corpus | protocol | folds | read as plain text | read as mail | read as mail, --headers "
          + ",".join(DEFAULT_MAIL_HEADERS) + " |")
    print("|---|---|---|---|---|---|")
    for name in corpora:
        scores: dict[str, list[float]] = {"text": [], "mail": [], "headers": []}
        for fold in folds(name):
            with tempfile.TemporaryDirectory() as scratch:
                train_arg, test_arg = fold.write(Path(scratch))
                for key, fmt, headers in (("text", None, ()), ("mail", "email", ()), ("headers", "email", None)):
                    train_docs, test_docs = (read_documents(arg, fmt, headers) for arg in (train_arg, test_arg))
                    scores[key].append(accuracy(filter_default_model(train_docs), test_docs))
        print(f"| {name} | {PROTOCOLS[name]} | {len(scores['text'])} | "
              + " | ".join(f"{statistics.mean(v):.4f}" for v in scores.values()) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", help="comma-separated names (default: every corpus, or with --mail the mail "
                        "corpora)")
    parser.add_argument("--folds", type=int, help="use at most this many folds per corpus (quicker, less exact)")
    parser.add_argument("--tuned", action="store_true",
                        help="also tune nbtext by nested cross-validation, and recompute the tuned scikit-learn figure")
    parser.add_argument("--grid", help="the search of the nbtext tuned column, JSON or a file as nbtext tune's "
                        "--grid (default: nbtext tune's default grid)")
    parser.add_argument("--cv", type=int, default=DEFAULT_FOLDS, help="folds of that search (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=1, help="repeat that search's cross-validation with this "
                        "many seeds and rank over all their folds (default: %(default)s, as nbtext tune)")
    parser.add_argument("--mail", action="store_true", help="compare the spam corpora read as text and as mail")
    parser.add_argument("--input-format", help="read every document in this format (as nbtext train's option), "
                        "e.g. email: the Subject and body of each message, and the --headers tokens")
    parser.add_argument("--headers", metavar="NAME,...|none", help="as nbtext train's option: the headers whose "
                        "words join mail as prefixed tokens (default, for mail: " + ",".join(DEFAULT_MAIL_HEADERS)
                        + ")")
    args = parser.parse_args()
    if args.mail:
        return mail_versus_text(args.corpora.split(",") if args.corpora else MAIL_CORPORA)
    headers = header_names(args.headers)
    default = functools.partial(nbtext_default, mail=args.input_format in MAIL_FORMATS)
    runners = {"nbtext default": default, "sklearn default": sklearn_default}
    if args.tuned:
        runners["nbtext tuned"] = functools.partial(nbtext_tuned, grid=args.grid, k=args.cv,
                                                   repeats=args.repeats)
        runners["sklearn tuned"] = sklearn_tuned
    header = ["corpus", "protocol", "folds", *runners, "published NB-family"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    paired = []
    for name in (args.corpora.split(",") if args.corpora else PROTOCOLS):
        scores: dict[str, list[np.ndarray]] = {key: [] for key in runners}
        started = time.perf_counter()
        seen = 0  # test documents whose text the fold trains on: both sides score them alike
        for train_docs, test_docs in read_folds(name, args.input_format, headers, limit=args.folds):
            trained_on = {doc.text for doc in train_docs}
            seen += sum(doc.text in trained_on for doc in test_docs)
            for key, runner in runners.items():
                scores[key].append(runner(train_docs, test_docs))
        figures = [f"{statistics.mean(float(right.mean()) for right in v):.4f}" for v in scores.values()]
        print(f"| {name} | {PROTOCOLS[name]} | {len(scores['nbtext default'])} | " + " | ".join(figures)
              + f" | {PUBLISHED.get(name, '')} |", flush=True)
        print(f"  ({name}: {time.perf_counter() - started:.0f}s; {seen:,} test documents with a text their fold "
              "trains on)", file=sys.stderr)
        paired += [(name, ours, theirs, np.concatenate(scores[ours]), np.concatenate(scores[theirs]))
                   for ours, theirs in PAIRS if ours in scores and theirs in scores]
    print_paired(paired)


def print_paired(paired: list) -> None:
    """The documents only one side of each pair classifies right, and McNemar's p for that."""
    print()
    print("| corpus | nbtext | sklearn | test documents | only nbtext right | only sklearn right | McNemar p |")
    print("|---|---|---|---|---|---|---|")
    for name, ours, theirs, our_right, their_right in paired:
        only_ours, only_theirs = int((our_right & ~their_right).sum()), int((their_right & ~our_right).sum())
        print(f"| {name} | {ours} | {theirs} | {len(our_right):,} | {only_ours:,} | {only_theirs:,} | "
              f"{mcnemar_p(only_ours, only_theirs):.3g} |")


if __name__ == "__main__":
    main()
