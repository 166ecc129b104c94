"""Parity with PyTorch for nn.TransformerEncoder and nn.MultiheadAttention, fast paths included."""

import itertools

import pytest
import torch
import torch.nn as nn

from sonotype.testing.parity import assert_parity

D_MODEL, HEADS, LENGTH = 32, 4, 12


class Encoder(nn.Module):
    """nn.TransformerEncoder with constant masks (buffers), as a model would hold them."""

    def __init__(self, batch_first, norm_first, activation, mask_kind, num_layers=2):
        super().__init__()
        layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, 64, dropout=0.1, activation=activation,
                                           batch_first=batch_first, norm_first=norm_first)
        self.encoder = nn.TransformerEncoder(layer, num_layers)
        self.mask_kind = mask_kind
        causal = torch.triu(torch.ones(LENGTH, LENGTH, dtype=torch.bool), diagonal=1)
        self.register_buffer("causal_bool", causal)
        self.register_buffer("causal_float", torch.zeros(LENGTH, LENGTH).masked_fill(causal, float("-inf")))
        padding = torch.zeros(1, LENGTH, dtype=torch.bool)
        padding[0, LENGTH - 3:] = True  # the last three tokens are padding
        self.register_buffer("padding", padding)

    def forward(self, x):
        if self.mask_kind == "padding":
            return self.encoder(x, src_key_padding_mask=self.padding)
        if self.mask_kind == "causal_bool":
            return self.encoder(x, mask=self.causal_bool)
        if self.mask_kind == "causal_float":
            return self.encoder(x, mask=self.causal_float)
        return self.encoder(x)


@pytest.mark.parametrize("batch_first,norm_first,activation,mask_kind", list(itertools.product(
    [True, False], [False, True], ["relu", "gelu"], ["none", "padding", "causal_bool", "causal_float"])))
def test_transformer_encoder(batch_first, norm_first, activation, mask_kind):
    torch.manual_seed(7)
    model = Encoder(batch_first, norm_first, activation, mask_kind)
    x = torch.randn(1, LENGTH, D_MODEL) if batch_first else torch.randn(LENGTH, 1, D_MODEL)
    assert_parity(model, x)


@pytest.mark.parametrize("batch_first,mask_kind", list(itertools.product([True, False], ["none", "causal_float"])))
def test_transformer_encoder_batch_of_three(batch_first, mask_kind):
    """Three sequences: each (batch, head) matrix of attention at its own offset, read and written
    through the strides of the permutes that split and merge the heads."""
    torch.manual_seed(9)
    model = Encoder(batch_first, False, "relu", mask_kind)
    x = torch.randn(3, LENGTH, D_MODEL) if batch_first else torch.randn(LENGTH, 3, D_MODEL)
    assert_parity(model, x)


class Attention(nn.Module):
    def __init__(self, batch_first=True, need_weights=True, average=True, kdim=None, vdim=None, self_attention=True, **kwargs):
        super().__init__()
        self.mha = nn.MultiheadAttention(D_MODEL, HEADS, batch_first=batch_first, kdim=kdim, vdim=vdim, **kwargs)
        self.need_weights, self.average, self.self_attention = need_weights, average, self_attention
        self.batch_first = batch_first
        self.key_proj = nn.Linear(D_MODEL, kdim or D_MODEL)
        self.value_proj = nn.Linear(D_MODEL, vdim or D_MODEL)

    def forward(self, x):
        if self.self_attention:
            key = value = x
        else:
            key, value = self.key_proj(x), self.value_proj(torch.tanh(x))
        out, weights = self.mha(x, key, value, need_weights=self.need_weights, average_attn_weights=self.average)
        return (out, weights) if self.need_weights else out


MHA_CASES = {
    "self_weights_avg": dict(),
    "self_weights_per_head": dict(average=False),
    "self_no_weights": dict(need_weights=False),  # eval fast path: _native_multi_head_attention
    "seq_first": dict(batch_first=False),
    "seq_first_no_weights": dict(batch_first=False, need_weights=False),
    "add_bias_kv": dict(add_bias_kv=True),
    "add_zero_attn": dict(add_zero_attn=True),
    "bias_kv_and_zero_attn": dict(add_bias_kv=True, add_zero_attn=True, need_weights=False),
    "no_bias": dict(bias=False),
    "no_bias_fast_path": dict(bias=False, need_weights=False),
    "kdim_vdim": dict(kdim=24, vdim=40, self_attention=False),
    "kdim_vdim_seq_first": dict(kdim=24, vdim=40, self_attention=False, batch_first=False, average=False),
    "cross_attention": dict(self_attention=False, need_weights=False),
}


@pytest.mark.parametrize("case", list(MHA_CASES))
def test_multihead_attention(case):
    torch.manual_seed(11)
    options = MHA_CASES[case]
    model = Attention(**options)
    if options.get("add_bias_kv"):
        with torch.no_grad():
            model.mha.bias_k.normal_()
            model.mha.bias_v.normal_()
    x = torch.randn(1, LENGTH, D_MODEL) if options.get("batch_first", True) else torch.randn(LENGTH, 1, D_MODEL)
    assert_parity(model, x)


@pytest.mark.parametrize("case", ["self_no_weights", "seq_first_no_weights", "cross_attention"])
def test_multihead_attention_batch_of_two(case):
    torch.manual_seed(13)
    options = MHA_CASES[case]
    model = Attention(**options)
    x = torch.randn(2, LENGTH, D_MODEL) if options.get("batch_first", True) else torch.randn(LENGTH, 2, D_MODEL)
    assert_parity(model, x)


def test_large_transformer_config():
    """d_model 256, 8 heads, 6 layers, 256 tokens."""
    torch.manual_seed(5)
    layer = nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True)
    model = nn.TransformerEncoder(layer, 6, enable_nested_tensor=False)
    assert_parity(model, torch.randn(1, 256, 256))
