"""The architecture families audio-ML users bring, written as their public code writes them,
exported unmodified and compared with PyTorch live."""

import pytest
import torch

from sonotype.testing import families
from sonotype.testing.parity import assert_parity

FAMILIES = {
    "MobileNetV3 (EfficientAT)": (lambda: families.MobileNetV3(), (1, 1, 32, 40)),
    "PANNs CNN": (lambda: families.PannsCnn(), (1, 1, 40, 32)),
    "AST / ViT patch embedding": (lambda: families.AudioSpectrogramTransformer(), (1, 40, 32)),
    "Conformer (torchaudio)": (lambda: families.ConformerClassifier(), (1, 24, 32)),
}


@pytest.mark.parametrize("name", list(FAMILIES))
def test_family_exports_unmodified_and_matches_pytorch(name):
    make, shape = FAMILIES[name]
    torch.manual_seed(0)
    model = families.randomize_batch_norms(make()).eval()
    assert_parity(model, torch.randn(*shape))
