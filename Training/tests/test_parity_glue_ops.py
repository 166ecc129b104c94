"""The glue ops of real model code, exported and compared with PyTorch live."""

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from sonotype.testing.parity import Lambda, assert_parity, engine_outputs


def prelu_with(channels):
    p = nn.PReLU(channels)
    with torch.no_grad():
        p.weight.copy_(torch.linspace(-0.5, 0.7, channels))
    return p


CASES = {
    # GLU
    "F.glu last axis": (lambda x: F.glu(x, -1), (), (2, 3, 8)),
    "nn.GLU channels": (lambda x, m: m(x), (nn.GLU(1),), (2, 4, 5)),
    # interpolation
    "nearest x2": (lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), (), (1, 3, 4, 5)),
    "nearest to size": (lambda x: F.interpolate(x, size=(7, 3), mode="nearest"), (), (1, 3, 4, 5)),
    "nearest 1-d x1.5": (lambda x: F.interpolate(x, scale_factor=1.5, mode="nearest"), (), (1, 3, 8)),
    "nearest-exact": (lambda x: F.interpolate(x, size=(5, 7), mode="nearest-exact"), (), (1, 2, 3, 4)),
    "linear x2": (lambda x: F.interpolate(x, scale_factor=2, mode="linear"), (), (1, 3, 6)),
    "linear align_corners": (lambda x: F.interpolate(x, size=11, mode="linear", align_corners=True), (), (1, 3, 6)),
    "linear downsample": (lambda x: F.interpolate(x, size=4, mode="linear"), (), (1, 3, 9)),
    "bilinear to size": (lambda x: F.interpolate(x, size=(5, 9), mode="bilinear"), (), (1, 2, 4, 6)),
    "bilinear align_corners x3": (lambda x: F.interpolate(x, scale_factor=3, mode="bilinear", align_corners=True), (), (1, 2, 3, 4)),
    "nn.Upsample (2, 3)": (lambda x, m: m(x), (nn.Upsample(scale_factor=(2, 3)),), (1, 2, 3, 4)),
    "nn.Upsample bilinear": (lambda x, m: m(x), (nn.Upsample(scale_factor=2, mode="bilinear"),), (1, 2, 3, 4)),
    # norms
    "F.normalize": (lambda x: F.normalize(x, dim=-1), (), (2, 3, 8)),
    "F.normalize p=1 dim 1": (lambda x: F.normalize(x, p=1, dim=1), (), (2, 3, 8)),
    "torch.norm keepdim": (lambda x: torch.norm(x, dim=1, keepdim=True), (), (2, 3, 8)),
    "torch.norm all": (lambda x: x / torch.norm(x), (), (2, 3, 8)),
    "vector_norm ord 3": (lambda x: torch.linalg.vector_norm(x, ord=3, dim=-1), (), (2, 3, 8)),
    "vector_norm inf": (lambda x: torch.linalg.vector_norm(x, ord=float("inf"), dim=(1, 2)), (), (2, 3, 8)),
    "vector_norm 0": (lambda x: torch.linalg.vector_norm(torch.relu(x), ord=0, dim=-1), (), (2, 3, 8)),
    # elementwise glue
    "clamp tensor bounds": (lambda x: torch.clamp(x, min=torch.linspace(-1, 0, 8), max=torch.linspace(0.1, 1, 8)), (), (2, 3, 8)),
    "clamp_min tensor": (lambda x: torch.clamp_min(x, torch.zeros(8) - 0.2), (), (2, 8)),
    "torch.where": (lambda x: torch.where(x > 0, x, x * 0.1), (), (2, 3, 8)),
    "chunk and split": (lambda x: sum(x.chunk(4, dim=-1)) + sum(torch.split(x, [3, 5], -1)[i].sum(-1, keepdim=True) for i in range(2)), (), (2, 3, 8)),
    "cumsum": (lambda x: torch.cumsum(x, dim=1), (), (2, 5, 8)),
    # 0-d values take dim 0 or -1 where PyTorch allows it (the engine once read a dimension a 0-d value does not have)
    "0-d softmax, cumsum, reductions, argmax, topk": (
        lambda x: x + torch.softmax(x.sum(), 0) + torch.log_softmax(x.mean(), -1) + torch.cumsum(x.amax(), 0)
        + x.sum().sum(0) + x.sum().amin(-1, keepdim=True) + torch.argmax(x.sum(), 0).float() + torch.topk(x.mean(), 1, 0)[0]
        + torch.index_select(x.sum(), 0, torch.tensor([0])), (), (2, 3)),
    "topk values and indices": (lambda x: torch.topk(x, 3, dim=-1)[0] + torch.topk(x, 3, dim=-1)[1], (), (2, 5, 8)),
    "topk smallest axis 1": (lambda x: torch.topk(x, 2, dim=1, largest=False)[0], (), (2, 5, 8)),
    "argmax": (lambda x: torch.argmax(x, dim=-1).float(), (), (2, 5, 8)),
    "sort ascending and descending": (lambda x: x.sort(-1).values + torch.sort(x, 1, descending=True)[0], (), (2, 5, 5)),
    "logsumexp": (lambda x: torch.logsumexp(x, -1) + torch.logsumexp(x * 100, (1, 2), keepdim=True).squeeze(-1), (), (2, 4, 10)),
    "var_mean, std_mean": (lambda x: sum(torch.var_mean(x, -1)) + sum(torch.std_mean(x, (0, 1), unbiased=False)).sum(), (), (2, 4, 10)),
    "logit": (lambda x: torch.logit(torch.sigmoid(x), eps=1e-3) + torch.logit(torch.sigmoid(x)), (), (2, 6)),
    "nan_to_num": (lambda x: torch.nan_to_num(torch.log(x)) + torch.nan_to_num(1 / x.clamp(min=0), posinf=7.0), (), (2, 6)),
    # activations
    "activations": (lambda x, *m: sum(f(x) for f in m),
                    (nn.Hardswish(), nn.Hardsigmoid(), nn.Mish(), nn.ELU(), nn.LeakyReLU(0.2), nn.Softplus(beta=2)), (2, 3, 8)),
    "more activations": (lambda x, *m: sum(f(x) for f in m),
                         (nn.SELU(), nn.CELU(0.7), nn.ReLU6(), nn.Softsign(), nn.Tanhshrink(), nn.LogSigmoid(),
                          nn.Threshold(0.1, -2.0), nn.Hardshrink(0.3), nn.Softshrink(0.4), nn.GELU("tanh")), (2, 3, 8)),
    "PReLU per channel": (lambda x, m: m(x), (prelu_with(3),), (2, 3, 8)),
    "PReLU shared": (lambda x, m: m(x), (nn.PReLU(),), (2, 3, 8)),
    # normalisation
    "GroupNorm": (lambda x, m: m(x), (nn.GroupNorm(2, 4),), (2, 4, 5, 3)),
    "GroupNorm no affine 1-d": (lambda x, m: m(x), (nn.GroupNorm(4, 8, affine=False),), (1, 8, 6)),
    "InstanceNorm1d affine": (lambda x, m: m(x), (nn.InstanceNorm1d(4, affine=True),), (2, 4, 7)),
    "InstanceNorm2d": (lambda x, m: m(x), (nn.InstanceNorm2d(4),), (2, 4, 5, 3)),
    # transposed convolution
    "ConvTranspose1d stride 2 output_padding": (lambda x, m: m(x), (nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1),), (1, 4, 7)),
    "ConvTranspose1d dilation, crop": (lambda x, m: m(x), (nn.ConvTranspose1d(4, 2, 2, padding=3, dilation=2, bias=False),), (1, 4, 9)),
    "ConvTranspose2d groups": (lambda x, m: m(x), (nn.ConvTranspose2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 0), groups=2),), (1, 4, 5, 6)),
    "ConvTranspose2d 4x4 stride 4": (lambda x, m: m(x), (nn.ConvTranspose2d(3, 2, 4, stride=4),), (1, 3, 3, 2)),
    # embeddings and einsum
    "Embedding of constant positions": (lambda x, m: x + m(torch.arange(8)), (nn.Embedding(10, 8),), (2, 8, 8)),
    "einsum batched gram": (lambda x: torch.einsum("bij,bkj->bik", x, x), (), (2, 3, 8)),
    "einsum with weights": (lambda x: torch.einsum("bhid,hd->bhi", x, torch.linspace(-1, 1, 24).reshape(3, 8)), (), (2, 3, 4, 8)),
    "einsum trace-like": (lambda x: torch.einsum("bii->bi", x) + torch.einsum("bij->b", x)[:, None], (), (2, 5, 5)),
    "Tensor.unfold frames": (lambda x: x.unfold(-1, 6, 2).pow(2).sum(-1), (), (1, 2, 20)),
    "einsum outer": (lambda x: torch.einsum("bi,bj->bij", x, x * 2), (), (2, 6)),
    # rearrangements
    "flip": (lambda x: torch.flip(x, [-1, 1]), (), (2, 4, 10)),
    "roll": (lambda x: torch.roll(x, 3, -1) + torch.roll(x, (1, -2), (1, 2)), (), (2, 4, 10)),
    "pixel_shuffle and unshuffle": (lambda x: F.pixel_unshuffle(F.pixel_shuffle(x, 2) * 2, 3), (), (1, 8, 3, 3)),
    "channel_shuffle": (lambda x, m: m(x), (nn.ChannelShuffle(2),), (1, 8, 3, 3)),
    "F.unfold (im2col) with padding": (lambda x: F.unfold(x, 3, padding=1, stride=2), (), (1, 2, 5, 6)),
    # pooling
    "AdaptiveMaxPool2d((1, 1))": (lambda x, m: m(x), (nn.AdaptiveMaxPool2d((1, 1)),), (2, 4, 5, 6)),
    "AdaptiveMaxPool1d uneven bins": (lambda x, m: m(x), (nn.AdaptiveMaxPool1d(3),), (2, 4, 10)),
    "AdaptiveMaxPool2d uneven bins": (lambda x, m: m(x), (nn.AdaptiveMaxPool2d((2, 3)),), (1, 2, 5, 7)),
    # pooling of a transposed input
    "AdaptiveAvgPool1d of a transpose": (lambda x, m: m(x.transpose(1, 2)), (nn.AdaptiveAvgPool1d(4),), (2, 8, 3)),
    "AdaptiveAvgPool1d(1) of a transpose": (lambda x, m: m(x.transpose(1, 2)).squeeze(-1), (nn.AdaptiveAvgPool1d(1),), (1, 10, 6)),
    # a ReLU after a reshape of a product: applied by the product, or not where the product is read twice
    "relu of a reshaped linear": (lambda x, m: torch.relu(m(x).reshape(2, 3, 4, 2)), (nn.Linear(5, 8),), (2, 3, 5)),
    "relu of a reshaped linear read twice": (lambda x, m: (lambda y: (torch.relu(y.reshape(6, 8)), y))(m(x)), (nn.Linear(5, 8),), (2, 3, 5)),
    "relu of a reshaped conv": (lambda x, m: torch.relu(m(x).flatten(1)), (nn.Conv2d(2, 4, 3, padding=1),), (1, 2, 5, 6)),
    # a residual connection after a linear layer: added by the product as it writes its output, or
    # not where the other operand is computed after the product, or the product is read twice
    "residual after a linear": (lambda x, m: m(x) + x, (nn.Linear(5, 5),), (2, 3, 5)),
    "residual first, then the linear": (lambda x, m: x + m(x), (nn.Linear(5, 5),), (2, 3, 5)),
    "residual after a linear's relu": (lambda x, m: torch.relu(m(x)) + x, (nn.Linear(5, 5),), (2, 3, 5)),
    "relu after a residual": (lambda x, m: torch.relu(m(x) + x), (nn.Linear(5, 5),), (2, 3, 5)),
    "residual computed after the linear": (lambda x, m: (lambda y: y + torch.tanh(x))(m(x)), (nn.Linear(5, 5),), (2, 3, 5)),
    "residual of a linear read twice": (lambda x, m: (lambda y: (y + x, y))(m(x)), (nn.Linear(5, 5),), (2, 3, 5)),
    "residual of a reshaped linear": (lambda x, m: m(x).reshape(6, 5) + x.reshape(6, 5), (nn.Linear(5, 5),), (2, 3, 5)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_glue_op_matches_pytorch(name):
    fn, modules, shape = CASES[name]
    torch.manual_seed(0)
    assert_parity(Lambda(fn, *modules).eval(), torch.randn(*shape))


@pytest.mark.parametrize("largest", [True, False])
def test_topk_orders_nan_as_pytorch_does(largest):
    """NaN counts as the largest value (first for largest=True, last otherwise); the values match
    PyTorch's (the order of equal values' indices is unspecified in PyTorch, so only values are compared)."""
    x = torch.randn(2, 3, 9)
    x[0, 1, 4] = float("nan")
    x[1, 2, 0] = float("nan")
    x[1, 2, 7] = float("nan")
    assert_parity(Lambda(lambda t: torch.topk(t * 1, 4, dim=-1, largest=largest)[0]).eval(), x)


def test_relu_keeps_the_sign_of_zero_and_nan_as_pytorch_does():
    """torch.relu passes -0 and NaN through (1.13: relu(-0.0) is -0.0); the engine's relu op gives the
    same bits, not just equal values (the parity bound cannot tell -0 from +0)."""
    values = [-0.0, 0.0, float("nan"), -1.5, 2.5, float("-inf"), float("inf")]
    x = torch.tensor(values * 5).reshape(5, 7)
    model = Lambda(lambda t: torch.relu(t * 1.0)).eval()
    expected = model(x).numpy()
    got = engine_outputs(model, x, 1)[0]
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    finite = ~np.isnan(expected)
    assert np.array_equal(got[finite], expected[finite])
    assert np.array_equal(np.signbit(got[finite]), np.signbit(expected[finite])), "the sign of a zero differs from PyTorch's"
