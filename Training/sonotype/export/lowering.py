"""ATen -> engine-op lowering: one handler per ATen operation on input-dependent tensors.

A handler gets the recorder, the call's arguments bound by name (`a`) and PyTorch's real result
(`out`, whose shapes are the output shapes), adds engine nodes to the graph and returns, for each
tensor PyTorch returned, a graph value id (or None for an output the engine does not compute, or a
`Tracked` for special values).  The engine ops and their attributes are listed in docs/ENGINE.md.
"""

import math
from typing import Callable, Dict, List, Optional, Sequence

import torch

from .errors import ExportError
from .recorder import Recorder, Tracked

HANDLERS: Dict[str, Callable] = {}
# Torch functions lowered whole (see recorder.py), by (module object, attribute name), e.g.
# (torch._VF, "gru"): handler(recorder, bound args, out).
FUNCTION_HANDLERS: Dict[tuple, Callable] = {}


def handles(*names: str):
    def register(fn):
        for name in names:
            HANDLERS[name] = fn
        return fn
    return register


def handles_function(owner, *names: str):
    def register(fn):
        for name in names:
            FUNCTION_HANDLERS[(owner, name)] = fn
        return fn
    return register


def bind_function(func, args, kwargs) -> dict:
    """A torch function's arguments by name, from its Python signature where it has one, else
    positionally as "0", "1", … (the C++ functions of torch._VF have no inspectable signature)."""
    import inspect
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
        bound.apply_defaults()
        return dict(bound.arguments)
    except (TypeError, ValueError):
        named = {str(i): a for i, a in enumerate(args)}
        named.update(kwargs)
        return named


def bind(func, args, kwargs) -> dict:
    """The call's arguments by schema name, defaults filled in."""
    bound = {}
    for index, argument in enumerate(func._schema.arguments):
        if index < len(args) and not argument.kwarg_only:
            bound[argument.name] = args[index]
        elif argument.name in kwargs:
            bound[argument.name] = kwargs[argument.name]
        elif argument.has_default_value():
            bound[argument.name] = argument.default_value
        else:
            bound[argument.name] = None
    return bound


# ----- small helpers ----------------------------------------------------------------------------

def _shape(t: torch.Tensor) -> List[int]:
    return list(t.shape)


def _axis(dim: int, rank: int) -> int:
    if rank == 0 and dim in (0, -1):
        return 0
    if not -rank <= dim < rank:
        raise ExportError(f"dimension {dim} out of range for a tensor of rank {rank}")
    return dim % rank


def _axes(dims, rank: int) -> List[int]:
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({_axis(d, rank) for d in dims})


def operand(r: Recorder, x) -> int:
    """A tensor argument's value id, or a stored 0-d constant for a Python number."""
    if isinstance(x, torch.Tensor):
        return r.value_id(x)
    if isinstance(x, (bool, int, float)):
        return r.graph.add_scalar(float(x))
    raise ExportError(f"unsupported argument {x!r}")


def reshape(r: Recorder, vid: int, shape: Sequence[int]) -> int:
    shape = [int(d) for d in shape]
    if list(r.graph.shape(vid)) == shape:
        return vid
    return r.graph.add("reshape", [vid], shape)


def permute(r: Recorder, vid: int, perm: Sequence[int]) -> int:
    in_shape = r.graph.shape(vid)
    perm = [int(p) for p in perm]
    out_shape = [in_shape[p] for p in perm]
    if perm == sorted(perm):
        return vid
    # Moving only size-1 dimensions keeps the memory order: that is a reshape.
    if [p for p in perm if in_shape[p] != 1] == [p for p in range(len(perm)) if in_shape[p] != 1]:
        return reshape(r, vid, out_shape)
    return r.graph.add("permute", [vid], out_shape, perm=perm)


def binary(r: Recorder, op: str, x, y, out_shape) -> int:
    return r.graph.add(op, [operand(r, x), operand(r, y)], out_shape)


def linear(r: Recorder, x: int, weight: int, bias: Optional[int]) -> int:
    """x[..., K] @ weight[N, K]^T + bias[N] (nn.Linear)."""
    out_shape = list(r.graph.shape(x)[:-1]) + [r.graph.shape(weight)[0]]
    return r.graph.add("gemm", [x, weight, bias], out_shape, trans_a=False, trans_b=True, alpha=1.0, beta=1.0)


# ----- identity, layout and shape ---------------------------------------------------------------

@handles("view", "_unsafe_view", "reshape", "squeeze", "unsqueeze", "alias", "detach", "clone", "contiguous",
         "lift_fresh", "lift_fresh_copy", "view_as", "flatten", "unflatten", "_reshape_alias", "dropout",
         "feature_dropout", "alpha_dropout")
def _reshape(r, a, out):
    return reshape(r, r.value_id(a["self"] if "self" in a else a["input"]), _shape(out))


@handles("expand", "broadcast_to", "expand_copy")
def _expand(r, a, out):
    x = r.value_id(a["self"])
    if math.prod(r.graph.shape(x)) == out.numel():
        return reshape(r, x, _shape(out))
    return r.graph.add("expand", [x], _shape(out))


@handles("repeat")
def _repeat(r, a, out):
    x = r.value_id(a["self"])
    repeats = list(a["repeats"])
    shape = [1] * (len(repeats) - len(r.graph.shape(x))) + list(r.graph.shape(x))
    # repeat == expand over an interleaved [r0, s0, r1, s1, ...] shape, then merge the pairs.
    interleaved_in = []
    interleaved_out = []
    for rep, size in zip(repeats, shape):
        interleaved_in += [1, size]
        interleaved_out += [rep, size]
    expanded = r.graph.add("expand", [reshape(r, x, interleaved_in)], interleaved_out)
    return reshape(r, expanded, _shape(out))


@handles("permute")
def _permute(r, a, out):
    x = r.value_id(a["self"])
    rank = len(r.graph.shape(x))
    return permute(r, x, [_axis(d, rank) for d in a["dims"]])


@handles("transpose", "swapaxes", "swapdims")
def _transpose(r, a, out):
    x = r.value_id(a["self"])
    rank = len(r.graph.shape(x))
    perm = list(range(rank))
    d0, d1 = _axis(a["dim0"], rank), _axis(a["dim1"], rank)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return permute(r, x, perm)


@handles("t", "numpy_T")
def _t(r, a, out):
    x = r.value_id(a["self"])
    rank = len(r.graph.shape(x))
    return permute(r, x, list(reversed(range(rank))))


def slice_(r: Recorder, x: int, axis: int, start: int, length: int, step: int = 1) -> int:
    shape = list(r.graph.shape(x))
    if start == 0 and step == 1 and length == shape[axis]:
        return x
    out_shape = shape[:]
    out_shape[axis] = length
    return r.graph.add("slice", [x], out_shape, axis=axis, start=start, step=step)


@handles("slice")
def _slice(r, a, out):
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    axis = _axis(a["dim"], len(shape))
    size = shape[axis]
    start = a["start"] if a["start"] is not None else 0
    step = a["step"] if a["step"] is not None else 1
    if step <= 0:
        raise ExportError("slice step must be positive")
    start = min(max(start + size if start < 0 else start, 0), size)
    return slice_(r, x, axis, start, out.shape[axis], step)


@handles("select")
def _select(r, a, out):
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    axis = _axis(a["dim"], len(shape))
    index = a["index"] + shape[axis] if a["index"] < 0 else a["index"]
    return reshape(r, slice_(r, x, axis, index, 1), _shape(out))


@handles("narrow")
def _narrow(r, a, out):
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    axis = _axis(a["dim"], len(shape))
    start = a["start"] + shape[axis] if a["start"] < 0 else a["start"]
    return slice_(r, x, axis, start, a["length"])


@handles("split", "split_with_sizes", "unbind", "chunk", "tensor_split", "unsafe_split", "unsafe_split_with_sizes",
         "unsafe_chunk", "split_copy", "split_with_sizes_copy", "unbind_copy")
def _split(r, a, out):
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    axis = _axis(a["dim"] if a.get("dim") is not None else 0, len(shape))
    results = []
    start = 0
    for piece in out:
        length = piece.shape[axis] if piece.dim() == len(shape) else 1
        sliced = slice_(r, x, axis, start, length)
        results.append(reshape(r, sliced, _shape(piece)))
        start += length
    return results


@handles("cat", "concat", "concatenate")
def _cat(r, a, out):
    tensors = [t for t in a["tensors"] if not (t.dim() == 1 and t.numel() == 0)]
    rank = out.dim()
    axis = _axis(a["dim"], rank)
    inputs = [r.value_id(t) for t in tensors]
    if len(inputs) == 1:
        return inputs[0]
    return r.graph.add("concat", inputs, _shape(out), axis=axis)


@handles("stack")
def _stack(r, a, out):
    axis = _axis(a["dim"], out.dim())
    inputs = []
    for t in a["tensors"]:
        shape = _shape(t)
        shape.insert(axis, 1)
        inputs.append(reshape(r, r.value_id(t), shape))
    if len(inputs) == 1:
        return inputs[0]
    return r.graph.add("concat", inputs, _shape(out), axis=axis)


@handles("constant_pad_nd")
def _pad(r, a, out):
    x = r.value_id(a["self"])
    rank = len(r.graph.shape(x))
    pad = list(a["pad"])
    pads = [[0, 0] for _ in range(rank)]
    for i in range(len(pad) // 2):
        pads[rank - 1 - i] = [int(pad[2 * i]), int(pad[2 * i + 1])]
    if any(p < 0 for pair in pads for p in pair):
        raise ExportError("negative padding (cropping) is not supported")
    return r.graph.add("pad", [x], _shape(out), pads=pads, value=float(a["value"] or 0.0))


@handles("index_select")
def _index_select(r, a, out):
    index = a["index"]
    if r.is_dynamic(index):
        raise ExportError("indices that depend on the input are not supported")
    x = r.value_id(a["self"])
    axis = _axis(a["dim"], len(r.graph.shape(x)))
    return r.graph.add("index_select", [x], _shape(out), axis=axis, indices=[int(i) for i in index.reshape(-1)])


@handles("index")
def _index(r, a, out):
    indices = list(a["indices"])
    used = [(axis, t) for axis, t in enumerate(indices) if t is not None]
    if len(used) != 1:
        raise ExportError("indexing with more than one index tensor is not supported")
    axis, index = used[0]
    if r.is_dynamic(index):
        raise ExportError("indices that depend on the input are not supported")
    if index.dtype == torch.bool:
        raise ExportError("boolean-mask indexing is not supported (its output shape depends on the data)")
    x = r.value_id(a["self"])
    shape = list(r.graph.shape(x))
    flat = [int(i) + shape[axis] if int(i) < 0 else int(i) for i in index.reshape(-1)]
    selected_shape = shape[:]
    selected_shape[axis] = len(flat)
    selected = r.graph.add("index_select", [x], selected_shape, axis=axis, indices=flat)
    return reshape(r, selected, _shape(out))


@handles("_to_copy", "to")
def _to_copy(r, a, out):
    x = a["self"]
    vid = r.value_id(x)
    source, target = x.dtype, out.dtype
    if target == source or target == torch.float32 or (not source.is_floating_point and not target.is_floating_point and target != torch.bool):
        return reshape(r, vid, _shape(out))
    if target == torch.bool:
        return binary(r, "ne", x, 0.0, _shape(out))
    if not target.is_floating_point:
        return r.graph.add("trunc", [vid], _shape(out))
    raise ExportError(f"conversion to {target} is not supported: the engine computes in float32")


@handles("copy")
def _copy(r, a, out):
    src = r.value_id(a["src"])
    if math.prod(r.graph.shape(src)) == out.numel():
        return reshape(r, src, _shape(out))
    return r.graph.add("expand", [src], _shape(out))


@handles("fill", "zero")
def _fill(r, a, out):
    return Tracked(const=out.detach().clone(), name="const.fill")


# ----- elementwise ------------------------------------------------------------------------------

_BINARY_OPS = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "true_divide": "div", "multiply": "mul",
    "maximum": "maximum", "minimum": "minimum", "fmax": "maximum", "fmin": "minimum",
    "eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge",
    "logical_and": "logical_and", "logical_or": "logical_or", "bitwise_and": "logical_and",
    "bitwise_or": "logical_or", "__and__": "logical_and", "__or__": "logical_or",
}


def _scaled(r: Recorder, x, alpha) -> int:
    """operand(x) * alpha, for ATen's `alpha` argument."""
    vid = operand(r, x)
    if alpha is None or alpha == 1:
        return vid
    return r.graph.add("mul", [vid, r.graph.add_scalar(float(alpha))], r.graph.shape(vid))


def _binary_handler(engine_op: str):
    def handler(r, a, out):
        x, y = a["self"], a["other"]
        if isinstance(x, torch.Tensor) and x.dtype != torch.bool and engine_op.startswith("logical"):
            raise ExportError("bitwise operations on integer tensors are not supported")
        result = r.graph.add(engine_op, [operand(r, x), _scaled(r, y, a.get("alpha"))], _shape(out))
        rounding = a.get("rounding_mode")
        if rounding in ("trunc", "floor"):
            result = r.graph.add(rounding, [result], _shape(out))
        return result
    return handler


for _name, _engine_op in _BINARY_OPS.items():
    HANDLERS[_name] = _binary_handler(_engine_op)


@handles("rsub")
def _rsub(r, a, out):
    return r.graph.add("sub", [operand(r, a["other"]), _scaled(r, a["self"], a.get("alpha"))], _shape(out))


@handles("pow")
def _pow(r, a, out):
    base = a["self"]
    exponent = a["exponent"]
    if isinstance(exponent, (int, float)) and not isinstance(base, (int, float)):
        if exponent == 2:
            return binary(r, "mul", base, base, _shape(out))
        if exponent == 0.5:
            return r.graph.add("sqrt", [r.value_id(base)], _shape(out))
        if exponent == 1:
            return reshape(r, r.value_id(base), _shape(out))
    return binary(r, "pow", base, exponent, _shape(out))


@handles("where")
def _where(r, a, out):
    return r.graph.add("where", [operand(r, a["condition"]), operand(r, a["self"]), operand(r, a["other"])], _shape(out))


@handles("masked_fill")
def _masked_fill(r, a, out):
    return r.graph.add("where", [operand(r, a["mask"]), operand(r, a["value"]), operand(r, a["self"])], _shape(out))


_UNARY_OPS = ["relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "neg", "abs", "erf", "sin", "cos",
              "reciprocal", "silu", "hardsigmoid", "hardswish", "sign", "floor", "ceil", "round", "trunc",
              "log1p", "expm1", "logical_not", "mish", "square", "log2", "exp2"]


def _unary_handler(engine_op: str):
    def handler(r, a, out):
        x = a["self"]
        if engine_op == "square":
            return binary(r, "mul", x, x, _shape(out))
        return r.graph.add(engine_op, [r.value_id(x)], _shape(out))
    return handler


for _name in _UNARY_OPS:
    HANDLERS[_name] = _unary_handler(_name)
HANDLERS["negative"] = _unary_handler("neg")
HANDLERS["bitwise_not"] = _unary_handler("logical_not")
HANDLERS["fix"] = _unary_handler("trunc")


@handles("gelu")
def _gelu(r, a, out):
    approximate = a.get("approximate") or "none"
    return r.graph.add("gelu", [r.value_id(a["self"])], _shape(out), approximate=approximate)


def _clamp_attrs(low, high) -> dict:
    attrs = {}
    if low is not None:
        attrs["min"] = float(low)
    if high is not None:
        attrs["max"] = float(high)
    return attrs


def _clamp_tensor(r: Recorder, x, low, high, out) -> int:
    """clamp with tensor bounds: min(max(x, low), high), broadcast (NaN in x stays NaN)."""
    vid = operand(r, x)
    if low is not None:
        vid = r.graph.add("maximum", [vid, operand(r, low)], _shape(out))
    if high is not None:
        vid = r.graph.add("minimum", [vid, operand(r, high)], _shape(out))
    return vid


@handles("clamp", "clip")
def _clamp(r, a, out):
    if isinstance(a.get("min"), torch.Tensor) or isinstance(a.get("max"), torch.Tensor):
        return _clamp_tensor(r, a["self"], a.get("min"), a.get("max"), out)
    return r.graph.add("clamp", [r.value_id(a["self"])], _shape(out), **_clamp_attrs(a.get("min"), a.get("max")))


@handles("clamp_min")
def _clamp_min(r, a, out):
    if isinstance(a["min"], torch.Tensor):
        return _clamp_tensor(r, a["self"], a["min"], None, out)
    return r.graph.add("clamp", [r.value_id(a["self"])], _shape(out), **_clamp_attrs(a["min"], None))


@handles("clamp_max")
def _clamp_max(r, a, out):
    if isinstance(a["max"], torch.Tensor):
        return _clamp_tensor(r, a["self"], None, a["max"], out)
    return r.graph.add("clamp", [r.value_id(a["self"])], _shape(out), **_clamp_attrs(None, a["max"]))


@handles("hardtanh")
def _hardtanh(r, a, out):
    return r.graph.add("clamp", [r.value_id(a["self"])], _shape(out), **_clamp_attrs(a["min_val"], a["max_val"]))


@handles("leaky_relu")
def _leaky_relu(r, a, out):
    return r.graph.add("leaky_relu", [r.value_id(a["self"])], _shape(out), negative_slope=float(a["negative_slope"]))


@handles("elu")
def _elu(r, a, out):
    return r.graph.add("elu", [r.value_id(a["self"])], _shape(out), alpha=float(a["alpha"]),
                       scale=float(a["scale"]), input_scale=float(a["input_scale"]))


@handles("softplus")
def _softplus(r, a, out):
    return r.graph.add("softplus", [r.value_id(a["self"])], _shape(out), beta=float(a["beta"]),
                       threshold=float(a["threshold"]))


# ----- reductions and normalisation ---------------------------------------------------------------

def _reduce_handler(engine_op: str):
    def handler(r, a, out):
        x = r.value_id(a["self"])
        rank = len(r.graph.shape(x))
        axes = _axes(a.get("dim"), rank)
        keepdim = bool(a.get("keepdim") or False)
        return r.graph.add(engine_op, [x], _shape(out), axes=axes, keepdim=keepdim)
    return handler


HANDLERS["mean"] = _reduce_handler("reduce_mean")
HANDLERS["sum"] = _reduce_handler("reduce_sum")
HANDLERS["amax"] = _reduce_handler("reduce_max")
HANDLERS["amin"] = _reduce_handler("reduce_min")


@handles("max", "min")
def _max_min(r, a, out):
    is_min = a["__op__"] == "min"
    if a.get("other") is not None:  # elementwise max(a, b)
        return binary(r, "minimum" if is_min else "maximum", a["self"], a["other"], _shape(out))
    x = r.value_id(a["self"])
    rank = len(r.graph.shape(x))
    reduce_op = "reduce_min" if is_min else "reduce_max"
    if isinstance(out, torch.Tensor):  # over all elements
        return r.graph.add(reduce_op, [x], _shape(out), axes=list(range(rank)), keepdim=False)
    axis = _axis(a["dim"], rank)
    keepdim = bool(a["keepdim"])
    values = r.graph.add(reduce_op, [x], _shape(out[0]), axes=[axis], keepdim=keepdim)
    indices = r.graph.add("argmin" if is_min else "argmax", [x], _shape(out[1]), axis=axis, keepdim=keepdim)
    return [values, indices]


@handles("argmax", "argmin")
def _argmax(r, a, out):
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    op = a["__op__"]
    if a["dim"] is None:
        flat = reshape(r, x, [math.prod(shape)])
        return reshape(r, r.graph.add(op, [flat], [1], axis=0, keepdim=True), _shape(out))
    return r.graph.add(op, [x], _shape(out), axis=_axis(a["dim"], len(shape)), keepdim=bool(a["keepdim"]))


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
    axes = _axes(a.get("dim"), rank)
    keepdim = bool(a.get("keepdim") or False)
    variance = r.graph.add("var", [x], _shape(out), axes=axes, keepdim=keepdim, correction=_correction(a))
    if a.get("__op__") == "std":
        return r.graph.add("sqrt", [variance], _shape(out))
    return variance


@handles("_softmax", "softmax")
def _softmax(r, a, out):
    x = r.value_id(a["self"])
    return r.graph.add("softmax", [x], _shape(out), axis=_axis(a["dim"], len(r.graph.shape(x))))


@handles("_log_softmax", "log_softmax")
def _log_softmax(r, a, out):
    x = r.value_id(a["self"])
    return r.graph.add("log_softmax", [x], _shape(out), axis=_axis(a["dim"], len(r.graph.shape(x))))


def layer_norm(r: Recorder, x: int, num_normalized: int, weight, bias, eps: float) -> int:
    shape = r.graph.shape(x)
    return r.graph.add("layer_norm", [x, weight, bias], shape, axis=len(shape) - num_normalized, eps=float(eps))


@handles("native_layer_norm")
def _native_layer_norm(r, a, out):
    x = r.value_id(a["input"])
    weight = r.value_id(a["weight"]) if a["weight"] is not None else None
    bias = r.value_id(a["bias"]) if a["bias"] is not None else None
    return [layer_norm(r, x, len(a["normalized_shape"]), weight, bias, a["eps"]), None, None]


def _channel_affine(r: Recorder, x: int, weight, bias) -> int:
    """x * weight[c] + bias[c] over axis 1 (either may be None)."""
    shape = list(r.graph.shape(x))
    per_channel = [shape[1]] + [1] * (len(shape) - 2)
    if weight is not None:
        x = r.graph.add("mul", [x, reshape(r, r.value_id(weight), per_channel)], shape)
    if bias is not None:
        x = r.graph.add("add", [x, reshape(r, r.value_id(bias), per_channel)], shape)
    return x


def _normalize_groups(r: Recorder, x: int, groups_first: List[int], eps: float) -> int:
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


def _batch_statistics_norm(r: Recorder, a, out):
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
    y = r.graph.add("batch_norm", inputs, _shape(out[0]), eps=float(a["eps"]))
    return [y] + [None] * (len(out) - 1)


# ----- matrix products, convolution, pooling ----------------------------------------------------

def _gemm_operand(r: Recorder, t: torch.Tensor):
    """(value id, transposed): a last-two-dims transpose feeding a GEMM is folded into the GEMM."""
    entry = r.tracked(t)
    rank = t.dim()
    if entry.is_const and entry.origin is not None and rank >= 2:
        op_name, source, args = entry.origin
        source_const = source.const
        if source_const is not None and source_const.dim() == rank:
            if op_name in ("t", "numpy_T") and rank == 2:
                return r.value_id_of(source), True
            if op_name == "transpose" and {_axis(args["dim0"], rank), _axis(args["dim1"], rank)} == {rank - 2, rank - 1}:
                return r.value_id_of(source), True
            if op_name == "permute" and [_axis(d, rank) for d in args["dims"]] == list(range(rank - 2)) + [rank - 1, rank - 2]:
                return r.value_id_of(source), True
    vid = r.value_id(t)
    node = r.graph.producer_node(vid)
    if node is not None and node.op == "permute" and node.attrs["perm"] == list(range(rank - 2)) + [rank - 1, rank - 2]:
        return node.inputs[0], True
    return vid, False


def gemm(r: Recorder, a_t, b_t, c, out, alpha=1.0, beta=1.0) -> int:
    a_vid, trans_a = _gemm_operand(r, a_t)
    b_vid, trans_b = _gemm_operand(r, b_t)
    c_vid = operand(r, c) if c is not None and beta != 0 else None
    return r.graph.add("gemm", [a_vid, b_vid, c_vid], _shape(out), trans_a=trans_a, trans_b=trans_b,
                       alpha=float(alpha), beta=float(beta) if c_vid is not None else 0.0)


@handles("mm", "bmm")
def _mm(r, a, out):
    return gemm(r, a["self"], a["mat2"], None, out)


@handles("addmm")
def _addmm(r, a, out):
    return gemm(r, a["mat1"], a["mat2"], a["self"], out, a["alpha"], a["beta"])


@handles("baddbmm")
def _baddbmm(r, a, out):
    return gemm(r, a["batch1"], a["batch2"], a["self"], out, a["alpha"], a["beta"])


@handles("mv")
def _mv(r, a, out):
    vec = r.value_id(a["vec"])
    column = reshape(r, vec, [r.graph.shape(vec)[0], 1])
    mat_vid, trans = _gemm_operand(r, a["self"])
    rows = out.shape[0]
    product = r.graph.add("gemm", [mat_vid, column, None], [rows, 1], trans_a=trans, trans_b=False, alpha=1.0, beta=0.0)
    return reshape(r, product, _shape(out))


def _insert_zeros(r: Recorder, x: int, axis: int, stride: int) -> int:
    """stride - 1 zeros between neighbours along `axis` (length L -> (L - 1) * stride + 1)."""
    if stride == 1:
        return x
    shape = list(r.graph.shape(x))
    length = shape[axis]
    column = reshape(r, x, shape[:axis + 1] + [1] + shape[axis + 1:])
    pads = [[0, 0] for _ in range(len(shape) + 1)]
    pads[axis + 1] = [0, stride - 1]
    spread_shape = shape[:axis + 1] + [stride] + shape[axis + 1:]
    spread = r.graph.add("pad", [column], spread_shape, pads=pads, value=0.0)
    flat_shape = shape[:axis] + [length * stride] + shape[axis + 1:]
    return slice_(r, reshape(r, spread, flat_shape), axis, 0, (length - 1) * stride + 1)


def _transposed_convolution(r: Recorder, a, out) -> int:
    """ConvTranspose as the convolution it is the gradient of: zeros inserted between input
    positions (stride), the borders padded by dilation·(k−1) − padding (+ output_padding after) or
    cropped where that is negative, and the weight flipped with its channel axes swapped per group."""
    weight = a["weight"]
    if r.is_dynamic(weight):
        raise ExportError("a transposed convolution whose weight depends on the input is not supported")
    num_spatial = weight.dim() - 2
    if num_spatial not in (1, 2):
        raise ExportError(f"{num_spatial}-d transposed convolution is not supported (1-d and 2-d are)")

    def spatial(values):
        values = [int(v) for v in values]
        return values * num_spatial if len(values) == 1 else values
    stride, padding = spatial(a["stride"]), spatial(a["padding"])
    dilation, output_padding = spatial(a["dilation"]), spatial(a["output_padding"])
    groups = int(a["groups"])
    w = r.tracked(weight).const
    c_in, c_out_per_group = w.shape[0], w.shape[1]
    kernel = list(w.shape[2:])
    w = w.reshape([groups, c_in // groups, c_out_per_group] + kernel).transpose(1, 2)
    w = w.reshape([groups * c_out_per_group, c_in // groups] + kernel).flip(list(range(2, 2 + num_spatial)))
    x = r.value_id(a["input"])
    first_spatial = len(r.graph.shape(x)) - num_spatial
    for i in range(num_spatial):
        axis = first_spatial + i
        x = _insert_zeros(r, x, axis, stride[i])
        before = dilation[i] * (kernel[i] - 1) - padding[i]
        after = before + output_padding[i]
        if before < 0:
            x = slice_(r, x, axis, -before, r.graph.shape(x)[axis] + before)
            before = 0
        if after < 0:
            x = slice_(r, x, axis, 0, r.graph.shape(x)[axis] + after)
            after = 0
        if before or after:
            shape = list(r.graph.shape(x))
            pads = [[0, 0] for _ in shape]
            pads[axis] = [before, after]
            shape[axis] += before + after
            x = r.graph.add("pad", [x], shape, pads=pads, value=0.0)
    w_vid = r.graph.add_tensor(f"{r.tracked(weight).name}.as_convolution", w)
    bias = r.value_id(a["bias"]) if a["bias"] is not None else None
    return r.graph.add("conv", [x, w_vid, bias], _shape(out), stride=[1] * num_spatial, padding=[0] * num_spatial,
                       dilation=dilation, groups=groups)


@handles("convolution", "_convolution")
def _convolution(r, a, out):
    if a["transposed"]:
        return _transposed_convolution(r, a, out)
    weight = a["weight"]
    num_spatial = weight.dim() - 2
    if num_spatial not in (1, 2):
        raise ExportError(f"{num_spatial}-d convolution is not supported (1-d and 2-d are)")
    inputs = [r.value_id(a["input"]), r.value_id(weight), r.value_id(a["bias"]) if a["bias"] is not None else None]

    def spatial(values):
        values = list(values)
        return values * num_spatial if len(values) == 1 else values
    return r.graph.add("conv", inputs, _shape(out), stride=spatial(a["stride"]), padding=spatial(a["padding"]),
                       dilation=spatial(a["dilation"]), groups=int(a["groups"]))


def _pool_params(a, num_spatial):
    def spatial(values, default):
        if values is None or (isinstance(values, (list, tuple)) and len(values) == 0):
            values = default
        values = list(values) if isinstance(values, (list, tuple)) else [values]
        return [int(v) for v in (values * num_spatial if len(values) == 1 else values)]
    kernel = spatial(a["kernel_size"], None)
    return kernel, spatial(a.get("stride"), kernel), spatial(a.get("padding"), [0]), spatial(a.get("dilation"), [1])


@handles("max_pool2d_with_indices", "max_pool1d_with_indices", "max_pool2d", "max_pool1d")
def _max_pool(r, a, out):
    num_spatial = 1 if "1d" in a["__op__"] else 2
    kernel, stride, padding, dilation = _pool_params(a, num_spatial)
    first = out[0] if isinstance(out, tuple) else out
    y = r.graph.add("max_pool", [r.value_id(a["self"])], _shape(first), kernel=kernel, stride=stride,
                    padding=padding, dilation=dilation, ceil_mode=bool(a["ceil_mode"]))
    return [y, None] if isinstance(out, tuple) else y


@handles("avg_pool2d", "avg_pool1d")
def _avg_pool(r, a, out):
    num_spatial = 1 if "1d" in a["__op__"] else 2
    kernel, stride, padding, _ = _pool_params(a, num_spatial)
    return r.graph.add("avg_pool", [r.value_id(a["self"])], _shape(out), kernel=kernel, stride=stride,
                       padding=padding, ceil_mode=bool(a["ceil_mode"]),
                       count_include_pad=bool(a["count_include_pad"]),
                       divisor_override=int(a.get("divisor_override") or 0))


@handles("_adaptive_avg_pool2d", "adaptive_avg_pool2d", "adaptive_avg_pool1d", "_adaptive_avg_pool1d")
def _adaptive_avg_pool(r, a, out):
    return r.graph.add("adaptive_avg_pool", [r.value_id(a["self"])], _shape(out),
                       num_spatial=1 if "1d" in a["__op__"] else 2)


# ----- attention (PyTorch's fused eval-mode paths) ----------------------------------------------

def _additive_mask(r: Recorder, mask: Optional[torch.Tensor], mask_type, batch: int, q_len: int, k_len: int,
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


def multi_head_attention(r: Recorder, query: int, key: int, value: int, num_heads: int, qkv_weight, qkv_bias,
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


def _nested_keep(r: Recorder, t: torch.Tensor) -> Optional[torch.Tensor]:
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
    return r.graph.add("where", [keep_vid, x, r.graph.add_scalar(padding)], _shape(out))


# ----- strided views and gathers ----------------------------------------------------------------

def strided_form(index: torch.Tensor, shape: Sequence[int]):
    """(offset, strides) when index (flat positions, one per output element of `shape`) is
    offset + Σ i_k·stride_k with non-negative strides, else None."""
    grid = index.reshape(shape) if shape else index.reshape(())
    offset = int(grid.reshape(-1)[0]) if grid.numel() else 0
    strides = []
    for axis, size in enumerate(shape):
        if size == 1:
            strides.append(0)
            continue
        step = grid.narrow(axis, 1, 1).reshape(-1)[0] - grid.narrow(axis, 0, 1).reshape(-1)[0]
        strides.append(int(step))
    if any(s < 0 for s in strides):
        return None
    expected = torch.full(tuple(shape), offset, dtype=torch.int64)
    for axis, stride in enumerate(strides):
        view = [1] * len(shape)
        view[axis] = shape[axis]
        expected = expected + (torch.arange(shape[axis], dtype=torch.int64) * stride).reshape(view)
    return (offset, strides) if torch.equal(expected, grid) else None


def gather_flat(r: Recorder, x: int, index: torch.Tensor, shape: Sequence[int]) -> int:
    """out[i] = x.flat[index[i]] with out shaped `shape`: a reshape, a strided view (`as_strided`),
    or a `gather` with the indices stored in the file."""
    shape = [int(d) for d in shape]
    index = index.reshape(-1).to(torch.int64)
    count = math.prod(r.graph.shape(x))
    if index.numel() == count and torch.equal(index, torch.arange(count)):
        return reshape(r, x, shape)
    form = strided_form(index, shape)
    if form is not None:
        offset, strides = form
        return r.graph.add("as_strided", [x], shape, stride=strides, offset=offset)
    if count > 1 << 24:
        raise ExportError("an element gather from a tensor of more than 2^24 elements is not supported")
    indices = r.graph.add_tensor("gather_indices", index.reshape(shape).to(torch.float32))
    return r.graph.add("gather", [x, indices], shape)


@handles("diagonal", "unfold")
def _index_view(r, a, out):
    """A view op applied to the element indices of its input: the same op on a tensor of positions
    says which input element each output element is."""
    x = a["self"]
    positions = torch.arange(x.numel(), dtype=torch.int64).reshape(x.shape)
    if a["__op__"] == "diagonal":
        index = positions.diagonal(a["offset"], a["dim1"], a["dim2"])
    else:
        index = positions.unfold(a["dimension"], a["size"], a["step"])
    return gather_flat(r, r.value_id(x), index, _shape(out))


@handles("as_strided", "as_strided_")
def _as_strided(r, a, out):
    """A view of the input's storage: each output element is an element of the input (else an error)."""
    x = a["self"]
    geometry = r.geometry(x)
    source_positions = r.storage_positions(x, geometry).reshape(-1)
    index_of = torch.full((x.storage().size(),), -1, dtype=torch.int64)
    index_of[source_positions] = torch.arange(source_positions.numel())
    offset = a.get("storage_offset")
    wanted = torch.as_strided(torch.arange(x.storage().size(), dtype=torch.int64), tuple(a["size"]), tuple(a["stride"]),
                              geometry[2] if offset is None else int(offset))
    index = index_of[wanted.reshape(-1)]
    if bool((index < 0).any()):
        raise ExportError("the view reads memory outside the tensor it is taken from")
    return gather_flat(r, r.value_id(x), index, _shape(out))


# ----- glue of real code: GLU, norms, PReLU, cumulative sums, top-k, interpolation ---------------

@handles("glu")
def _glu(r, a, out):
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    axis = _axis(a["dim"], len(shape))
    half = shape[axis] // 2
    gate = r.graph.add("sigmoid", [slice_(r, x, axis, half, half)], _shape(out))
    return r.graph.add("mul", [slice_(r, x, axis, 0, half), gate], _shape(out))


def _vector_norm(r: Recorder, x: int, order, axes: List[int], keepdim: bool, out_shape) -> int:
    shape = r.graph.shape(x)
    order = float(order)
    magnitude = r.graph.add("abs", [x], shape)
    if order == math.inf:
        return r.graph.add("reduce_max", [magnitude], out_shape, axes=axes, keepdim=keepdim)
    if order == -math.inf:
        return r.graph.add("reduce_min", [magnitude], out_shape, axes=axes, keepdim=keepdim)
    if order == 0:
        nonzero = r.graph.add("ne", [x, r.graph.add_scalar(0.0)], shape)
        return r.graph.add("reduce_sum", [nonzero], out_shape, axes=axes, keepdim=keepdim)
    if order == 1:
        return r.graph.add("reduce_sum", [magnitude], out_shape, axes=axes, keepdim=keepdim)
    if order == 2:
        squares = r.graph.add("mul", [x, x], shape)
        return r.graph.add("sqrt", [r.graph.add("reduce_sum", [squares], out_shape, axes=axes, keepdim=keepdim)], out_shape)
    powered = r.graph.add("pow", [magnitude, r.graph.add_scalar(order)], shape)
    total = r.graph.add("reduce_sum", [powered], out_shape, axes=axes, keepdim=keepdim)
    return r.graph.add("pow", [total, r.graph.add_scalar(1.0 / order)], out_shape)


@handles("norm", "linalg_vector_norm")
def _norm(r, a, out):
    x = r.value_id(a["self"])
    order = a.get("ord", a.get("p"))
    order = 2.0 if order is None else order
    if isinstance(order, str):
        raise ExportError(f"norm '{order}' is not supported (vector norms with a number p are)")
    return _vector_norm(r, x, order, _axes(a.get("dim"), len(r.graph.shape(x))), bool(a.get("keepdim") or False), _shape(out))


@handles("prelu", "_prelu_kernel")
def _prelu(r, a, out):
    x = r.value_id(a["self"])
    shape = list(r.graph.shape(x))
    weight = r.value_id(a["weight"])
    if math.prod(r.graph.shape(weight)) > 1 and len(shape) >= 2:
        weight = reshape(r, weight, [shape[1]] + [1] * (len(shape) - 2))
    negative = r.graph.add("mul", [x, weight], shape)
    positive = r.graph.add("gt", [x, r.graph.add_scalar(0.0)], shape)
    return r.graph.add("where", [positive, x, negative], shape)


@handles("cumsum")
def _cumsum(r, a, out):
    x = r.value_id(a["self"])
    return r.graph.add("cumsum", [x], _shape(out), axis=_axis(a["dim"], len(r.graph.shape(x))))


@handles("topk")
def _topk(r, a, out):
    x = r.value_id(a["self"])
    axis = _axis(a["dim"], len(r.graph.shape(x)))
    return r.graph.add_node("topk", [x], [_shape(out[0]), _shape(out[1])], axis=axis, k=int(a["k"]),
                            largest=bool(a["largest"]))


def _float32(value) -> float:
    import numpy as np
    return float(np.float32(value))


def _upsample_scale(input_size: int, output_size: int, scale: Optional[float], align_corners: bool) -> "float":
    """area_pixel_compute_scale of ATen's UpSample.h, in float32 as its CPU kernels compute it."""
    import numpy as np
    if align_corners:
        return np.float32(input_size - 1) / np.float32(output_size - 1) if output_size > 1 else np.float32(0)
    if scale is not None and scale > 0:
        return np.float32(1.0 / scale)
    return np.float32(input_size) / np.float32(output_size)


def _nearest_indices(input_size: int, output_size: int, scale: Optional[float], exact: bool) -> List[int]:
    """ATen's nearest_idx / nearest_neighbor_exact_compute_source_index, float32 arithmetic."""
    import numpy as np
    if output_size == input_size:
        return list(range(output_size))
    if output_size == 2 * input_size and not exact:
        return [i >> 1 for i in range(output_size)]
    factor = _upsample_scale(input_size, output_size, scale, False)
    half = np.float32(0.5) if exact else np.float32(0.0)
    return [min(int(np.floor((np.float32(i) + half) * factor)), input_size - 1) for i in range(output_size)]


def _linear_taps(input_size: int, output_size: int, scale: Optional[float], align_corners: bool):
    """(index0, index1, lambda0, lambda1) per output position, as ATen's compute_source_index_and_lambda."""
    import numpy as np
    if output_size == input_size:
        return list(range(output_size)), list(range(output_size)), [1.0] * output_size, [0.0] * output_size
    factor = _upsample_scale(input_size, output_size, scale, align_corners)
    index0, index1, lambda0, lambda1 = [], [], [], []
    for i in range(output_size):
        if align_corners:
            source = factor * np.float32(i)
        else:
            source = max(factor * (np.float32(i) + np.float32(0.5)) - np.float32(0.5), np.float32(0))
        i0 = int(source)
        i1 = i0 + (1 if i0 < input_size - 1 else 0)
        l1 = np.float32(min(max(source - np.float32(i0), np.float32(0)), np.float32(1)))
        index0.append(i0)
        index1.append(i1)
        lambda1.append(float(l1))
        lambda0.append(float(np.float32(1) - l1))
    return index0, index1, lambda0, lambda1


def _upsample_arguments(a, out, num_spatial: int):
    """(output sizes, scales per axis or None) of an upsample call, .vec or per-axis overload."""
    sizes = list(out.shape[-num_spatial:])
    if "scale_factors" in a:
        factors = a.get("scale_factors")
        scales = [float(f) for f in factors] if factors else [None] * num_spatial
    else:
        names = {1: ["scales"], 2: ["scales_h", "scales_w"], 3: ["scales_d", "scales_h", "scales_w"]}[num_spatial]
        scales = [a.get(name) for name in names]
    return sizes, scales


@handles("upsample_nearest1d", "upsample_nearest2d", "_upsample_nearest_exact1d", "_upsample_nearest_exact2d")
def _upsample_nearest(r, a, out):
    x = r.value_id(a["input"] if "input" in a else a["self"])
    num_spatial = 1 if "1d" in a["__op__"] else 2
    sizes, scales = _upsample_arguments(a, out, num_spatial)
    rank = len(r.graph.shape(x))
    for i in range(num_spatial):
        axis = rank - num_spatial + i
        indices = _nearest_indices(r.graph.shape(x)[axis], sizes[i], scales[i], "exact" in a["__op__"])
        if indices != list(range(r.graph.shape(x)[axis])):
            shape = list(r.graph.shape(x))
            shape[axis] = len(indices)
            x = r.graph.add("index_select", [x], shape, axis=axis, indices=indices)
    return x


@handles("upsample_linear1d", "upsample_bilinear2d")
def _upsample_linear(r, a, out):
    """Separable linear interpolation, the last axis first as ATen's CPU kernel does:
    x[i0] * lambda0 + x[i1] * lambda1 along each axis."""
    x = r.value_id(a["input"] if "input" in a else a["self"])
    num_spatial = 1 if "1d" in a["__op__"] else 2
    sizes, scales = _upsample_arguments(a, out, num_spatial)
    rank = len(r.graph.shape(x))
    for i in reversed(range(num_spatial)):
        axis = rank - num_spatial + i
        index0, index1, lambda0, lambda1 = _linear_taps(r.graph.shape(x)[axis], sizes[i], scales[i], bool(a["align_corners"]))
        if index0 == index1 == list(range(r.graph.shape(x)[axis])):
            continue
        shape = list(r.graph.shape(x))
        shape[axis] = sizes[i]
        weight_shape = [sizes[i]] + [1] * (rank - axis - 1)
        taps = []
        for indices, weights, tap in ((index0, lambda0, 0), (index1, lambda1, 1)):
            picked = r.graph.add("index_select", [x], shape, axis=axis, indices=indices)
            w = r.graph.add_tensor(f"upsample.lambda{tap}", torch.tensor(weights, dtype=torch.float32).reshape(weight_shape))
            taps.append(r.graph.add("mul", [picked, w], shape))
        x = r.graph.add("add", taps, shape)
    return x


@handles("index_put")
def _index_put(r, a, out):
    """x[indices] = values (or +=, accumulate) with indices that do not depend on the input: each
    element of the result is gathered from the old x or from the values."""
    x = a["self"]
    indices = list(a["indices"])
    if any(t is not None and r.is_dynamic(t) for t in indices):
        raise ExportError("indices that depend on the input are not supported")
    count = x.numel()
    key = tuple(slice(None) if t is None else t if t.dtype == torch.bool else t.to(torch.int64) for t in indices)
    selected = torch.arange(count, dtype=torch.int64).reshape(x.shape)[key]
    positions = selected.reshape(-1)
    written = positions.numel()
    values = operand(r, a["values"])
    if math.prod(r.graph.shape(values)) != written:
        values = r.graph.add("expand", [values], list(selected.shape))
    values = reshape(r, values, [written])
    if a.get("accumulate"):
        if len(set(positions.tolist())) != written:
            raise ExportError("accumulating into repeated indices is not supported")
        old = r.value_id(x)
        # values at their positions, zero elsewhere, added to the old tensor
        padded = r.graph.add("concat", [values, r.graph.add_tensor("scalar.zeros1", torch.zeros(1))], [written + 1], axis=0)
        index = torch.full((count,), written, dtype=torch.int64)
        index[positions] = torch.arange(written)
        return r.graph.add("add", [old, gather_flat(r, padded, index, list(x.shape))], list(x.shape))
    index = torch.arange(count, dtype=torch.int64)
    index[positions] = count + torch.arange(written)
    joined = r.graph.add("concat", [reshape(r, r.value_id(x), [count]), values], [count + written], axis=0)
    return gather_flat(r, joined, index, list(x.shape))


@handles("celu")
def _celu(r, a, out):
    alpha = float(a["alpha"])
    return r.graph.add("elu", [r.value_id(a["self"])], _shape(out), alpha=alpha, scale=1.0, input_scale=1.0 / alpha)


@handles("log_sigmoid_forward", "log_sigmoid")
def _log_sigmoid(r, a, out):
    """log σ(x) = −softplus(−x)."""
    first = out[0] if isinstance(out, tuple) else out
    negated = r.graph.add("neg", [r.value_id(a["self"])], _shape(first))
    softplus = r.graph.add("softplus", [negated], _shape(first), beta=1.0, threshold=20.0)
    y = r.graph.add("neg", [softplus], _shape(first))
    return [y, None] if isinstance(out, tuple) else y


@handles("threshold")
def _threshold(r, a, out):
    x = r.value_id(a["self"])
    above = r.graph.add("gt", [x, r.graph.add_scalar(float(a["threshold"]))], _shape(out))
    return r.graph.add("where", [above, x, r.graph.add_scalar(float(a["value"]))], _shape(out))


@handles("hardshrink", "softshrink")
def _shrink(r, a, out):
    x = r.value_id(a["self"])
    lambd = float(a["lambd"])
    shape = _shape(out)
    outside = r.graph.add("gt", [r.graph.add("abs", [x], shape), r.graph.add_scalar(lambd)], shape)
    if a["__op__"] == "hardshrink":
        return r.graph.add("where", [outside, x, r.graph.add_scalar(0.0)], shape)
    shrunk = r.graph.add("sub", [x, r.graph.add("mul", [r.graph.add("sign", [x], shape), r.graph.add_scalar(lambd)], shape)], shape)
    return r.graph.add("where", [outside, shrunk, r.graph.add_scalar(0.0)], shape)


# ----- element rearrangements, computed on positions ------------------------------------------------

def _rearranged(r: Recorder, x: torch.Tensor, apply, out) -> int:
    """An op that only moves elements (and may fill zeros): applied to the positions 1…n of x's
    elements (0 = a filled zero), it says where each output element comes from."""
    count = x.numel()
    positions = apply(torch.arange(1, count + 1, dtype=torch.float64).reshape(x.shape))
    index = positions.round().to(torch.int64).reshape(-1)
    vid = reshape(r, r.value_id(x), [count])
    if bool((index == 0).any()):
        vid = r.graph.add("concat", [r.graph.add_tensor("scalar.zeros1", torch.zeros(1)), vid], [count + 1], axis=0)
        return gather_flat(r, vid, index, _shape(out))
    return gather_flat(r, vid, index - 1, _shape(out))


@handles("flip")
def _flip(r, a, out):
    return _rearranged(r, a["self"], lambda p: torch.flip(p, list(a["dims"])), out)


@handles("roll")
def _roll(r, a, out):
    return _rearranged(r, a["self"], lambda p: torch.roll(p, list(a["shifts"]), list(a["dims"])), out)


@handles("pixel_shuffle", "pixel_unshuffle", "channel_shuffle")
def _pixel_shuffle(r, a, out):
    op = getattr(torch.ops.aten, a["__op__"]).default
    factor = a.get("upscale_factor") or a.get("downscale_factor") or a.get("groups")
    return _rearranged(r, a["self"], lambda p: op(p, factor), out)


@handles("im2col")
def _im2col(r, a, out):
    """F.unfold: the patches of each position as columns (zeros where the patch overhangs the padding)."""
    args = [list(a[k]) for k in ("kernel_size", "dilation", "padding", "stride")]
    return _rearranged(r, a["self"], lambda p: torch.ops.aten.im2col.default(p, *args), out)


def _adaptive_bins(size: int, bins: int):
    return [(i * size // bins, -((-(i + 1) * size) // bins)) for i in range(bins)]


@handles("adaptive_max_pool2d", "adaptive_max_pool1d")
def _adaptive_max_pool(r, a, out):
    """Max over PyTorch's adaptive bins [floor(i·n/m), ceil((i+1)·n/m)): a max_pool when the bins are
    equal and disjoint, else one reduction per bin, axis by axis."""
    x = r.value_id(a["self"])
    sizes = [int(s) for s in a["output_size"]]
    num_spatial = len(sizes)
    in_shape = list(r.graph.shape(x))
    spatial = in_shape[-num_spatial:]
    if all(n % m == 0 for n, m in zip(spatial, sizes)):
        kernel = [n // m for n, m in zip(spatial, sizes)]
        y = r.graph.add("max_pool", [x], _shape(out[0]), kernel=kernel, stride=kernel, padding=[0] * num_spatial,
                        dilation=[1] * num_spatial, ceil_mode=False)
        return [y, None]
    rank = len(in_shape)
    for i, bins in enumerate(sizes):
        axis = rank - num_spatial + i
        pieces = []
        for start, end in _adaptive_bins(r.graph.shape(x)[axis], bins):
            piece = slice_(r, x, axis, start, end - start)
            shape = list(r.graph.shape(piece))
            shape[axis] = 1
            pieces.append(r.graph.add("reduce_max", [piece], shape, axes=[axis], keepdim=True))
        shape = list(r.graph.shape(x))
        shape[axis] = bins
        x = pieces[0] if len(pieces) == 1 else r.graph.add("concat", pieces, shape, axis=axis)
    return [x, None]


@handles("logsumexp")
def _logsumexp(r, a, out):
    """As PyTorch: m = max (0 where infinite), log(Σ exp(x − m)) + m."""
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    axes = _axes(a["dim"], len(shape))
    kept = [1 if i in axes else d for i, d in enumerate(shape)]
    peak = r.graph.add("reduce_max", [x], kept, axes=axes, keepdim=True)
    infinite = r.graph.add("eq", [r.graph.add("abs", [peak], kept), r.graph.add_scalar(math.inf)], kept)
    peak = r.graph.add("where", [infinite, r.graph.add_scalar(0.0), peak], kept)
    shifted = r.graph.add("exp", [r.graph.add("sub", [x, peak], shape)], shape)
    total = r.graph.add("log", [r.graph.add("reduce_sum", [shifted], kept, axes=axes, keepdim=True)], kept)
    return reshape(r, r.graph.add("add", [total, peak], kept), _shape(out))


@handles("var_mean", "std_mean")
def _var_mean(r, a, out):
    x = r.value_id(a["self"])
    axes = _axes(a.get("dim"), len(r.graph.shape(x)))
    keepdim = bool(a.get("keepdim") or False)
    spread = r.graph.add("var", [x], _shape(out[0]), axes=axes, keepdim=keepdim, correction=_correction(a))
    if a["__op__"] == "std_mean":
        spread = r.graph.add("sqrt", [spread], _shape(out[0]))
    return [spread, r.graph.add("reduce_mean", [x], _shape(out[1]), axes=axes, keepdim=keepdim)]


@handles("logit")
def _logit(r, a, out):
    x = r.value_id(a["self"])
    shape = _shape(out)
    if a.get("eps") is not None:
        x = r.graph.add("clamp", [x], shape, min=float(a["eps"]), max=1.0 - float(a["eps"]))
    odds = r.graph.add("div", [x, r.graph.add("sub", [r.graph.add_scalar(1.0), x], shape)], shape)
    return r.graph.add("log", [odds], shape)


@handles("nan_to_num")
def _nan_to_num(r, a, out):
    import numpy as np
    x = r.value_id(a["self"])
    shape = _shape(out)
    largest = float(np.finfo(np.float32).max)
    is_nan = r.graph.add("ne", [x, x], shape)
    x = r.graph.add("where", [is_nan, r.graph.add_scalar(float(a.get("nan") or 0.0)), x], shape)
    high = a.get("posinf")
    low = a.get("neginf")
    x = r.graph.add("where", [r.graph.add("eq", [x, r.graph.add_scalar(math.inf)], shape),
                              r.graph.add_scalar(largest if high is None else float(high)), x], shape)
    return r.graph.add("where", [r.graph.add("eq", [x, r.graph.add_scalar(-math.inf)], shape),
                                 r.graph.add_scalar(-largest if low is None else float(low)), x], shape)


@handles("sort")
def _sort(r, a, out):
    """A full top-k: values sorted (NaN largest, as PyTorch), indices of equal values in index order
    (PyTorch's unstable sort leaves that order unspecified)."""
    x = r.value_id(a["self"])
    axis = _axis(a["dim"], len(r.graph.shape(x)))
    return r.graph.add_node("topk", [x], [_shape(out[0]), _shape(out[1])], axis=axis, k=int(r.graph.shape(x)[axis]),
                            largest=bool(a["descending"]))


from . import recurrent  # noqa: E402,F401  (nn.RNN / GRU / LSTM lowered whole; registers its handlers)
from . import spectral  # noqa: E402,F401  (STFT, FFT, complex tensors, log10, pad modes)
