"""Calibration: the temperature that makes confidences honest, and the error it is judged by."""

import torch

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
