"""shared/seeds/001: the LayerNorm numbers printed in the post, reproduced by the engine from the
printed inputs (printed to 4 decimals, hence the 5e-4 tolerance); and seed 000's question: does
LayerNorm(d_model) give the same result on [B, L, D] and [L, B, D] layouts?"""

import os
import tempfile

import numpy as np
import torch

from sonotype.engine_cli import run_model
from sonotype.export import export_model

# First example: LayerNorm(4) (default affine, weight 1 / bias 0) over the last dim of [2, 3, 4].
X1 = [[[0.5909, 0.1326, 0.8100, 0.7631], [0.5831, -1.7923, -0.1453, -0.6882], [1.1280, 1.6121, -1.2383, 0.2150]],
      [[-0.2128, -0.5246, -0.0511, 0.2798], [0.8254, 1.2262, -0.0252, -1.9972], [-0.6092, -0.4709, -0.8038, -1.2711]]]
Y1 = [[[0.0626, -1.6495, 0.8810, 0.7060], [1.2621, -1.4789, 0.4216, -0.2048], [0.6437, 1.0897, -1.5360, -0.1973]],
      [[-0.2950, -1.3698, 0.2621, 1.4027], [0.6585, 0.9811, -0.0262, -1.6134], [0.5934, 1.0505, -0.0497, -1.5942]]]

# Second example: LayerNorm(4, elementwise_affine=False) over the last dim.
X2 = [[[-0.0594, -0.8702, -1.9837, 0.2914], [-0.4774, 1.0372, 0.6425, -1.1357], [0.3872, -0.9190, -0.5774, 0.3281]],
      [[-0.5548, 0.0815, 0.2333, 0.3569], [1.0380, -0.1756, -0.7417, 2.2930], [-0.0075, -0.3623, 1.9310, -0.7043]]]
Y2 = [[[0.6813, -0.2454, -1.5180, 1.0822], [-0.5700, 1.1774, 0.7220, -1.3295], [1.0285, -1.2779, -0.6747, 0.9241]],
      [[-1.6638, 0.1490, 0.5814, 0.9334], [0.3720, -0.6668, -1.1513, 1.4462], [-0.2171, -0.5644, 1.6809, -0.8994]]]

# Third example: LayerNorm([C, H, W] = [3, 2, 4], elementwise_affine=False) on [2, 3, 2, 4].
X3 = [[[[1.0902, -0.8648, 1.5785, 0.3087], [0.0249, -1.3477, -0.9565, -1.5024]],
       [[1.8024, -0.2894, 0.7284, 0.7822], [1.4385, -0.2848, -0.3114, 0.4633]],
       [[0.9061, 0.3066, 0.9916, 0.9284], [0.3356, 0.9162, -0.4579, 1.0669]]],
      [[[-0.8292, 0.9111, -0.7307, -1.1003], [0.3441, -1.9823, 0.1313, 0.2048]],
       [[-0.2838, 0.1147, -0.1605, -0.4637], [-2.1343, -0.4402, 1.6685, 0.4455]],
       [[0.6895, -2.7331, 1.1693, -0.6999], [-0.3497, -0.2942, -0.0028, -1.3541]]]]
Y3 = [[[[0.8653, -1.3279, 1.4131, -0.0114], [-0.3298, -1.8697, -1.4309, -2.0433]],
       [[1.6643, -0.6824, 0.4594, 0.5198], [1.2560, -0.6772, -0.7071, 0.1619]],
       [[0.6587, -0.0137, 0.7547, 0.6838], [0.0188, 0.6701, -0.8715, 0.8392]]],
      [[[-0.4938, 1.2220, -0.3967, -0.7610], [0.6629, -1.6306, 0.4531, 0.5256]],
       [[0.0439, 0.4368, 0.1655, -0.1335], [-1.7805, -0.1103, 1.9686, 0.7629]],
       [[1.0035, -2.3707, 1.4764, -0.3663], [-0.0211, 0.0337, 0.3210, -1.0112]]]]

# Fourth example (the custom_layer_norm comparison): LayerNorm(4, elementwise_affine=False).
X4 = [[[-0.4808, -0.1981, 0.4538, -1.2653], [0.3578, 0.6592, 0.2161, 0.3852], [1.2184, -0.4238, -0.3415, -0.3487]],
      [[0.9874, -1.7737, 0.1886, 0.0448], [-0.5162, 0.7872, -0.3433, -0.3266], [-0.5459, -0.0371, 1.2625, -1.6030]]]
Y4 = [[[-0.1755, 0.2829, 1.3397, -1.4471], [-0.2916, 1.5871, -1.1747, -0.1208], [1.7301, -0.6528, -0.5334, -0.5439]],
      [[1.1142, -1.6189, 0.3235, 0.1812], [-0.8048, 1.7141, -0.4709, -0.4384], [-0.3057, 0.1880, 1.4489, -1.3312]]]


def run_engine(module, x):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "layer_norm.safetensors")
        export_model(module.eval(), x, path)
        return run_model(path, x.numpy())


def check(module, x_values, y_values):
    x = torch.tensor(x_values)
    got = run_engine(module, x)
    error = np.abs(got - np.array(y_values, dtype=np.float32)).max()
    assert error <= 5e-4, f"max error {error}"


def test_layer_norm_last_dim_default_affine():
    check(torch.nn.LayerNorm(4), X1, Y1)


def test_layer_norm_last_dim_no_affine():
    check(torch.nn.LayerNorm(4, elementwise_affine=False), X2, Y2)


def test_layer_norm_over_chw():
    check(torch.nn.LayerNorm([3, 2, 4], elementwise_affine=False), X3, Y3)


def test_layer_norm_custom_comparison_example():
    check(torch.nn.LayerNorm(4, elementwise_affine=False), X4, Y4)


def test_layer_norm_same_on_batch_first_and_seq_first_layouts():
    """Seed 000's question: LayerNorm(d_model) normalises the last axis only, so [B, L, D] and the
    same data as [L, B, D] give the same numbers, position by position."""
    torch.manual_seed(0)
    norm = torch.nn.LayerNorm(16)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.uniform_(-1, 1)
    x_batch_first = torch.randn(2, 7, 16)           # [B, L, D]
    x_seq_first = x_batch_first.permute(1, 0, 2).contiguous()  # [L, B, D]
    y_batch_first = run_engine(norm, x_batch_first)
    y_seq_first = run_engine(norm, x_seq_first)
    np.testing.assert_array_equal(y_batch_first, y_seq_first.transpose(1, 0, 2))
    with torch.no_grad():
        np.testing.assert_allclose(y_batch_first, norm(x_batch_first).numpy(), atol=1e-5, rtol=1e-4)
