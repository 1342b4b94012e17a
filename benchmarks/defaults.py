"""Candidate defaults, every one scored on every corpus under its protocol: the evidence for
the settings ``nbtext train`` uses when given none.

    python benchmarks/defaults.py                       # the whole grid, every corpus (about 40 min)
    python benchmarks/defaults.py --corpora rt-polarity,R8 --top 5
    python benchmarks/defaults.py --results scores.jsonl --no-run    # re-rank a saved run
    python benchmarks/defaults.py --tokens joined --corpora R8     # the grid over joined tokens

For each fold of a corpus's protocol, the training and test documents are counted once per
document transform (tf, length norm); every setting of the grid is then a model over those
counts, scored on the test documents. The figures equal training nbtext with that setting.
Candidates are ranked by their worst margin to the "sklearn tuned" reference of the accuracy
issue (the better of the issue's figure and the one ``accuracy.py --tuned`` measured here),
so the winner is the setting that is nowhere far behind, not the one best on average.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.protocols import PROTOCOLS, folds  # noqa: E402
from nbtext.analysis import TOKENS  # noqa: E402
from nbtext.folds import counts_by_fold
from nbtext.model import Model  # noqa: E402
from nbtext.readers import LabelledCorpus  # noqa: E402
from nbtext.terms import count_features
from nbtext.training import DEFAULT_ANALYZER, DEFAULT_DOC_NORM, DEFAULT_TF  # noqa: E402

#: "sklearn tuned" per corpus (Enron: the mean of its six sets, as its protocol scores it).
REFERENCE = {"20news-bydate": 0.848, "R8": 0.962, "R52": 0.915, "sms-spam": 0.984, "spamassassin-2003": 0.997,
             "enron": 0.992, "lingspam": 0.9962, "movie-review-polarity": 0.8445, "rt-polarity": 0.7908}

TRANSFORMS = [("log", "l2"), ("log", None), ("binary", "l2"), ("binary", None)]
SETTINGS = [dict(variant=variant, alpha=alpha, idf=idf, min_df=min_df, norm=norm)
            for variant in ("complement", "multinomial") for alpha in (0.03, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 1.0)
            for idf in (False, True) for min_df in (1, 2)
            for norm in ((False, True) if variant == "complement" else (False,))]


def score_corpus(name: str, out, analyzer=DEFAULT_ANALYZER) -> None:
    """One JSON line per (fold, transform, setting) of corpus ``name`` written to ``out``."""
    for number, fold in enumerate(folds(name)):
        with tempfile.TemporaryDirectory() as scratch:
            train_arg, test_arg = fold.write(Path(scratch))
            train_docs, test_docs = (list(LabelledCorpus([str(arg)])) for arg in (train_arg, test_arg))
        documents = train_docs + test_docs
        fold_of = np.repeat([0, 1], [len(train_docs), len(test_docs)])
        truth = np.array([doc.label for doc in test_docs])
        test_features = [analyzer(doc.text) for doc in test_docs]
        for tf, doc_norm in TRANSFORMS:
            counts = counts_by_fold([d.text for d in documents], [d.label for d in documents], fold_of, tf=tf,
                                    doc_norm=doc_norm, analyzer=analyzer).without(1)
            test_counts = count_features(test_features, dict(zip(counts.terms, itertools.count())))
            for setting in SETTINGS:
                model = Model(analyzer, counts, setting)
                best = model.core.predict_log_proba(model.restrict(test_counts)).argmax(axis=1)
                accuracy = float(np.mean(np.array(model.classes)[best] == truth))
                out.write(json.dumps({"corpus": name, "fold": number, "tf": tf, "doc_norm": doc_norm, **setting,
                                      "accuracy": accuracy}) + "\n")
        out.flush()
        print(f"  {name} fold {number} done", file=sys.stderr, flush=True)


def ranked(lines: list[dict]) -> list[tuple[float, dict, dict[str, float]]]:
    """(worst margin to REFERENCE, setting, mean accuracy per corpus), best first."""
    scores: dict[str, dict[str, list[float]]] = {}
    for line in lines:
        line = dict(line)
        corpus, accuracy = line.pop("corpus"), line.pop("accuracy")
        line.pop("fold")
        scores.setdefault(json.dumps(line, sort_keys=True), {}).setdefault(corpus, []).append(accuracy)
    rows = []
    for key, per_corpus in scores.items():
        means = {corpus: statistics.mean(values) for corpus, values in per_corpus.items()}
        enron = [value for corpus, value in means.items() if corpus.startswith("enron")]
        means = {corpus: value for corpus, value in means.items() if not corpus.startswith("enron")}
        if enron:
            means["enron"] = statistics.mean(enron)
        rows.append((min(means[corpus] - REFERENCE[corpus] for corpus in means), json.loads(key), means))
    return sorted(rows, key=lambda row: -row[0])


def describe(setting: dict) -> str:
    words = [f"tf {setting['tf']}", "unit length" if setting["doc_norm"] else "no length norm",
             "IDF" if setting["idf"] else "no IDF", f"min_df {setting['min_df']}",
             f"{'CNB' if setting['variant'] == 'complement' else 'MNB'} alpha {setting['alpha']}"]
    if setting["norm"]:
        words.append("weight norm")
    return ", ".join(words)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", help="comma-separated names (default: every corpus)")
    parser.add_argument("--results", default="defaults-scores.jsonl", help="where the scores go (JSON lines)")
    parser.add_argument("--no-run", action="store_true", help="only rank the scores already in --results")
    parser.add_argument("--top", type=int, default=8, help="candidates shown")
    parser.add_argument("--tokens", choices=TOKENS, default=DEFAULT_ANALYZER.tokens,
                        help="the word analyzer's tokens, as nbtext train --tokens")
    args = parser.parse_args()
    results = Path(args.results)
    if not args.no_run:
        analyzer = replace(DEFAULT_ANALYZER, tokens=args.tokens)
        with results.open("w") as out:
            for name in (args.corpora.split(",") if args.corpora else PROTOCOLS):
                score_corpus(name, out, analyzer)
    rows = ranked([json.loads(line) for line in results.read_text().splitlines()])
    corpora = [corpus for corpus in REFERENCE if corpus in rows[0][2]]
    default = {"tf": DEFAULT_TF, "doc_norm": DEFAULT_DOC_NORM,
               **{key: Model.DEFAULT_SETTINGS[key] for key in ("variant", "alpha", "idf", "min_df", "norm")}}
    print("| candidate | worst margin | " + " | ".join(corpora) + " |")
    print("|---|---|" + "---|" * len(corpora))
    print("| reference (sklearn tuned) | | " + " | ".join(f"{REFERENCE[c]:.4f}" for c in corpora) + " |")
    shown = rows[:args.top] + [row for row in rows[args.top:] if row[1] == default]
    for margin, setting, means in shown:
        name = describe(setting) + (" (nbtext's default)" if setting == default else "")
        print(f"| {name} | {100 * margin:+.2f} | " + " | ".join(f"{means[c]:.4f}" for c in corpora) + " |")


if __name__ == "__main__":
    main()
