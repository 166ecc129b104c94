"""Parity with PyTorch for the layers and tensor operations the engine supports."""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from sonotype.testing.parity import Lambda, assert_parity


def with_running_stats(bn):
    """Non-trivial running statistics (and affine parameters, if any), so eval BatchNorm is really tested."""
    with torch.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        if bn.affine:
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.5, 0.5)
    return bn


CASES = {
    # normalisation
    "layer_norm_last": (lambda: nn.LayerNorm(8), (2, 5, 8)),
    "layer_norm_chw": (lambda: nn.LayerNorm([3, 4, 5]), (2, 3, 4, 5)),
    "layer_norm_no_affine": (lambda: nn.LayerNorm([4, 5], elementwise_affine=False), (2, 3, 4, 5)),
    "layer_norm_eps": (lambda: nn.LayerNorm(6, eps=1e-3), (4, 6)),
    "batch_norm_1d": (lambda: with_running_stats(nn.BatchNorm1d(6)), (2, 6, 9)),
    "batch_norm_1d_2d_input": (lambda: with_running_stats(nn.BatchNorm1d(6)), (3, 6)),
    "batch_norm_2d": (lambda: with_running_stats(nn.BatchNorm2d(4)), (2, 4, 5, 6)),
    "batch_norm_no_affine": (lambda: with_running_stats(nn.BatchNorm2d(4, affine=False)), (1, 4, 3, 3)),
    # convolution
    # 3x3, stride 1, 8 or more channels: Winograd on the vector paths, F(4x2, 3x3) (4-row tiles)
    # where the output has 3, 4 or 7 and more rows, F(2x2, 3x3) otherwise (the unbatched cases
    # and one output row here). Odd and even sizes (a last tile partly outside the output), tile
    # rows longer and shorter than a register, no padding and more, groups, batches.
    "conv2d_winograd_bn_relu": (lambda: nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), with_running_stats(nn.BatchNorm2d(16)), nn.ReLU()),
                                (2, 8, 13, 21)),
    "conv2d_winograd_long_rows": (lambda: nn.Conv2d(16, 32, 3, padding=1), (1, 16, 32, 101)),
    "conv2d_winograd_even": (lambda: nn.Conv2d(16, 8, 3, padding=1, bias=False), (1, 16, 12, 40)),
    "conv2d_winograd_no_padding": (lambda: nn.Conv2d(8, 9, 3), (1, 8, 9, 35)),
    "conv2d_winograd_padding_2": (lambda: nn.Conv2d(8, 12, 3, padding=2), (1, 8, 7, 9)),
    "conv2d_winograd_groups": (lambda: nn.Conv2d(16, 16, 3, padding=1, groups=2), (1, 16, 10, 19)),
    "conv2d_winograd_unbatched": (lambda: nn.Conv2d(8, 8, 3, padding=1), (8, 6, 50)),
    "conv2d_winograd_one_row": (lambda: nn.Conv2d(8, 8, 3, padding=1), (1, 8, 1, 17)),
    # A max pooling after it, taken into its output pass: 2x1, 1x2 and 2x2 windows, floor and
    # ceil mode on odd sizes, after a BatchNorm and ReLU or straight after the convolution; and
    # one the pass cannot take (stride 1), and a convolution whose output is read twice.
    "conv2d_winograd_bn_relu_pool_2x1": (lambda: nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), with_running_stats(nn.BatchNorm2d(16)), nn.ReLU(),
                                                                nn.MaxPool2d((2, 1))), (1, 8, 15, 37)),
    "conv2d_winograd_pool_2x2_ceil": (lambda: nn.Sequential(nn.Conv2d(16, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, ceil_mode=True)),
                                      (2, 16, 13, 35)),
    "conv2d_winograd_pool_2x2_floor": (lambda: nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.MaxPool2d(2)), (1, 8, 11, 33)),
    "conv2d_winograd_pool_1x2": (lambda: nn.Sequential(nn.Conv2d(8, 8, 3), nn.MaxPool2d((1, 2), ceil_mode=True)), (1, 8, 6, 20)),
    "conv2d_winograd_pool_unbatched": (lambda: nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.MaxPool2d(2, ceil_mode=True)), (8, 5, 7)),
    "conv2d_winograd_pool_stride_1": (lambda: nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.MaxPool2d(2, stride=1)), (1, 8, 9, 12)),
    "conv2d_winograd_read_twice": (lambda: Lambda(lambda x, conv: (lambda y: F.max_pool2d(y, 2) + F.max_pool2d(y, 2, ceil_mode=True))(conv(x)),
                                                  nn.Conv2d(8, 8, 3, padding=1)), (1, 8, 10, 10)),
    # Fewer channels (the stride-1 path): a 2x1 max pooling after it taken into its copy-out, over
    # several chunks (the built-in model's stem), in ceil and floor mode on odd heights.
    "conv2d_stem_bn_relu_pool_2x1": (lambda: nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), with_running_stats(nn.BatchNorm2d(16)), nn.ReLU(),
                                                            nn.MaxPool2d((2, 1))), (1, 1, 64, 101)),
    "conv2d_pool_2x1_ceil": (lambda: nn.Sequential(nn.Conv2d(2, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d((2, 1), ceil_mode=True)), (2, 2, 13, 30)),
    "conv2d_pool_2x1_floor": (lambda: nn.Sequential(nn.Conv2d(3, 5, 3, padding=1), nn.MaxPool2d((2, 1))), (1, 3, 11, 9)),
    # Rows so wide that a pair of them outgrows the planned chunk: the pooling stays a pass of its own.
    "conv2d_pool_2x1_wide_rows": (lambda: nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.MaxPool2d((2, 1))), (1, 1, 4, 5000)),
    "conv1d": (lambda: nn.Conv1d(4, 6, 3), (1, 4, 20)),
    "conv1d_stride_pad_dilation": (lambda: nn.Conv1d(4, 6, 5, stride=2, padding=3, dilation=2), (2, 4, 31)),
    "conv1d_same": (lambda: nn.Conv1d(4, 6, 4, padding="same"), (1, 4, 17)),
    "conv1d_groups": (lambda: nn.Conv1d(6, 9, 3, groups=3, padding=1), (1, 6, 12)),
    "conv1d_no_bias_1x1": (lambda: nn.Conv1d(5, 7, 1, bias=False), (1, 5, 11)),
    # Unpadded 1-wide kernels: the input read in place, the products written as the output rows.
    "conv2d_1x1_relu_groups": (lambda: nn.Sequential(nn.Conv2d(6, 8, 1, groups=2), nn.ReLU()), (2, 6, 5, 7)),
    "conv2d_3x1_padded_rows_relu": (lambda: nn.Sequential(nn.Conv2d(3, 4, (3, 1), padding=(1, 0)), nn.ReLU()), (1, 3, 9, 6)),
    "conv1d_1x1_several_chunks": (lambda: nn.Conv1d(4, 40, 1), (1, 4, 3000)),
    # Few positions (the built-in model's projection): a product over the positions' rows,
    # transposed into the output, pads less; with a BatchNorm folded in and a ReLU after.
    "conv1d_1x1_few_positions": (lambda: nn.Conv1d(256, 96, 1), (2, 256, 51)),
    "conv1d_1x1_few_positions_bn_relu": (lambda: nn.Sequential(nn.Conv1d(128, 64, 1, bias=False), with_running_stats(nn.BatchNorm1d(64)),
                                                               nn.ReLU()), (1, 128, 19)),
    # A 1x1 projection to tokens, then permuted to [batch, positions, channels]: written so by a
    # product over the positions' rows (bias, BatchNorm and ReLU in it); where it cannot (groups,
    # a stride, a permute that does not swap channels and positions) the permute runs.
    "conv1d_1x1_to_tokens": (lambda: Lambda(lambda x, conv: conv(x).permute(0, 2, 1) * 1.5, nn.Conv1d(24, 40, 1)), (2, 24, 51)),
    "conv1d_1x1_bn_relu_to_tokens": (lambda: Lambda(lambda x, conv, bn: F.relu(bn(conv(x))).permute(0, 2, 1) + 1, nn.Conv1d(7, 9, 1, bias=False),
                                                    with_running_stats(nn.BatchNorm1d(9))), (3, 7, 5)),
    "conv1d_1x1_to_tokens_groups": (lambda: Lambda(lambda x, conv: conv(x).permute(0, 2, 1) * 1.5, nn.Conv1d(6, 8, 1, groups=2)), (1, 6, 10)),
    "conv1d_1x1_stride_to_tokens": (lambda: Lambda(lambda x, conv: conv(x).permute(0, 2, 1) * 1.5, nn.Conv1d(6, 8, 1, stride=2)), (1, 6, 11)),
    "conv1d_1x1_batch_first_kept": (lambda: Lambda(lambda x, conv: conv(x).permute(1, 0, 2) * 1.5, nn.Conv1d(6, 8, 1)), (2, 6, 11)),
    "conv2d": (lambda: nn.Conv2d(3, 5, 3), (1, 3, 10, 12)),
    "conv2d_stride_pad": (lambda: nn.Conv2d(3, 5, (3, 5), stride=(2, 1), padding=(1, 2)), (2, 3, 11, 13)),
    "conv2d_same_dilation": (lambda: nn.Conv2d(3, 4, 3, padding="same", dilation=2), (1, 3, 9, 9)),
    "conv2d_depthwise": (lambda: nn.Conv2d(4, 8, 3, groups=4), (1, 4, 8, 8)),
    # the engine folds BatchNorm into the convolution before it and runs a ReLU in its output pass
    "conv2d_bn_relu": (lambda: nn.Sequential(nn.Conv2d(3, 20, 3, padding=1), with_running_stats(nn.BatchNorm2d(20)), nn.ReLU()),
                       (2, 3, 17, 40)),
    "conv2d_no_bias_bn_no_affine_relu_strided": (lambda: nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, bias=False),
                                                                       with_running_stats(nn.BatchNorm2d(8, affine=False)), nn.ReLU()),
                                                 (1, 3, 15, 21)),
    "conv1d_groups_bn_relu": (lambda: nn.Sequential(nn.Conv1d(6, 12, 3, groups=3, padding=2, dilation=2),
                                                    with_running_stats(nn.BatchNorm1d(12)), nn.ReLU()), (1, 6, 70)),
    # the conv's output read twice: nothing may be folded into it
    "conv2d_output_also_read_by_bn": (lambda: Lambda(lambda x, conv, bn: (lambda y: bn(y) + y.relu())(conv(x)), nn.Conv2d(2, 4, 3),
                                                     with_running_stats(nn.BatchNorm2d(4))), (1, 2, 9, 9)),
    # pooling
    "max_pool1d": (lambda: nn.MaxPool1d(3, stride=2, padding=1), (1, 4, 17)),
    "max_pool2d": (lambda: nn.MaxPool2d(2), (1, 3, 8, 10)),
    "max_pool2d_ceil_dilation": (lambda: nn.MaxPool2d(3, stride=2, padding=1, dilation=2, ceil_mode=True), (1, 2, 11, 12)),
    "avg_pool1d": (lambda: nn.AvgPool1d(4, stride=2, padding=2), (1, 3, 15)),
    "avg_pool2d": (lambda: nn.AvgPool2d(3, stride=2, padding=1), (1, 3, 9, 10)),
    "avg_pool2d_no_pad_count_ceil": (lambda: nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), (1, 2, 10, 9)),
    "avg_pool2d_divisor": (lambda: nn.AvgPool2d(2, divisor_override=3), (1, 2, 6, 6)),
    "avg_pool2d_wide_rows_ceil": (lambda: nn.AvgPool2d(2, ceil_mode=True), (1, 4, 33, 101)),  # the vectorised interior, an edge column
    "avg_pool2d_stride1": (lambda: nn.AvgPool2d(3, stride=1, padding=1), (1, 2, 12, 40)),
    "adaptive_avg_pool1d": (lambda: nn.AdaptiveAvgPool1d(5), (1, 3, 17)),
    "adaptive_avg_pool2d": (lambda: nn.AdaptiveAvgPool2d((3, 4)), (1, 3, 10, 9)),
    "adaptive_avg_pool2d_global": (lambda: nn.AdaptiveAvgPool2d(1), (2, 3, 7, 7)),
    # activations
    "gelu": (lambda: nn.GELU(), (2, 50)),
    "gelu_tanh": (lambda: nn.GELU(approximate="tanh"), (2, 50)),
    "relu": (lambda: nn.ReLU(), (2, 50)),
    "silu": (lambda: nn.SiLU(), (2, 50)),
    "sigmoid": (lambda: nn.Sigmoid(), (2, 50)),
    "tanh": (lambda: nn.Tanh(), (2, 50)),
    "softmax": (lambda: nn.Softmax(dim=1), (2, 5, 7)),
    "softmax_last": (lambda: nn.Softmax(dim=-1), (2, 5, 7)),
    "log_softmax": (lambda: nn.LogSoftmax(dim=-1), (2, 5, 7)),
    "leaky_relu_elu_hardswish": (lambda: Lambda(lambda x: F.leaky_relu(x, 0.2) + F.elu(x) + F.hardswish(x) + F.hardsigmoid(x) + F.softplus(x)), (3, 40)),
    "dropout_is_identity": (lambda: nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 3)), (4, 8)),
    # tensor operations
    "flatten_linear": (lambda: nn.Sequential(nn.Flatten(), nn.Linear(12, 5)), (2, 3, 4)),
    "reshape_view_permute_transpose": (lambda: Lambda(lambda x: x.reshape(2, 6, 4).permute(2, 0, 1).transpose(0, 2).contiguous().view(-1, 4) * 2), (2, 3, 8)),
    "cat_stack_expand": (lambda: Lambda(lambda x: torch.cat([x, x * 2], dim=1) + torch.stack([x, -x], dim=0).sum(0).repeat(1, 2) + x[:, :1].expand(-1, 8)), (3, 4)),
    "slicing_indexing": (lambda: Lambda(lambda x: x[:, 1:5:2] + x[:, -2:] + x[:, [0, 3]] + x[..., 2:4] * x[:, 0:1]), (3, 6)),
    "select_unbind_split_chunk": (lambda: Lambda(lambda x: x[:, 2] + sum(torch.unbind(x, dim=1)) + torch.split(x, 3, dim=1)[1].sum(1) + torch.chunk(x, 2, dim=1)[0].mean(1)), (4, 6)),
    "broadcasting_arithmetic": (lambda: Lambda(lambda x: (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + 1) * 3 - 1 / (x.abs() + 2) + x ** 2 + torch.maximum(x, -x * 0.5)), (2, 3, 5)),
    "mean_sum_var_max": (lambda: Lambda(lambda x: torch.cat([x.mean((1, 2)).unsqueeze(1), x.sum(1).flatten(1)[:, :2], x.var(2, unbiased=False).mean(1, keepdim=True), x.amax(dim=(1, 2)).unsqueeze(1), x.max(dim=1).values[:, :1]], 1)), (2, 3, 4)),
    # over a middle axis: outputs side by side in memory, eight at a time and the rest
    "mean_sum_over_tokens": (lambda: Lambda(lambda x: torch.cat([x.mean(1), x.sum(1) * 0.5, x.mean((0, 1)).expand(2, -1)], -1)), (2, 9, 21)),
    "matmul_bmm": (lambda: Lambda(lambda x, lin: torch.matmul(x, x.transpose(1, 2)) @ lin(x) + torch.bmm(x, x.transpose(1, 2)).softmax(-1) @ x, nn.Linear(5, 5)), (2, 4, 5)),
    "matmul_broadcast_weight": (lambda: Lambda(lambda x, p: x @ p.weight + p.bias, nn.Linear(5, 5)), (2, 3, 4, 5)),
    "where_masked_fill_compare": (lambda: Lambda(lambda x: torch.where(x > 0, x, x * 0.1).masked_fill(x < -1, -2.0) + (x >= 0.5).float()), (3, 7)),
    "pad_constant": (lambda: Lambda(lambda x: F.pad(x, (1, 2, 0, 3), value=0.5)), (2, 3, 4)),
    "unsqueeze_squeeze": (lambda: Lambda(lambda x: x.unsqueeze(1).unsqueeze(-1).squeeze(-1).squeeze(1) * x), (3, 4)),
    "exp_log_sqrt": (lambda: Lambda(lambda x: torch.exp(-x.abs()) + torch.log(x.abs() + 1) + torch.sqrt(x.abs()) + torch.rsqrt(x.abs() + 1) + torch.erf(x) + torch.sin(x) * torch.cos(x)), (4, 9)),
    "clamp": (lambda: Lambda(lambda x: x.clamp(-0.5, 0.7) + x.clamp(min=0) + F.hardtanh(x) + F.relu6(x * 4)), (4, 9)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_layer(case):
    torch.manual_seed(sum(map(ord, case)))
    factory, shape = CASES[case]
    assert_parity(factory(), torch.randn(*shape))
