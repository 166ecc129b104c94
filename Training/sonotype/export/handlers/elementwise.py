"""Elementwise operations: arithmetic and comparisons (broadcast), the unary functions, clamps and
the activations with parameters.  `|z| ** 2` of a complex `z` is one `complex_abs` node with
`squared` (torchaudio's power spectrogram), not a square root and its square."""

from typing import Optional

import torch

from ..emit import binary, operand, reshape, shape_list
from ..errors import ExportError
from ..registry import handles


_BINARY_OPS = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "true_divide": "div", "multiply": "mul",
    "maximum": "maximum", "minimum": "minimum", "fmax": "maximum", "fmin": "minimum",
    "eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge",
    "logical_and": "logical_and", "logical_or": "logical_or", "bitwise_and": "logical_and",
    "bitwise_or": "logical_or", "__and__": "logical_and", "__or__": "logical_or",
}


def _scaled(r, x, alpha) -> int:
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
        result = r.graph.add(engine_op, [operand(r, x), _scaled(r, y, a.get("alpha"))], shape_list(out))
        rounding = a.get("rounding_mode")
        if rounding in ("trunc", "floor"):
            result = r.graph.add(rounding, [result], shape_list(out))
        return result
    return handler


for _name, _engine_op in _BINARY_OPS.items():
    handles(_name)(_binary_handler(_engine_op))


@handles("rsub")
def _rsub(r, a, out):
    return r.graph.add("sub", [operand(r, a["other"]), _scaled(r, a["self"], a.get("alpha"))], shape_list(out))


def _squared_magnitude(r, x: torch.Tensor, out) -> Optional[int]:
    """|z| ** 2 as one `complex_abs` node with `squared` where x is |z| of a complex z (re² + im²,
    without the square root and back), else None."""
    z = r.complex_magnitudes.get(r.value_id(x))
    if z is None:
        return None
    return r.graph.add("complex_abs", [z], shape_list(out), squared=True)


@handles("pow")
def _pow(r, a, out):
    base = a["self"]
    exponent = a["exponent"]
    if isinstance(base, torch.Tensor) and isinstance(exponent, (int, float)) and exponent == 2:
        squared = _squared_magnitude(r, base, out)
        if squared is not None:
            return squared
    if isinstance(exponent, (int, float)) and not isinstance(base, (int, float)):
        if exponent == 2:
            return binary(r, "mul", base, base, shape_list(out))
        if exponent == 0.5:
            return r.graph.add("sqrt", [r.value_id(base)], shape_list(out))
        if exponent == 1:
            return reshape(r, r.value_id(base), shape_list(out))
    return binary(r, "pow", base, exponent, shape_list(out))


@handles("where")
def _where(r, a, out):
    return r.graph.add("where", [operand(r, a["condition"]), operand(r, a["self"]), operand(r, a["other"])], shape_list(out))


@handles("masked_fill")
def _masked_fill(r, a, out):
    return r.graph.add("where", [operand(r, a["mask"]), operand(r, a["value"]), operand(r, a["self"])], shape_list(out))


_UNARY_OPS = ["relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "neg", "abs", "erf", "sin", "cos",
              "reciprocal", "silu", "hardsigmoid", "hardswish", "sign", "floor", "ceil", "round", "trunc",
              "log1p", "expm1", "logical_not", "mish", "log2", "exp2", "log10"]


def _unary_handler(engine_op: str):
    def handler(r, a, out):
        return r.graph.add(engine_op, [r.value_id(a["self"])], shape_list(out))
    return handler


for _name in _UNARY_OPS:
    handles(_name)(_unary_handler(_name))
handles("negative")(_unary_handler("neg"))
handles("bitwise_not")(_unary_handler("logical_not"))
handles("fix")(_unary_handler("trunc"))


@handles("square")
def _square(r, a, out):
    x = a["self"]
    squared = _squared_magnitude(r, x, out)
    if squared is not None:
        return squared
    return binary(r, "mul", x, x, shape_list(out))


@handles("gelu")
def _gelu(r, a, out):
    approximate = a.get("approximate") or "none"
    return r.graph.add("gelu", [r.value_id(a["self"])], shape_list(out), approximate=approximate)


def _clamp_attrs(low, high) -> dict:
    attrs = {}
    if low is not None:
        attrs["min"] = float(low)
    if high is not None:
        attrs["max"] = float(high)
    return attrs


def _clamp_tensor(r, x, low, high, out) -> int:
    """clamp with tensor bounds: min(max(x, low), high), broadcast (NaN in x stays NaN)."""
    vid = operand(r, x)
    if low is not None:
        vid = r.graph.add("maximum", [vid, operand(r, low)], shape_list(out))
    if high is not None:
        vid = r.graph.add("minimum", [vid, operand(r, high)], shape_list(out))
    return vid


@handles("clamp", "clip")
def _clamp(r, a, out):
    if isinstance(a.get("min"), torch.Tensor) or isinstance(a.get("max"), torch.Tensor):
        return _clamp_tensor(r, a["self"], a.get("min"), a.get("max"), out)
    return r.graph.add("clamp", [r.value_id(a["self"])], shape_list(out), **_clamp_attrs(a.get("min"), a.get("max")))


@handles("clamp_min")
def _clamp_min(r, a, out):
    if isinstance(a["min"], torch.Tensor):
        return _clamp_tensor(r, a["self"], a["min"], None, out)
    return r.graph.add("clamp", [r.value_id(a["self"])], shape_list(out), **_clamp_attrs(a["min"], None))


@handles("clamp_max")
def _clamp_max(r, a, out):
    if isinstance(a["max"], torch.Tensor):
        return _clamp_tensor(r, a["self"], None, a["max"], out)
    return r.graph.add("clamp", [r.value_id(a["self"])], shape_list(out), **_clamp_attrs(None, a["max"]))


@handles("hardtanh")
def _hardtanh(r, a, out):
    return r.graph.add("clamp", [r.value_id(a["self"])], shape_list(out), **_clamp_attrs(a["min_val"], a["max_val"]))


@handles("leaky_relu")
def _leaky_relu(r, a, out):
    return r.graph.add("leaky_relu", [r.value_id(a["self"])], shape_list(out), negative_slope=float(a["negative_slope"]))


@handles("elu")
def _elu(r, a, out):
    return r.graph.add("elu", [r.value_id(a["self"])], shape_list(out), alpha=float(a["alpha"]),
                       scale=float(a["scale"]), input_scale=float(a["input_scale"]))


@handles("softplus")
def _softplus(r, a, out):
    return r.graph.add("softplus", [r.value_id(a["self"])], shape_list(out), beta=float(a["beta"]),
                       threshold=float(a["threshold"]))
