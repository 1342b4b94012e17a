"""How long `nbtext tune` takes next to the GridSearchCV a user would otherwise write: the same
settings, by 3-fold cross-validation over the same documents, then the best trained on all of
them; in one run.

    python benchmarks/tune_speed.py [--runs 3] [--corpus 20news-bydate]

The search is the accuracy issue's "sklearn tuned" one: TfidfVectorizer(sublinear_tf=True,
ngram_range=(1, 2), min_df=2) with ComplementNB or MultinomialNB, alpha 0.01, 0.03, 0.1, 0.3 or
1.0, ten settings. nbtext searches the same ten, given as --grid (log tf, unit length, IDF,
min_df 2, uni+bigrams of words of two or more letters, as the vectorizer's). The pipeline runs
as GridSearchCV(Pipeline(...)) as it comes, which fits the vectorizer again for every setting
of every fold, on one core and on all (n_jobs=-1); and with Pipeline(memory=...), which an
expert adds so that each fold's vectorizer is fitted once. Both sides read the documents with
nbtext's reader (the same texts; the pipeline's reading is timed too). Each command runs in
its own process, in turn, a new order each round; medians of --runs, peak RSS of the process
tree, the best setting each side picked and its mean score (the folds differ: nbtext's
stratified folds and StratifiedKFold's, both seeded).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.protocols import corpus_root  # noqa: E402
from benchmarks.speed import alternating, cell  # noqa: E402
from nbtext.cores import available_cores  # noqa: E402

ALPHAS = [0.01, 0.03, 0.1, 0.3, 1.0]
GRID = {"variant": ["complement", "multinomial"], "alpha": ALPHAS, "ngram_range": [[1, 2]], "tokens": ["words"],
        "tf": ["log"], "doc_norm": ["l2"], "idf": [True], "min_df": [2]}

_SKLEARN_SEARCH = r"""
import json, sys, tempfile
from nbtext.readers import LabelledCorpus
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.naive_bayes import ComplementNB, MultinomialNB
from sklearn.pipeline import Pipeline
root, jobs, cached = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "memory"
docs = list(LabelledCorpus([root]))
with tempfile.TemporaryDirectory() as cache:
    pipeline = Pipeline([("tfidf", TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), min_df=2)),
                         ("nb", ComplementNB())], memory=cache if cached else None)
    grid = {"nb": [ComplementNB(), MultinomialNB()], "nb__alpha": %s}
    search = GridSearchCV(pipeline, grid, cv=StratifiedKFold(3, shuffle=True, random_state=0), n_jobs=jobs)
    search.fit([d.text for d in docs], [d.label for d in docs])
best = search.best_params_
print(json.dumps({"mean": search.best_score_, "best": f"{type(best['nb']).__name__} alpha {best['nb__alpha']}"}))
""" % ALPHAS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpus", default="20news-bydate", help="a corpus with a train/ folder of classes")
    args = parser.parse_args()
    root = corpus_root(args.corpus) / "train"
    py, cores = sys.executable, available_cores()
    scratch = Path(tempfile.mkdtemp())
    commands = {
        "nbtext tune": ([py, "-m", "nbtext", "tune", str(root), "-o", str(scratch / "best.joblib"), "--grid",
                         json.dumps(GRID), "--cv", "3", "--format", "json"], None),
        "GridSearchCV, n_jobs=1": ([py, "-c", _SKLEARN_SEARCH, str(root), "1", "plain"], None),
        f"GridSearchCV, n_jobs=-1 ({cores} cores)": ([py, "-c", _SKLEARN_SEARCH, str(root), "-1", "plain"], None),
        "GridSearchCV, Pipeline(memory=...), n_jobs=1": ([py, "-c", _SKLEARN_SEARCH, str(root), "1", "memory"], None),
    }
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; "
          f"{args.corpus} train, 10 settings x 3 folds")
    timings = alternating(commands, args.runs)
    ours = timings["nbtext tune"][0]
    print(f"\n| search (then the best trained on all) | wall time (median of {args.runs}), peak RSS | vs nbtext "
          "| best setting | its mean accuracy over the folds |")
    print("|---|---|---|---|---|")
    for label, timing in timings.items():
        if label == "nbtext tune":
            board = json.loads(timing[2])
            best, mean = board[0]["options"], board[0]["mean"]
        else:
            picked = json.loads(timing[2].splitlines()[-1])
            best, mean = picked["best"], picked["mean"]
        print(f"| {label} | {cell(timing)} | {timing[0] / ours:.1f}x | {best} | {mean:.4f} |", flush=True)


if __name__ == "__main__":
    main()
