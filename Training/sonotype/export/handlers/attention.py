"""Attention on PyTorch's fused eval-mode paths: `_native_multi_head_attention`,
`_transformer_encoder_layer_fwd`, and the NestedTensors of a padding mask they run on."""

import math
from typing import Optional

import torch

from ..emit import layer_norm, linear, permute, reshape, shape_list, slice_
from ..errors import ExportError
from ..registry import handles
from ..tracked import Tracked


def _additive_mask(r, mask: Optional[torch.Tensor], mask_type, batch: int, q_len: int, k_len: int,
                   keep: Optional[torch.Tensor]) -> Optional[int]:
    """An additive float mask broadcastable to [B, H, L, S] (0 = attend, -inf = masked)."""
    pieces = []
    if keep is not None:  # NestedTensor: padded positions are not keys
        pieces.append(torch.zeros(batch, 1, 1, k_len).masked_fill(~keep.reshape(batch, 1, 1, k_len), float("-inf")))
    if mask is not None:
        if r.is_dynamic(mask):
            raise ExportError("an attention mask that depends on the input is not supported")
        const = r.tracked(mask).const
        if const.dtype == torch.bool:
            const = torch.zeros(const.shape).masked_fill(const, float("-inf"))
        if mask_type == 1:  # key padding mask [B, S]
            pieces.append(const.reshape(batch, 1, 1, k_len).float())
        else:  # attention mask [L, S] or [B*H, L, S]
            pieces.append(const.reshape(-1, 1, q_len, k_len).float() if const.dim() == 2 else const.reshape(batch, -1, q_len, k_len).float())
    if not pieces:
        return None
    combined = pieces[0]
    for piece in pieces[1:]:
        combined = combined + piece
    return r.graph.add_tensor("attention_mask", combined)


def multi_head_attention(r, query: int, key: int, value: int, num_heads: int, qkv_weight, qkv_bias,
                         proj_weight, proj_bias, mask_vid: Optional[int], need_weights: bool, average: bool):
    """PyTorch's `_native_multi_head_attention` on batch-first [B, L, E] values."""
    g = r.graph
    batch, q_len, embed = g.shape(query)
    k_len = g.shape(key)[1]
    head_dim = embed // num_heads
    w = r.tracked(qkv_weight).const
    b = r.tracked(qkv_bias).const if qkv_bias is not None else None
    if query == key == value:
        qkv = linear(r, query, r.value_id(qkv_weight), r.value_id(qkv_bias) if qkv_bias is not None else None)
        q, k, v = (slice_(r, qkv, 2, i * embed, embed) for i in range(3))
    else:
        name = r.tracked(qkv_weight).name
        parts = []
        for i, x in enumerate((query, key, value)):
            wi = g.add_tensor(f"{name}.{'qkv'[i]}", w[i * embed:(i + 1) * embed])
            bi = g.add_tensor(f"{r.tracked(qkv_bias).name}.{'qkv'[i]}", b[i * embed:(i + 1) * embed]) if b is not None else None
            parts.append(linear(r, x, wi, bi))
        q, k, v = parts

    def heads(x, length):
        return permute(r, reshape(r, x, [batch, length, num_heads, head_dim]), [0, 2, 1, 3])
    out_shapes = [[batch, num_heads, q_len, head_dim]]
    if need_weights:
        out_shapes.append([batch, num_heads, q_len, k_len])
    results = g.add_node("attention", [heads(q, q_len), heads(k, k_len), heads(v, k_len), mask_vid], out_shapes,
                         scale=1.0 / math.sqrt(head_dim))
    merged = reshape(r, permute(r, results[0], [0, 2, 1, 3]), [batch, q_len, embed])
    output = linear(r, merged, r.value_id(proj_weight), r.value_id(proj_bias) if proj_bias is not None else None)
    weights = None
    if need_weights:
        weights = results[1]
        if average:
            weights = g.add("reduce_mean", [weights], [batch, q_len, k_len], axes=[1], keepdim=False)
    return output, weights


def _nested_keep(r, t: torch.Tensor) -> Optional[torch.Tensor]:
    return r.tracked(t).nested_keep if t.is_nested else None


@handles("_native_multi_head_attention")
def _native_mha(r, a, out):
    query, key, value = a["query"], a["key"], a["value"]
    if query.is_nested or key.is_nested:
        raise ExportError("NestedTensor inputs to MultiheadAttention are not supported")
    q, k, v = r.value_id(query), r.value_id(key), r.value_id(value)
    batch, q_len, _ = r.graph.shape(q)
    mask = _additive_mask(r, a["mask"], a["mask_type"], batch, q_len, r.graph.shape(k)[1], None)
    output, weights = multi_head_attention(r, q, k, v, a["num_head"], a["qkv_weight"], a["qkv_bias"], a["proj_weight"],
                                           a["proj_bias"], mask, bool(a["need_weights"]), bool(a["average_attn_weights"]))
    return [output, weights]


@handles("_transformer_encoder_layer_fwd")
def _encoder_layer(r, a, out):
    src = a["src"]
    keep = _nested_keep(r, src)
    x = r.value_id(src)
    batch, length, _ = r.graph.shape(x)
    mask = _additive_mask(r, a["mask"], a["mask_type"], batch, length, length, keep)

    def ln(v, index):
        return layer_norm(r, v, 1, r.value_id(a[f"norm_weight_{index}"]), r.value_id(a[f"norm_bias_{index}"]), a["eps"])

    def attention(v):
        return multi_head_attention(r, v, v, v, a["num_heads"], a["qkv_weight"], a["qkv_bias"], a["proj_weight"],
                                    a["proj_bias"], mask, False, False)[0]

    def ffn(v):
        hidden = linear(r, v, r.value_id(a["ffn_weight_1"]), r.value_id(a["ffn_bias_1"]))
        if a["use_gelu"]:
            hidden = r.graph.add("gelu", [hidden], r.graph.shape(hidden), approximate="none")
        else:
            hidden = r.graph.add("relu", [hidden], r.graph.shape(hidden))
        return linear(r, hidden, r.value_id(a["ffn_weight_2"]), r.value_id(a["ffn_bias_2"]))

    shape = r.graph.shape(x)
    if a["norm_first"]:
        x = r.graph.add("add", [x, attention(ln(x, 1))], shape)
        x = r.graph.add("add", [x, ffn(ln(x, 2))], shape)
    else:
        x = ln(r.graph.add("add", [x, attention(x)], shape), 1)
        x = ln(r.graph.add("add", [x, ffn(x)], shape), 2)
    if keep is not None:
        return Tracked(vid=x, nested_keep=keep)
    return x


@handles("_nested_tensor_from_mask")
def _nested_from_mask(r, a, out):
    mask = a["mask"]
    if r.is_dynamic(mask):
        raise ExportError("a padding mask that depends on the input is not supported")
    return Tracked(vid=r.value_id(a["t"]), nested_keep=r.tracked(mask).const.bool())


@handles("_nested_tensor_from_mask_left_aligned")
def _left_aligned(r, a, out):
    return []


@handles("to_padded_tensor")
def _to_padded(r, a, out):
    nested = a["self"]
    keep = _nested_keep(r, nested)
    x = r.value_id(nested)
    length = out.shape[1]  # PyTorch pads to the longest sequence, which may be shorter than the input
    x = slice_(r, x, 1, 0, length)
    keep = keep[:, :length]
    keep_vid = r.graph.add_tensor(f"nested_keep.{id(keep)}", keep.reshape(keep.shape[0], length, 1))
    padding = float(a["padding"])
    return r.graph.add("where", [keep_vid, x, r.graph.add_scalar(padding)], shape_list(out))
