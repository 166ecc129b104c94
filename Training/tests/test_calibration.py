"""Calibration: the temperature that makes confidences honest, and the error it is judged by."""

import pytest
import torch

from sonotype.calibration import calibration_error
from sonotype.train import expected_calibration_error, fit_temperature


def sampled(logits, generator):
    """Labels drawn from softmax(logits): confidences that mean what they say."""
    return torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator).squeeze(1)


def test_a_model_three_times_too_sure_is_given_back_its_confidence():
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(20000, 12, generator=generator) * 2
    labels = sampled(logits, generator)
    assert expected_calibration_error(logits, labels) < 0.02  # honest as it is
    overconfident = logits * 3
    assert expected_calibration_error(overconfident, labels) > 0.1
    assert abs(fit_temperature(overconfident, labels) - 3.0) < 0.3
    assert expected_calibration_error(overconfident, labels, fit_temperature(overconfident, labels)) < 0.02


def test_the_error_is_the_weighted_gap_between_confidence_and_accuracy():
    # Two windows, each 90% sure: one right, one wrong: accuracy 50% at confidence 90%.
    logits = torch.tensor([[4.0, 4.0 - 2.1972246], [4.0, 4.0 - 2.1972246]])
    labels = torch.tensor([0, 1])
    assert abs(expected_calibration_error(logits, labels) - 0.4) < 1e-4


def test_files_are_judged_by_the_same_error_from_their_confidences():
    # Two files at 90% (one right) and one at 30% (wrong): 2/3 x |0.9 - 0.5| + 1/3 x |0.3 - 0|.
    assert abs(calibration_error([0.9, 0.9, 0.3], [True, False, False]) - (2 / 3 * 0.4 + 1 / 3 * 0.3)) < 1e-12
    assert calibration_error([1.0, 1.0], [True, True]) == 0.0
    with pytest.raises(ValueError, match="2 confidences for 3 outcomes"):
        calibration_error([0.5, 0.5], [True, False, True])
