"""Unlabelled documents by EM (Nigam, McCallum, Thrun and Mitchell 2000), on 20 Newsgroups.

    python benchmarks/semisupervised.py                  # the curve, beside the paper's
    python benchmarks/semisupervised.py --sweep          # the EM weight and the model, at 20 and 300
    python benchmarks/semisupervised.py --tuned          # the EM weight chosen by cross-validation

Labelled sets of 20, 40, 300, 1,000 and 5,500 documents are drawn from 20news-bydate train,
the same number from each class, with seeds 0 to --draws - 1; 10,000 unlabelled documents are
drawn from the rest of train (all 5,814 left, for 5,500 labelled); every model is scored on the
bydate test set (7,532 documents). Plain is the model of the labelled documents alone, over
EM's vocabulary (pruned over the labelled and unlabelled documents: `--em-iterations 0`), so
that the gain is EM's; EM adds the unlabelled ones (``semisupervised.fit_em``). Mean accuracy over the draws, and its range.
With --tuned, the weight is chosen for each draw as `nbtext tune --unlabelled` chooses it: by
stratified cross-validation of the labelled documents over ``tuning.EM_GRID`` (3 folds; 2 for
40 labelled, two a class), and that weight's EM model scored beside EM at the default weight.
Nigam et al.'s figures are their Figure 3's, read from the paper's text (20 Newsgroups, their
own split: the last 20% of each group by date for testing).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.protocols import corpus_root  # noqa: E402
from nbtext.readers import LabelledCorpus  # noqa: E402
from nbtext.semisupervised import (  # noqa: E402
    EM_DEFAULTS,
    EM_WEIGHT,
    DocumentCounts,
    cross_validate_em,
    em_analyzer,
    em_settings,
    fit_em,
)
from nbtext.tuning import EM_GRID, expand, rank  # noqa: E402
from nbtext.training import DEFAULT_ANALYZER, DEFAULT_DOC_NORM, DEFAULT_TF  # noqa: E402

#: Labelled documents -> (plain NB, NB with EM) accuracy, as Nigam et al. 2000 report them.
PAPER = {20: (0.20, 0.35), 40: (0.27, 0.43), 300: (0.52, 0.66), 5500: (0.76, 0.78)}
UNLABELLED = 10_000


def draw(labels: np.ndarray, size: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``size`` labelled rows, the same number of each class, and up to 10,000 unlabelled ones
    from the rest."""
    rng = np.random.default_rng(seed)
    classes = sorted(set(labels))
    labelled = np.concatenate([rng.choice(np.flatnonzero(labels == c), size // len(classes), replace=False)
                               for c in classes])
    rest = np.setdiff1d(np.arange(len(labels)), labelled)
    return labelled, rng.choice(rest, min(UNLABELLED, len(rest)), replace=False)


def draws_of(labels: np.ndarray, size: int, draws: int):
    """Each draw's seed, its labelled rows (row -> label) and its unlabelled rows."""
    for seed in range(draws):
        labelled, unlabelled = draw(labels, size, seed)
        yield seed, {int(row): str(labels[row]) for row in labelled}, unlabelled


def accuracy(model, texts: list[str], truth: np.ndarray) -> float:
    return float(np.mean(np.array(model.predict(texts)) == truth))


def accuracies(counts, analyzer, labels, test, sizes, draws, settings, weight):
    """size -> ([plain accuracies], [EM accuracies], [EM steps]) over the draws."""
    texts, truth = [doc.text for doc in test], np.array([doc.label for doc in test])
    results = {}
    for size in sizes:
        plain, em, steps = [], [], []
        for _, known, unlabelled in draws_of(labels, size, draws):
            # EM's vocabulary, pruned over the labelled and unlabelled documents, and no step.
            base, _ = fit_em(counts, known, unlabelled, analyzer=analyzer, settings=settings, iterations=0)
            model, taken = fit_em(counts, known, unlabelled, analyzer=analyzer, settings=settings, weight=weight)
            plain.append(accuracy(base, texts, truth))
            em.append(accuracy(model, texts, truth))
            steps.append(len(taken))
        results[size] = (plain, em, steps)
    return results


def tuned_accuracies(counts, analyzer, labels, test, sizes, draws, settings):
    """size -> ([EM accuracies at the default weight], [at the weight cross-validation chose],
    [the weights chosen]) over the draws."""
    texts, truth = [doc.text for doc in test], np.array([doc.label for doc in test])
    candidates = expand(EM_GRID)
    results = {}
    for size in sizes:
        default, tuned, weights = [], [], []
        for seed, known, unlabelled in draws_of(labels, size, draws):
            best = rank(cross_validate_em(counts, known, unlabelled, candidates, analyzer=analyzer, settings=settings,
                                          k=min(3, size // 20), seed=seed))[0].settings["em_weight"]
            for weight, into in ((EM_WEIGHT, default), (best, tuned)):
                model, _ = fit_em(counts, known, unlabelled, analyzer=analyzer, settings=settings, weight=weight)
                into.append(accuracy(model, texts, truth))
            weights.append(best)
            print(f"  {size} labelled, draw {seed}: weight {best}, {default[-1]:.3f} -> {tuned[-1]:.3f}", flush=True)
        results[size] = (default, tuned, weights)
    return results


def spread(values: list[float]) -> str:
    return f"{statistics.mean(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--tuned", action="store_true")
    args = parser.parse_args()
    root = corpus_root("20news-bydate")
    train, test = list(LabelledCorpus([str(root / "train")])), list(LabelledCorpus([str(root / "test")]))
    labels = np.array([doc.label for doc in train])
    texts = [doc.text for doc in train]
    analyzer, settings = em_analyzer(), em_settings()
    started = time.perf_counter()
    counts = DocumentCounts.of(texts, analyzer, tf=EM_DEFAULTS["tf"], doc_norm=None, jobs=None)
    print(f"counted {len(texts):,} documents once in {time.perf_counter() - started:.0f} s")
    if args.tuned:
        results = tuned_accuracies(counts, analyzer, labels, test, (40, 300, 1000, 5500), args.draws, settings)
        print(f"| labelled | EM, weight {EM_WEIGHT} | EM, weight by CV | weights chosen | Nigam et al.: EM |")
        print("|---|---|---|---|---|")
        for size, (default, tuned, weights) in results.items():
            paper = PAPER.get(size)
            chosen = ", ".join(f"{w:g}" for w in sorted(weights))
            print(f"| {size:,} | {spread(default)} | {spread(tuned)} | {chosen} | "
                  f"{f'{paper[1]:.2f}' if paper else '-'} |", flush=True)
        return
    if args.sweep:
        defaults = DocumentCounts.of(texts, DEFAULT_ANALYZER, tf=DEFAULT_TF, doc_norm=DEFAULT_DOC_NORM, jobs=None)
        print("| model | EM weight | labelled | plain | EM | EM steps |")
        print("|---|---|---|---|---|---|")
        setups = [("Nigam et al.'s (the EM defaults)", counts, analyzer, settings, w)
                  for w in (0.03, 0.1, 0.3, 1.0)]
        setups += [("nbtext's defaults, multinomial", defaults, DEFAULT_ANALYZER, {"variant": "multinomial"}, 0.1),
                   ("nbtext's defaults (complement)", defaults, DEFAULT_ANALYZER, {}, 0.1)]
        for name, where, how, settings, weight in setups:
            for size, (plain, em, steps) in accuracies(where, how, labels, test, (20, 300), args.draws, settings,
                                                       weight).items():
                print(f"| {name} | {weight} | {size} | {spread(plain)} | {spread(em)} | "
                      f"{statistics.median(steps):.0f} |", flush=True)
        return
    print("| labelled | unlabelled | plain NB | NB + EM | gain | Nigam et al.: plain | EM | gain |")
    print("|---|---|---|---|---|---|---|---|")
    sizes = (20, 40, 300, 1000, 5500)
    results = accuracies(counts, analyzer, labels, test, sizes, args.draws, settings, EM_WEIGHT)
    for size, (plain, em, _) in results.items():
        unlabelled = min(UNLABELLED, len(labels) - size)
        gain = statistics.mean(em) - statistics.mean(plain)
        paper = PAPER.get(size)
        theirs = (f"{paper[0]:.2f} | {paper[1]:.2f} | {paper[1] - paper[0]:+.2f}" if paper else "- | - | -")
        print(f"| {size:,} | {unlabelled:,} | {spread(plain)} | {spread(em)} | {gain:+.3f} | {theirs} |", flush=True)


if __name__ == "__main__":
    main()
