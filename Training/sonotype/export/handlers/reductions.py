"""Reductions and normalisation: sums, means, extrema, arg-extrema, variance, softmax, cumulative
sums, logsumexp, and layer, group, instance and batch norm."""

import math
from typing import List

import torch

from ..emit import binary, layer_norm, normal_axes, normal_axis, permute, reshape, shape_list
from ..errors import ExportError
from ..registry import handles


def _reduce_handler(engine_op: str):
    def handler(r, a, out):
        x = r.value_id(a["self"])
        rank = len(r.graph.shape(x))
        axes = normal_axes(a.get("dim"), rank)
        keepdim = bool(a.get("keepdim") or False)
        return r.graph.add(engine_op, [x], shape_list(out), axes=axes, keepdim=keepdim)
    return handler


handles("mean")(_reduce_handler("reduce_mean"))
handles("sum")(_reduce_handler("reduce_sum"))
handles("amax")(_reduce_handler("reduce_max"))
handles("amin")(_reduce_handler("reduce_min"))


@handles("max", "min")
def _max_min(r, a, out):
    is_min = a["__op__"] == "min"
    if a.get("other") is not None:  # elementwise max(a, b)
        return binary(r, "minimum" if is_min else "maximum", a["self"], a["other"], shape_list(out))
    x = r.value_id(a["self"])
    rank = len(r.graph.shape(x))
    reduce_op = "reduce_min" if is_min else "reduce_max"
    if isinstance(out, torch.Tensor):  # over all elements
        return r.graph.add(reduce_op, [x], shape_list(out), axes=list(range(rank)), keepdim=False)
    axis = normal_axis(a["dim"], rank)
    keepdim = bool(a["keepdim"])
    values = r.graph.add(reduce_op, [x], shape_list(out[0]), axes=[axis], keepdim=keepdim)
    indices = r.graph.add("argmin" if is_min else "argmax", [x], shape_list(out[1]), axis=axis, keepdim=keepdim)
    return [values, indices]


@handles("argmax", "argmin")
def _argmax(r, a, out):
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    op = a["__op__"]
    if a["dim"] is None:
        flat = reshape(r, x, [math.prod(shape)])
        return reshape(r, r.graph.add(op, [flat], [1], axis=0, keepdim=True), shape_list(out))
    return r.graph.add(op, [x], shape_list(out), axis=normal_axis(a["dim"], len(shape)), keepdim=bool(a["keepdim"]))


def _correction(a) -> float:
    if a.get("correction") is not None:
        return float(a["correction"])
    if a.get("unbiased") is not None:
        return 1.0 if a["unbiased"] else 0.0
    return 1.0


@handles("var", "std")
def _var(r, a, out):
    x = r.value_id(a["self"])
    rank = len(r.graph.shape(x))
    axes = normal_axes(a.get("dim"), rank)
    keepdim = bool(a.get("keepdim") or False)
    variance = r.graph.add("var", [x], shape_list(out), axes=axes, keepdim=keepdim, correction=_correction(a))
    if a.get("__op__") == "std":
        return r.graph.add("sqrt", [variance], shape_list(out))
    return variance


def _along_axis(engine_op: str):
    """The handler of an op along the one axis `dim` (softmax, log-softmax, cumulative sum)."""
    def handler(r, a, out):
        x = r.value_id(a["self"])
        return r.graph.add(engine_op, [x], shape_list(out), axis=normal_axis(a["dim"], len(r.graph.shape(x))))
    return handler


handles("_softmax", "softmax")(_along_axis("softmax"))
handles("_log_softmax", "log_softmax")(_along_axis("log_softmax"))
handles("cumsum")(_along_axis("cumsum"))


@handles("native_layer_norm")
def _native_layer_norm(r, a, out):
    x = r.value_id(a["input"])
    weight = r.value_id(a["weight"]) if a["weight"] is not None else None
    bias = r.value_id(a["bias"]) if a["bias"] is not None else None
    return [layer_norm(r, x, len(a["normalized_shape"]), weight, bias, a["eps"]), None, None]


def _channel_affine(r, x: int, weight, bias) -> int:
    """x * weight[c] + bias[c] over axis 1 (either may be None)."""
    shape = list(r.graph.shape(x))
    per_channel = [shape[1]] + [1] * (len(shape) - 2)
    if weight is not None:
        x = r.graph.add("mul", [x, reshape(r, r.value_id(weight), per_channel)], shape)
    if bias is not None:
        x = r.graph.add("add", [x, reshape(r, r.value_id(bias), per_channel)], shape)
    return x


def _normalize_groups(r, x: int, groups_first: List[int], eps: float) -> int:
    """(x - mean) / sqrt(var + eps) with the statistics of each row of x reshaped to groups_first + [-1]."""
    shape = list(r.graph.shape(x))
    rows = reshape(r, x, groups_first + [math.prod(shape) // max(math.prod(groups_first), 1)])
    normalized = r.graph.add("layer_norm", [rows, None, None], r.graph.shape(rows), axis=len(groups_first), eps=float(eps))
    return reshape(r, normalized, shape)


@handles("native_group_norm")
def _group_norm(r, a, out):
    x = r.value_id(a["input"])
    shape = list(r.graph.shape(x))
    y = _normalize_groups(r, x, [shape[0], int(a["group"])], a["eps"])
    return [_channel_affine(r, y, a["weight"], a["bias"]), None, None]


def _batch_statistics_norm(r, a, out):
    """BatchNorm with the input's own statistics (over every axis but 1): what InstanceNorm (as
    PyTorch runs it, on [1, N*C, …]) and a BatchNorm without running statistics compute."""
    x = r.value_id(a["input"])
    shape = list(r.graph.shape(x))
    rank = len(shape)
    channels_first = permute(r, x, [1, 0] + list(range(2, rank)))
    y = _normalize_groups(r, channels_first, [shape[1]], a["eps"])
    y = permute(r, y, [1, 0] + list(range(2, rank)))
    return [_channel_affine(r, y, a["weight"], a["bias"])] + [None] * (len(out) - 1)


@handles("native_batch_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_no_training")
def _batch_norm(r, a, out):
    if a.get("running_mean") is None:
        return _batch_statistics_norm(r, a, out)
    if a.get("training"):
        raise ExportError("BatchNorm runs in training mode: call model.eval() before exporting")
    x = r.value_id(a["input"])
    inputs = [x, r.value_id(a["running_mean"]), r.value_id(a["running_var"]),
              r.value_id(a["weight"]) if a["weight"] is not None else None,
              r.value_id(a["bias"]) if a["bias"] is not None else None]
    y = r.graph.add("batch_norm", inputs, shape_list(out[0]), eps=float(a["eps"]))
    return [y] + [None] * (len(out) - 1)


@handles("logsumexp")
def _logsumexp(r, a, out):
    """As PyTorch: m = max (0 where infinite), log(Σ exp(x − m)) + m."""
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    axes = normal_axes(a["dim"], len(shape))
    kept = [1 if i in axes else d for i, d in enumerate(shape)]
    peak = r.graph.add("reduce_max", [x], kept, axes=axes, keepdim=True)
    infinite = r.graph.add("eq", [r.graph.add("abs", [peak], kept), r.graph.add_scalar(math.inf)], kept)
    peak = r.graph.add("where", [infinite, r.graph.add_scalar(0.0), peak], kept)
    shifted = r.graph.add("exp", [r.graph.add("sub", [x, peak], shape)], shape)
    total = r.graph.add("log", [r.graph.add("reduce_sum", [shifted], kept, axes=axes, keepdim=True)], kept)
    return reshape(r, r.graph.add("add", [total, peak], kept), shape_list(out))


@handles("var_mean", "std_mean")
def _var_mean(r, a, out):
    x = r.value_id(a["self"])
    axes = normal_axes(a.get("dim"), len(r.graph.shape(x)))
    keepdim = bool(a.get("keepdim") or False)
    spread = r.graph.add("var", [x], shape_list(out[0]), axes=axes, keepdim=keepdim, correction=_correction(a))
    if a["__op__"] == "std_mean":
        spread = r.graph.add("sqrt", [spread], shape_list(out[0]))
    return [spread, r.graph.add("reduce_mean", [x], shape_list(out[1]), axes=axes, keepdim=keepdim)]
