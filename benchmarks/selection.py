"""How `nbtext tune` picks its setting, replayed: ways to choose from the same inner scores,
each scored on the test documents of every outer fold.

    python benchmarks/selection.py                                  # every corpus, the default grid
    python benchmarks/selection.py --corpora lingspam,R52
    python benchmarks/selection.py --corpora 20news-bydate --grid examples/tune-joined.json
    python benchmarks/selection.py --corpora spamassassin-2003 --input-format email

For each outer fold of a corpus's protocol (benchmarks/protocols.py), the search's 3-fold
cross-validation is run on the fold's training documents, as in `accuracy.py --tuned`, and
every setting of the grid is also trained on those documents and answers the fold's test
documents. Both are kept (``--cache``, a file per corpus and search), so that a choice can be
replayed without training anything again: the search's own (the best mean), the
one-standard-error rule, smoothing the inner scores over neighbouring settings, and, for
scale, the best setting for each fold and the best and the median single setting, all picked
after seeing the test documents. "best mean" is what `accuracy.py --tuned` scores as
"nbtext tuned"; this takes minutes where that takes hours, as the scikit-learn side is not
run. Each cell is the mean accuracy over the folds, and the test documents wrong.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import pickle
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.accuracy import inner_search, read_folds  # noqa: E402
from benchmarks.protocols import PROTOCOLS  # noqa: E402
from nbtext.readers.mail import header_names  # noqa: E402
from nbtext.tuning import _RANK_PLACES, Trial, cross_validate, rank, read_grid  # noqa: E402

#: One outer fold: the grid's settings, each one's inner scores (settings x inner folds), and
#: whether each test document's answer was right (settings x test documents).
KeptFold = dict
#: A way to choose: the index of the setting it picks in one outer fold.
Choice = Callable[[KeptFold], int]


def collect(name: str, grid: str | None, input_format: str | None, headers: tuple[str, ...] | None) -> list[KeptFold]:
    """Every outer fold of corpus ``name``: the inner scores and the test answers of each setting."""
    kept = []
    for number, (train_docs, test_docs) in enumerate(read_folds(name, input_format, headers)):
        started = time.perf_counter()
        inner = inner_search(train_docs, grid)  # what accuracy.py --tuned ranks
        candidates = [trial.settings for trial in inner]
        # Fold 1 trains, fold 0 is tested: each setting's answers on the test documents.
        parts = [1] * len(train_docs) + [0] * len(test_docs)
        tested = cross_validate(train_docs + test_docs, candidates, folds=parts)
        kept.append({"settings": candidates, "inner": [trial.scores for trial in inner],
                     "right": np.array([trial.right[len(train_docs):] for trial in tested])})
        print(f"  {name} fold {number + 1}: {time.perf_counter() - started:.0f}s", file=sys.stderr, flush=True)
    return kept


def best_mean(fold: KeptFold) -> int:
    """The search's own choice: ``tuning.rank`` over the inner scores."""
    return _ranked(fold)[0]


def one_standard_error(fold: KeptFold) -> int:
    """Of the settings whose inner mean is within one standard error of the best's, the one
    that smooths most (the largest alpha; the best ranked of those)."""
    order = _ranked(fold)
    best = fold["inner"][order[0]]
    floor = statistics.mean(best) - statistics.pstdev(best) / math.sqrt(len(best))
    near = [i for i in order if statistics.mean(fold["inner"][i]) >= floor - 10.0**-_RANK_PLACES]
    return max(near, key=lambda i: fold["settings"][i]["alpha"])


def smoothed(axes: tuple[str, ...]) -> Choice:
    """Rank each setting by the mean of its inner mean and those of the settings one step away
    along ``axes`` (for alpha, the next value up and down); ties as the search breaks them."""
    def choose(fold: KeptFold) -> int:
        means = [statistics.mean(scores) for scores in fold["inner"]]
        near = _neighbours(fold["settings"], axes)
        score = [statistics.mean([means[i], *(means[j] for j in near[i])]) for i in range(len(means))]
        order = _ranked(fold)
        # The first of the highest, in the search's order.
        return max(order, key=lambda i: round(score[i], _RANK_PLACES))
    return choose


def best_for_the_fold(fold: KeptFold) -> int:
    """In hindsight: the setting with the most test documents right, fold by fold."""
    return int(np.argmax(fold["right"].sum(axis=1)))


def _ranked(fold: KeptFold) -> list[int]:
    """The settings' indices in the search's order."""
    trials = [Trial({"index": i}, reports=[{"accuracy": s} for s in scores]) for i, scores in enumerate(fold["inner"])]
    return [trial.settings["index"] for trial in rank(trials)]


def _neighbours(settings: list[dict], axes: tuple[str, ...]) -> list[list[int]]:
    """For each setting, the indices of those that differ from it along one of ``axes`` only:
    by the next alpha up or down, or by any other value of another axis."""
    def key(setting: dict) -> str:
        return json.dumps(setting, sort_keys=True, default=str)

    index = {key(s): i for i, s in enumerate(settings)}
    values = {axis: list({key(s[axis]): s[axis] for s in settings}.values()) for axis in axes}
    if "alpha" in values:
        values["alpha"].sort()
    near = []
    for setting in settings:
        found = []
        for axis, options in values.items():
            own = options.index(setting[axis])
            others = [own - 1, own + 1] if axis == "alpha" else range(len(options))
            for j in others:
                if j != own and 0 <= j < len(options):
                    moved = key(dict(setting, **{axis: options[j]}))
                    if moved in index:
                        found.append(index[moved])
        near.append(found)
    return near


CHOICES: dict[str, Choice] = {
    "the search (best mean)": best_mean,
    "one standard error, largest alpha": one_standard_error,
    "smoothed: alpha": smoothed(("alpha",)),
    "smoothed: alpha, variant": smoothed(("alpha", "variant")),
    "smoothed: every axis": smoothed(("alpha", "variant", "tf", "doc_norm", "idf", "min_df")),
    "hindsight: best each fold": best_for_the_fold,
}


def scored(kept: list[KeptFold], picks: list[int]) -> tuple[float, int]:
    """Mean accuracy over the folds, and the test documents wrong, of one pick per fold."""
    right = [fold["right"][pick] for fold, pick in zip(kept, picks)]
    return float(np.mean([r.mean() for r in right])), int(sum((~r).sum() for r in right))


def single_settings(kept: list[KeptFold]) -> dict[str, tuple[float, int]]:
    """In hindsight, one setting for every fold: the best, and the median by documents wrong."""
    every = [scored(kept, [i] * len(kept)) for i in range(len(kept[0]["settings"]))]
    by_wrong = sorted(every, key=lambda figure: figure[1])
    return {"hindsight: best single setting": by_wrong[0],
            "hindsight: median setting": by_wrong[(len(by_wrong) - 1) // 2]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", help="comma-separated names (default: every corpus)")
    parser.add_argument("--grid", help="the search, JSON or a file as nbtext tune's --grid (default: its default grid)")
    parser.add_argument("--input-format", help="read every document in this format, as nbtext train's option")
    parser.add_argument("--headers", metavar="NAME,...|none", help="as nbtext train's option, for mail")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "nbtext-selection",
                        help="where the inner scores and test answers are kept, a file per corpus and search; "
                        "delete it after a change to how nbtext counts or scores (default: %(default)s)")
    args = parser.parse_args()
    grid = read_grid(args.grid)
    headers = header_names(args.headers)
    search = json.dumps([grid, args.input_format, headers], sort_keys=True, default=str)
    tag = hashlib.sha256(search.encode()).hexdigest()[:12]
    args.cache.mkdir(parents=True, exist_ok=True)
    names = args.corpora.split(",") if args.corpora else list(PROTOCOLS)
    table: dict[str, dict[str, tuple[float, int]]] = {}
    for name in names:
        path = args.cache / f"{name}-{tag}.pickle"
        if path.exists():
            kept = pickle.loads(path.read_bytes())
        else:
            kept = collect(name, args.grid, args.input_format, headers)
            path.write_bytes(pickle.dumps(kept))
        table[name] = {label: scored(kept, [choose(fold) for fold in kept]) for label, choose in CHOICES.items()}
        table[name].update(single_settings(kept))
    labels = list(table[names[0]])
    print("| corpus | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    for name in names:
        print(f"| {name} | " + " | ".join(f"{table[name][label][0]:.4f} ({table[name][label][1]:,})"
                                        for label in labels) + " |")


if __name__ == "__main__":
    main()
