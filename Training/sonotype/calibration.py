"""Calibration: how far a model's confidence is from how often it is right."""

import numpy as np


def calibration_error(confidence, right, bins=15):
    """Expected calibration error: the gap between confidence and accuracy, averaged over `bins` equal-width
    confidence bins weighted by their share of the predictions. `confidence`: the top probability of each
    prediction; `right`: whether it was right."""
    confidence = np.asarray(confidence, dtype=np.float64)
    right = np.asarray(right, dtype=np.float64)
    if confidence.shape != right.shape:
        raise ValueError(f"{confidence.shape[0] if confidence.ndim else 0} confidences for {right.shape[0] if right.ndim else 0} outcomes")
    error = 0.0
    edges = np.linspace(0.0, 1.0, bins + 1)
    for low, high in zip(edges[:-1], edges[1:]):
        inside = (confidence > low) & (confidence <= high)
        if inside.any():
            error += inside.mean() * abs(confidence[inside].mean() - right[inside].mean())
    return float(error)
