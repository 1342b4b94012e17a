"""Pictures of an evaluation, for people who would rather look than read: ``eval --plot``.

matplotlib is an optional extra (``nbtext[plot]``), imported only here and only when a picture
is asked for. The file's suffix picks its kind (``.svg``, ``.png``, ``.pdf``); an SVG keeps its
text as text (class names, counts), so that it can be searched and tested.

One figure, its panels side by side: the confusion matrix (each row scaled to its true class's
documents, the count in each cell, the classes ordered so that those confused with each other
sit together), each class's precision and recall, the reliability diagram (the top class's
probability against how often it is right; before and after a calibration where the model has
one), and for a spam filter, its spam scores of ham and of spam with the two cut-offs.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .errors import NbtextError

#: The kinds of file a picture may be written as.
SUFFIXES = (".svg", ".png", ".pdf")
#: Above this many classes, a confusion matrix's cells are too small for their counts.
COUNTED_CLASSES = 25


def check_plot_path(path: str) -> None:
    """An NbtextError, before any work, where ``path`` has no suffix a picture is written as,
    or where matplotlib is not installed."""
    if os.path.splitext(path)[1].lower() not in SUFFIXES:
        raise NbtextError(f"{path}: a picture is written as {', '.join(SUFFIXES)}: name the file with one of them")
    _pyplot()


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise NbtextError("pictures need matplotlib: pip install 'nbtext[plot]'") from None
    matplotlib.use("Agg")  # files only: no window, no display needed
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text in an SVG
    import matplotlib.pyplot as plt

    return plt


def clustered_order(confusion: np.ndarray) -> np.ndarray:
    """An order of the classes in which those confused with each other sit together: the
    leaves of an average-linkage clustering whose distance is 1 minus how often two classes
    are mistaken for each other (each way, as shares of their documents).

    >>> clustered_order(np.array([[9, 0, 1], [0, 9, 0], [1, 0, 9]])).tolist()
    [1, 0, 2]
    """
    n = len(confusion)
    if n < 3:
        return np.arange(n)
    from scipy.cluster.hierarchy import leaves_list, linkage
    from scipy.spatial.distance import squareform

    shares = confusion / np.maximum(confusion.sum(axis=1, keepdims=True), 1)
    mixed = shares + shares.T
    np.fill_diagonal(mixed, 0.0)
    distance = 1.0 - mixed / max(float(mixed.max()), 1e-12)
    np.fill_diagonal(distance, 0.0)
    return leaves_list(linkage(squareform(distance, checks=False), method="average"))


def plot_evaluation(report: dict[str, Any], path: str, *, title: str = "",
                    before: dict[str, Any] | None = None, spam: dict[str, Any] | None = None) -> None:
    """Draw ``report`` (``metrics.evaluate``'s) to ``path``. ``before``: the reliability table
    before calibration, for a calibrated model; ``spam``: a filter's ``scores`` (its spam
    probability of each document), ``is_spam`` (their truth), ``spam_cutoff`` and ``ham_cutoff``."""
    plt = _pyplot()
    panels = 3 + (spam is not None)
    labels = list(report["labels"])
    size = max(4.5, min(0.35 * len(labels) + 2.5, 14))
    figure, axes = plt.subplots(1, panels, figsize=(size + 5 * (panels - 1), size),
                                gridspec_kw={"width_ratios": [size, *([5] * (panels - 1))]})
    _confusion(axes[0], labels, np.asarray(report["confusion_matrix"]))
    _per_class(axes[1], labels, report["per_class"])
    _reliability(axes[2], {"bins": report["reliability"], "ece": report["ece"]}, before)
    if spam is not None:
        _spam_scores(axes[3], spam)
    figure.suptitle(title or f"accuracy {report['accuracy']:.4f}, macro F1 {report['macro_f1']:.4f}, "
                             f"{report['n_documents']:,} documents")
    figure.tight_layout()
    figure.savefig(path, bbox_inches="tight")
    plt.close(figure)


def _confusion(ax: Any, labels: list[str], confusion: np.ndarray) -> None:
    order = clustered_order(confusion)
    counts = confusion[np.ix_(order, order)]
    shares = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    ax.imshow(shares, cmap="Blues", vmin=0, vmax=1)
    names = [labels[i] for i in order]
    ax.set_xticks(range(len(names)), names, rotation=90, fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    ax.set_title("confusion matrix (rows scaled to 1)")
    if len(labels) <= COUNTED_CLASSES:
        for i in range(len(names)):
            for j in range(len(names)):
                if counts[i, j]:
                    ax.text(j, i, f"{counts[i, j]:,}", ha="center", va="center", fontsize=7,
                            color="white" if shares[i, j] > 0.6 else "black")


def _per_class(ax: Any, labels: list[str], per_class: dict[str, dict[str, float]]) -> None:
    at = np.arange(len(labels))
    ax.barh(at - 0.2, [per_class[label]["precision"] for label in labels], height=0.4, label="precision")
    ax.barh(at + 0.2, [per_class[label]["recall"] for label in labels], height=0.4, label="recall")
    ax.set_yticks(at, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_title("precision and recall")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.06), ncol=2, fontsize=8)


def _reliability(ax: Any, reliability: dict[str, Any], before: dict[str, Any] | None) -> None:
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", label="calibrated")
    for table, name in ((before, "before calibration"), (reliability, "after calibration" if before else "model")):
        if table is None:
            continue
        bins = table["bins"]
        ax.plot([row["confidence"] for row in bins], [row["accuracy"] for row in bins], marker="o",
                label=f"{name}, ECE {table['ece']:.3f}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("top class's probability")
    ax.set_ylabel("share right")
    ax.set_title("reliability")
    ax.legend(loc="upper left", fontsize=8)


def _spam_scores(ax: Any, spam: dict[str, Any]) -> None:
    scores, is_spam = np.asarray(spam["scores"]), np.asarray(spam["is_spam"], dtype=bool)
    edges = np.linspace(0, 1, 41)
    ax.hist(scores[~is_spam], bins=edges, alpha=0.6, label=f"ham ({int((~is_spam).sum()):,})", log=True)
    ax.hist(scores[is_spam], bins=edges, alpha=0.6, label=f"spam ({int(is_spam.sum()):,})", log=True)
    for cutoff, name in ((spam["ham_cutoff"], "ham cut-off"), (spam["spam_cutoff"], "spam cut-off")):
        ax.axvline(cutoff, color="black", linestyle="--")
        ax.text(cutoff, 0.98, f" {name} {cutoff:.2f}", transform=ax.get_xaxis_transform(), fontsize=8,
                va="top", rotation=90)
    ax.set_xlabel("spam score")
    ax.set_ylabel("messages")
    ax.set_title("spam scores")
    ax.legend(loc="center", fontsize=8)


def plot_search(trials: list[Any], path: str, metric: str) -> None:
    """Draw a search's leaderboard (``tuning.Trial``s) to ``path``: for each setting the search
    varied, a panel of every trial's mean score by that setting's value, the best at each value
    joined by a line with its spread over the folds: which values matter, and which do not."""
    plt = _pyplot()
    keys = [key for key in dict.fromkeys(key for trial in trials for key in trial.settings)
            if len({_shown(trial.settings.get(key)) for trial in trials}) > 1]
    if not keys:
        keys = list(trials[0].settings)[:1] or ["setting"]
    columns = min(len(keys), 4)
    rows = -(-len(keys) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.5 * columns, 3.6 * rows), squeeze=False)
    rng = np.random.default_rng(0)
    for ax, key in zip(axes.flat, keys):
        values = sorted(dict.fromkeys(_shown(trial.settings.get(key)) for trial in trials), key=_in_order)
        at = {value: i for i, value in enumerate(values)}
        x = np.array([at[_shown(trial.settings.get(key))] for trial in trials], dtype=float)
        means = np.array([trial.mean for trial in trials])
        ax.scatter(x + rng.uniform(-0.15, 0.15, len(x)), means, s=10, alpha=0.4, color="grey")
        best = [max((t for t in trials if _shown(t.settings.get(key)) == value), key=lambda t: t.mean)
                for value in values]
        ax.errorbar(range(len(values)), [t.mean for t in best], yerr=[t.std for t in best], marker="o",
                    capsize=3, label="best")
        ax.set_xticks(range(len(values)), values, rotation=30, fontsize=8)
        ax.set_title(key)
        ax.set_ylabel(f"{metric} (mean over folds)")
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    figure.suptitle(f"{len(trials):,} settings, best {metric} {trials[0].mean:.4f}")
    figure.tight_layout()
    figure.savefig(path, bbox_inches="tight")
    plt.close(figure)


def _in_order(shown: str) -> tuple:
    """Numbers in their order, before the names, which are in theirs."""
    try:
        return (0, float(shown), "")
    except ValueError:
        return (1, 0.0, shown)


def _shown(value: Any) -> str:
    """A setting's value as the picture names it."""
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value)) or "none"
    return "none" if value in (None, "") else str(value)


def plot_learning_curve(points: list[dict[str, Any]], path: str, metric: str = "accuracy") -> None:
    """Draw a learning curve (``evaluation.learning_curve``'s points) to ``path``: the score on
    held-out documents against the number trained on, with its spread over the folds."""
    plt = _pyplot()
    figure, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar([p["documents"] for p in points], [p[metric]["mean"] for p in points],
                yerr=[p[metric]["std"] for p in points], marker="o", capsize=3)
    for p in points:
        ax.annotate(f"{p[metric]['mean']:.3f}", (p["documents"], p[metric]["mean"]), textcoords="offset points",
                    xytext=(0, 6), ha="center", fontsize=7)
    ax.set_xlabel("documents trained on")
    ax.set_ylabel(f"{metric} on the held-out fold")
    ax.set_title("learning curve: would more labelled data help?")
    ax.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, bbox_inches="tight")
    plt.close(figure)
