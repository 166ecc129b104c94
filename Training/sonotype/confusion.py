"""Confusion matrices of the 12 classes: per-class precision and recall, and the PNG the reports show."""

import numpy as np

from .data import CLASSES


def per_class(confusion):
    """(precision, recall) per class of a confusion matrix (rows truth, columns guess); 0 where undefined."""
    confusion = np.asarray(confusion)
    precision = np.diag(confusion) / np.maximum(confusion.sum(axis=0), 1)
    recall = np.diag(confusion) / np.maximum(confusion.sum(axis=1), 1)
    return precision, recall


def draw(confusion, title, path, xlabel="predicted"):
    """The matrix as a PNG: rows normalised to colour, counts written in."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    confusion = np.asarray(confusion)
    fig, ax = plt.subplots(figsize=(6.5, 5.5))
    normalised = confusion / np.maximum(confusion.sum(axis=1, keepdims=True), 1)
    ax.imshow(normalised, cmap="viridis", vmin=0, vmax=1)
    ax.set_xticks(range(len(CLASSES)), CLASSES, rotation=60, ha="right")
    ax.set_yticks(range(len(CLASSES)), CLASSES)
    ax.set_xlabel(xlabel), ax.set_ylabel("true")
    for i in range(len(CLASSES)):
        for j in range(len(CLASSES)):
            if confusion[i, j]:
                ax.text(j, i, str(confusion[i, j]), ha="center", va="center", fontsize=7,
                        color="black" if normalised[i, j] > 0.5 else "white")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
