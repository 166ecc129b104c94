"""ONNX operators computed with torch ops, one function per ONNX op type (default domain, opsets 9-17).

Each function gets a `Node` (its attributes, the opset, which inputs are static) and its input tensors
(None for an omitted optional input) and returns its output tensors.  The ONNX interpreter
(`onnx_import.OnnxModule`) runs them in graph order; while exporting, the recorder sees the torch ops
and lowers them as it lowers any PyTorch model, folding everything that does not depend on the input
(shape arithmetic: Shape -> Gather -> Concat -> Reshape) into constants.

Inputs that give a shape, axes, indices, pads, scales or counts must be *static* (computed from
initializers, constants and shapes only): `node.static_list(i)` reads them and refuses with a clear
error otherwise.  Semantics follow the ONNX operator specification per opset, e.g. Softmax before
opset 13 flattens to 2-d at `axis`; Squeeze/Unsqueeze/ReduceSum/Split/Clip take their axes, splits or
bounds as attributes or as inputs depending on the opset.
"""

import math
from typing import List, Optional, Sequence

import torch
import torch.nn.functional as F

from .errors import ExportError
from .registry import ONNX_OPS, onnx_op

# ONNX TensorProto data types -> torch (the engine computes in float32: doubles and halves become float32).
ONNX_DTYPES = {1: torch.float32, 2: torch.uint8, 3: torch.int8, 5: torch.int16, 6: torch.int32, 7: torch.int64,
               9: torch.bool, 10: torch.float32, 11: torch.float32, 12: torch.int64, 13: torch.int64}


class Node:
    """One ONNX node as the op functions see it."""

    def __init__(self, proto, attrs: dict, opset: int):
        self.proto = proto
        self.op_type = proto.op_type
        self.name = proto.name or f"{proto.op_type}->{','.join(proto.output)}"
        self.attrs = attrs
        self.opset = opset
        self.static: List[bool] = []  # per input: computed without the graph's input
        self.num_outputs = len(proto.output)

    def attr(self, name: str, default=None):
        return self.attrs.get(name, default)

    def fail(self, message: str):
        raise ExportError(message)

    def static_list(self, inputs: Sequence, index: int, what: str) -> Optional[List]:
        """Input `index` as a Python list (None if omitted); it must not depend on the graph's input."""
        if index >= len(inputs) or inputs[index] is None:
            return None
        if not self.static[index]:
            self.fail(f"its {what} (input {index}) depends on the model's input; only values computed from "
                      "initializers, constants and shapes are supported there")
        return inputs[index].reshape(-1).tolist()

    def static_scalar(self, inputs: Sequence, index: int, what: str):
        values = self.static_list(inputs, index, what)
        if values is None:
            return None
        if len(values) != 1:
            self.fail(f"its {what} must hold one value, not {len(values)}")
        return values[0]


# The most elements a tensor the converter materialises may have (1 GiB of float32): shapes in a file
# from a stranger must not make it allocate without bound.
MAX_ELEMENTS = 1 << 28


def check_size(node: Node, shape: Sequence[int], what: str = "output") -> None:
    count = 1
    for d in shape:
        if d < 0:
            node.fail(f"its {what} would have a negative dimension ({list(shape)})")
        count *= d
        if count > MAX_ELEMENTS:
            node.fail(f"its {what} would have more than 2^28 elements (shape {list(shape)})")


def _axis(node: Node, axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        node.fail(f"axis {axis} out of range for a tensor of rank {rank}")
    return axis % rank if rank else 0


def _float(t: torch.Tensor) -> torch.Tensor:
    return t if t.dtype == torch.float32 else t.float()


# ----- elementwise ------------------------------------------------------------------------------

def _int_div(a, b):
    if a.is_floating_point() or b.is_floating_point():
        return a / b
    return torch.div(a, b, rounding_mode="trunc")


def _pow(a, b):
    return torch.pow(a, b)


_BINARY = {
    "Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": _int_div, "Pow": _pow,
    "Equal": torch.eq, "Less": torch.lt, "Greater": torch.gt, "LessOrEqual": torch.le, "GreaterOrEqual": torch.ge,
    "And": torch.logical_and, "Or": torch.logical_or, "Xor": lambda a, b: a.bool() != b.bool(),
}


def _binary(fn):
    def compute(node, inputs):
        a, b = inputs[0], inputs[1]
        if node.op_type == "Pow" and node.static[1] and b.numel() == 1 and a.is_floating_point():
            # A constant exponent as a number: x ** 2 becomes a product, x ** 0.5 a square root.
            return [torch.pow(a, float(b.reshape(-1)[0]))]
        return [fn(a, b)]
    return compute


for _name, _fn in _BINARY.items():
    ONNX_OPS[_name] = _binary(_fn)


@onnx_op("Mod")
def _mod(node, inputs):
    if node.attr("fmod", 0):
        return [torch.fmod(inputs[0], inputs[1])]
    return [torch.remainder(inputs[0], inputs[1])]


@onnx_op("Max", "Min", "Sum", "Mean")
def _variadic(node, inputs):
    fn = {"Max": torch.maximum, "Min": torch.minimum, "Sum": torch.add, "Mean": torch.add}[node.op_type]
    result = inputs[0]
    for other in inputs[1:]:
        result = fn(result, other)
    if node.op_type == "Mean" and len(inputs) > 1:
        result = result / len(inputs)
    return [result]


_UNARY = {
    "Relu": torch.relu, "Sigmoid": torch.sigmoid, "Tanh": torch.tanh, "Exp": torch.exp, "Log": torch.log,
    "Sqrt": torch.sqrt, "Neg": torch.neg, "Abs": torch.abs, "Erf": torch.erf, "Sin": torch.sin, "Cos": torch.cos,
    "Reciprocal": torch.reciprocal, "Floor": torch.floor, "Ceil": torch.ceil, "Round": torch.round,
    "Sign": torch.sign, "Not": torch.logical_not, "Softsign": F.softsign, "IsNaN": lambda x: x != x,
}

for _name, _fn in _UNARY.items():
    ONNX_OPS[_name] = (lambda fn: lambda node, inputs: [fn(inputs[0])])(_fn)


@onnx_op("Identity")
def _identity(node, inputs):
    return [inputs[0]]


@onnx_op("Dropout")
def _dropout(node, inputs):
    # Inference: the identity (training_mode, input 2, must be off); the mask output is all true.
    if len(inputs) > 2 and inputs[2] is not None:
        training = node.static_scalar(inputs, 2, "training_mode")
        if training:
            node.fail("Dropout in training mode is not supported")
    x = inputs[0]
    return [x, torch.ones(x.shape, dtype=torch.bool)][:node.num_outputs]


@onnx_op("LeakyRelu")
def _leaky_relu(node, inputs):
    return [F.leaky_relu(inputs[0], float(node.attr("alpha", 0.01)))]


@onnx_op("Elu")
def _elu(node, inputs):
    return [F.elu(inputs[0], float(node.attr("alpha", 1.0)))]


@onnx_op("Selu")
def _selu(node, inputs):
    alpha = float(node.attr("alpha", 1.67326319217681884765625))
    gamma = float(node.attr("gamma", 1.05070102214813232421875))
    x = inputs[0]
    return [gamma * F.elu(x, alpha)]


@onnx_op("Celu")
def _celu(node, inputs):
    alpha = float(node.attr("alpha", 1.0))
    return [F.elu(inputs[0] / alpha) * alpha]


@onnx_op("Softplus")
def _softplus(node, inputs):
    return [F.softplus(inputs[0])]


@onnx_op("HardSigmoid")
def _hard_sigmoid(node, inputs):
    alpha, beta = float(node.attr("alpha", 0.2)), float(node.attr("beta", 0.5))
    if abs(alpha - 1.0 / 6.0) < 1e-6 and beta == 0.5:  # PyTorch's (F.hardsigmoid): the engine's own op
        return [F.hardsigmoid(inputs[0])]
    return [torch.clamp(inputs[0] * alpha + beta, 0.0, 1.0)]


@onnx_op("HardSwish")
def _hard_swish(node, inputs):
    return [F.hardswish(inputs[0])]


@onnx_op("PRelu")
def _prelu(node, inputs):
    x, slope = inputs
    return [torch.where(x < 0, x * slope, x)]


@onnx_op("ThresholdedRelu")
def _thresholded_relu(node, inputs):
    x = inputs[0]
    return [torch.where(x > float(node.attr("alpha", 1.0)), x, torch.zeros((), dtype=x.dtype))]


@onnx_op("_FusedGelu")
def _fused_gelu(node, inputs):  # not an ONNX op: onnx_import._fuse_gelu's node for the erf form of GELU
    return [F.gelu(inputs[0])]


@onnx_op("_FusedSilu")
def _fused_silu(node, inputs):  # not an ONNX op: onnx_import._fuse_gated's x * sigmoid(x)
    return [F.silu(inputs[0])]


@onnx_op("_FusedHardSwish")
def _fused_hardswish(node, inputs):  # not an ONNX op: onnx_import._fuse_gated's x * HardSigmoid(x)
    return [F.hardswish(inputs[0])]


@onnx_op("_FusedLayerNorm")
def _fused_layer_norm(node, inputs):  # not an ONNX op: onnx_import._fuse_layer_norm's node
    x = inputs[0]
    weight = inputs[1] if len(inputs) > 1 else None
    bias = inputs[2] if len(inputs) > 2 else None
    size = x.shape[-1]
    eps = float(node.attr("epsilon"))
    if all(t is None or (t.dim() == 1 and t.shape[0] == size) for t in (weight, bias)):
        return [F.layer_norm(x, [size], weight, bias, eps)]
    y = F.layer_norm(x, [size], None, None, eps)  # a weight or bias that broadcasts otherwise
    y = y * weight if weight is not None else y
    return [y + bias if bias is not None else y]


@onnx_op("Clip")
def _clip(node, inputs):
    x = inputs[0]
    if node.opset < 11:
        low, high = node.attr("min"), node.attr("max")
    else:
        low = node.static_scalar(inputs, 1, "minimum")
        high = node.static_scalar(inputs, 2, "maximum")
    if low is None and high is None:
        return [x]
    return [torch.clamp(x, low, high)]


@onnx_op("Where")
def _where(node, inputs):
    return [torch.where(inputs[0].bool(), inputs[1], inputs[2])]


@onnx_op("Cast")
def _cast(node, inputs):
    to = node.attr("to")
    if to not in ONNX_DTYPES:
        node.fail(f"cast to ONNX data type {to} is not supported")
    return [inputs[0].to(ONNX_DTYPES[to])]


@onnx_op("CastLike")
def _cast_like(node, inputs):
    return [inputs[0].to(inputs[1].dtype)]


# ----- matrix products, convolution, pooling ----------------------------------------------------

@onnx_op("MatMul")
def _matmul(node, inputs):
    return [torch.matmul(inputs[0], inputs[1])]


@onnx_op("Gemm")
def _gemm(node, inputs):
    a, b = inputs[0], inputs[1]
    c = inputs[2] if len(inputs) > 2 else None
    if node.attr("transA", 0):
        a = a.t()
    if node.attr("transB", 0):
        b = b.t()
    alpha, beta = float(node.attr("alpha", 1.0)), float(node.attr("beta", 1.0))
    if c is not None and beta != 0.0:
        return [torch.addmm(c, a, b, beta=beta, alpha=alpha)]
    product = torch.mm(a, b)
    return [product * alpha if alpha != 1.0 else product]


def _spatial_pads(node: Node, in_spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
                  dilations: Sequence[int]) -> List[List[int]]:
    """[[begin, end] per spatial dimension] from `pads` or `auto_pad`."""
    n = len(in_spatial)
    auto_pad = node.attr("auto_pad", "NOTSET")
    if auto_pad in ("NOTSET", ""):
        pads = list(node.attr("pads", [0] * (2 * n)))
        if len(pads) != 2 * n:
            node.fail(f"pads has {len(pads)} values; {2 * n} expected")
        return [[pads[i], pads[i + n]] for i in range(n)]
    if auto_pad == "VALID":
        return [[0, 0] for _ in range(n)]
    if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        node.fail(f"auto_pad {auto_pad!r} is not supported")
    result = []
    for size, k, s, d in zip(in_spatial, kernel, strides, dilations):
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        small, large = total // 2, total - total // 2
        result.append([small, large] if auto_pad == "SAME_UPPER" else [large, small])
    return result


def _torch_pad(pads: List[List[int]]) -> List[int]:
    """[[begin, end] per spatial dim] -> F.pad's list (last dimension first)."""
    flat = []
    for begin, end in reversed(pads):
        flat += [begin, end]
    return flat


def _conv_params(node: Node, x: torch.Tensor, kernel: Sequence[int]):
    n = x.dim() - 2
    if n not in (1, 2, 3):
        node.fail(f"a {n}-d {node.op_type} is not supported")
    strides = list(node.attr("strides", [1] * n))
    dilations = list(node.attr("dilations", [1] * n))
    pads = _spatial_pads(node, list(x.shape[2:]), kernel, strides, dilations)
    return n, strides, dilations, pads


@onnx_op("Conv")
def _conv(node, inputs):
    x, w = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    kernel = list(node.attr("kernel_shape", list(w.shape[2:])))
    n, strides, dilations, pads = _conv_params(node, x, kernel)
    padding = [p[0] for p in pads]
    if any(begin != end for begin, end in pads):
        x = F.pad(x, _torch_pad(pads))
        padding = [0] * n
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[n]
    return [conv(x, w, bias, strides, padding, dilations, int(node.attr("group", 1)))]


@onnx_op("ConvTranspose")
def _conv_transpose(node, inputs):
    x, w = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    n = x.dim() - 2
    if n not in (1, 2, 3):
        node.fail(f"a {n}-d ConvTranspose is not supported")
    if node.attr("auto_pad", "NOTSET") not in ("NOTSET", ""):
        node.fail("ConvTranspose with auto_pad is not supported (give explicit pads)")
    strides = list(node.attr("strides", [1] * n))
    dilations = list(node.attr("dilations", [1] * n))
    group = int(node.attr("group", 1))
    kernel = list(w.shape[2:])
    output_padding = list(node.attr("output_padding", [0] * n))
    if node.attr("output_shape") is not None:
        wanted = list(node.attr("output_shape"))[-n:]
        pads = []
        for size, k, s, d, op_, target in zip(x.shape[2:], kernel, strides, dilations, output_padding, wanted):
            total = s * (size - 1) + op_ + ((k - 1) * d + 1) - target
            if total < 0:
                node.fail(f"output_shape {wanted} is larger than this ConvTranspose can produce")
            pads.append([total - total // 2, total // 2])  # the spec's split when auto_pad is not SAME_UPPER
    else:
        raw = list(node.attr("pads", [0] * (2 * n)))
        pads = [[raw[i], raw[i + n]] for i in range(n)]
    padding = []
    extra_crop = []
    for begin, end in pads:
        padding.append(min(begin, end))
        extra_crop.append((begin - min(begin, end), end - min(begin, end)))
    conv = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[n]
    y = conv(x, w, bias, strides, padding, output_padding, group, dilations)
    for i, (begin, end) in enumerate(extra_crop):
        if begin or end:
            y = y.narrow(2 + i, begin, y.shape[2 + i] - begin - end)
    return [y]


def _pool_setup(node: Node, x: torch.Tensor):
    n = x.dim() - 2
    if n not in (1, 2):
        node.fail(f"{n}-d {node.op_type} is not supported (1-d and 2-d are)")
    kernel = list(node.attr("kernel_shape"))
    strides = list(node.attr("strides", [1] * n))
    dilations = list(node.attr("dilations", [1] * n))
    pads = _spatial_pads(node, list(x.shape[2:]), kernel, strides, dilations)
    return n, kernel, strides, dilations, pads


@onnx_op("MaxPool")
def _max_pool(node, inputs):
    x = inputs[0]
    if node.num_outputs > 1 and node.proto.output[1]:
        node.fail("MaxPool's Indices output is not supported")
    if node.attr("storage_order", 0):
        node.fail("MaxPool with storage_order=1 is not supported")
    n, kernel, strides, dilations, pads = _pool_setup(node, x)
    ceil_mode = bool(node.attr("ceil_mode", 0))
    padding = [p[0] for p in pads]
    if any(b != e or 2 * b > k for (b, e), k in zip(pads, kernel)):
        # The lowest float rather than -inf (a model file stores finite numbers); a window always
        # holds at least one input element, so the padding value is never the maximum.
        x = F.pad(x, _torch_pad(pads), value=float(torch.finfo(torch.float32).min))
        padding = [0] * n
    pool = F.max_pool1d if n == 1 else F.max_pool2d
    return [pool(x, kernel, strides, padding, dilations, ceil_mode)]


@onnx_op("AveragePool")
def _avg_pool(node, inputs):
    x = inputs[0]
    n, kernel, strides, dilations, pads = _pool_setup(node, x)
    if any(d != 1 for d in dilations):
        node.fail("AveragePool with dilations is not supported")
    count_include_pad = bool(node.attr("count_include_pad", 0))
    ceil_mode = bool(node.attr("ceil_mode", 0))
    padding = [p[0] for p in pads]
    if any(b != e or 2 * b > k for (b, e), k in zip(pads, kernel)):
        if not count_include_pad:
            node.fail("AveragePool with asymmetric pads (or pads over half the kernel) and count_include_pad=0 "
                      "is not supported")
        x = F.pad(x, _torch_pad(pads))
        padding = [0] * n
    pool = F.avg_pool1d if n == 1 else F.avg_pool2d
    return [pool(x, kernel, strides, padding, ceil_mode, count_include_pad)]


@onnx_op("GlobalAveragePool")
def _global_avg_pool(node, inputs):
    x = inputs[0]
    return [x.mean(dim=list(range(2, x.dim())), keepdim=True)]


@onnx_op("GlobalMaxPool")
def _global_max_pool(node, inputs):
    x = inputs[0]
    return [x.amax(dim=list(range(2, x.dim())), keepdim=True)]


# ----- normalisation ----------------------------------------------------------------------------

@onnx_op("BatchNormalization")
def _batch_norm(node, inputs):
    if node.attr("training_mode", 0) or node.num_outputs > 1 and any(node.proto.output[1:]):
        node.fail("BatchNormalization in training mode is not supported")
    x, scale, bias, mean, var = inputs[:5]
    return [F.batch_norm(x, mean, var, scale, bias, False, 0.0, float(node.attr("epsilon", 1e-5)))]


@onnx_op("InstanceNormalization")
def _instance_norm(node, inputs):
    x, scale, bias = inputs
    eps = float(node.attr("epsilon", 1e-5))
    dims = list(range(2, x.dim()))
    shape = [1, -1] + [1] * len(dims)
    mean = x.mean(dim=dims, keepdim=True)
    centred = x - mean
    var = (centred * centred).mean(dim=dims, keepdim=True)
    return [centred / torch.sqrt(var + eps) * scale.reshape(shape) + bias.reshape(shape)]


@onnx_op("LayerNormalization")
def _layer_norm(node, inputs):
    if node.num_outputs > 1 and any(node.proto.output[1:]):
        node.fail("LayerNormalization's Mean and InvStdDev outputs are not supported")
    x, scale = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    axis = _axis(node, int(node.attr("axis", -1)), x.dim())
    normalized = list(x.shape[axis:])
    if list(scale.shape) != normalized:
        scale = scale.expand(normalized) if node.static[1] else None
        if scale is None:
            node.fail("LayerNormalization's scale depends on the model's input")
    if bias is not None and list(bias.shape) != normalized:
        bias = bias.expand(normalized)
    return [F.layer_norm(x, normalized, scale, bias, float(node.attr("epsilon", 1e-5)))]


@onnx_op("LpNormalization")
def _lp_normalization(node, inputs):
    x = inputs[0]
    axis = _axis(node, int(node.attr("axis", -1)), x.dim())
    p = int(node.attr("p", 2))
    if p == 2:
        norm = torch.sqrt((x * x).sum(dim=axis, keepdim=True))
    elif p == 1:
        norm = x.abs().sum(dim=axis, keepdim=True)
    else:
        node.fail(f"LpNormalization with p={p} is not supported")
    return [x / norm]


def _softmax_like(fn):
    def compute(node, inputs):
        x = inputs[0]
        if node.opset >= 13:
            return [fn(x, _axis(node, int(node.attr("axis", -1)), x.dim()))]
        # Before opset 13: the input is seen as 2-d [prod(shape[:axis]), prod(shape[axis:])].
        axis = _axis(node, int(node.attr("axis", 1)), x.dim())
        if axis == x.dim() - 1:
            return [fn(x, axis)]
        flat = x.reshape(math.prod(x.shape[:axis]), -1)
        return [fn(flat, 1).reshape(x.shape)]
    return compute


ONNX_OPS["Softmax"] = _softmax_like(lambda x, axis: torch.softmax(x, axis))
ONNX_OPS["LogSoftmax"] = _softmax_like(lambda x, axis: torch.log_softmax(x, axis))


# ----- reductions -------------------------------------------------------------------------------

def _reduce_axes(node: Node, inputs, rank: int):
    axes_as_input = node.opset >= 18 or (node.op_type == "ReduceSum" and node.opset >= 13)
    if axes_as_input:
        axes = node.static_list(inputs, 1, "axes")
    else:
        axes = node.attr("axes")
    if not axes:
        if node.attr("noop_with_empty_axes", 0):
            return None
        return list(range(rank))
    return sorted({_axis(node, int(a), rank) for a in axes})


def _reducer(kind: str):
    def compute(node, inputs):
        x = inputs[0]
        axes = _reduce_axes(node, inputs, x.dim())
        if axes is None:
            return [x]
        keep = bool(node.attr("keepdims", 1))
        if not axes:
            return [x]
        if kind == "mean":
            return [x.mean(dim=axes, keepdim=keep)]
        if kind == "sum":
            return [x.sum(dim=axes, keepdim=keep)]
        if kind == "max":
            return [x.amax(dim=axes, keepdim=keep)]
        if kind == "min":
            return [x.amin(dim=axes, keepdim=keep)]
        if kind == "prod":
            result = x
            for axis in reversed(axes):
                result = result.prod(dim=axis, keepdim=keep)
            return [result]
        if kind == "l1":
            return [x.abs().sum(dim=axes, keepdim=keep)]
        if kind == "l2":
            return [torch.sqrt((x * x).sum(dim=axes, keepdim=keep))]
        if kind == "sumsquare":
            return [(x * x).sum(dim=axes, keepdim=keep)]
        if kind == "logsum":
            return [torch.log(x.sum(dim=axes, keepdim=keep))]
        if kind == "logsumexp":
            peak = x.amax(dim=axes, keepdim=True)
            result = torch.log(torch.exp(x - peak).sum(dim=axes, keepdim=True)) + peak
            return [result if keep else result.reshape([s for i, s in enumerate(x.shape) if i not in axes])]
        raise AssertionError(kind)
    return compute


for _name, _kind in {"ReduceMean": "mean", "ReduceSum": "sum", "ReduceMax": "max", "ReduceMin": "min",
                     "ReduceProd": "prod", "ReduceL1": "l1", "ReduceL2": "l2", "ReduceSumSquare": "sumsquare",
                     "ReduceLogSum": "logsum", "ReduceLogSumExp": "logsumexp"}.items():
    ONNX_OPS[_name] = _reducer(_kind)


@onnx_op("ArgMax", "ArgMin")
def _argmax(node, inputs):
    x = inputs[0]
    if node.attr("select_last_index", 0):
        node.fail(f"{node.op_type} with select_last_index=1 is not supported")
    axis = _axis(node, int(node.attr("axis", 0)), x.dim())
    fn = torch.argmax if node.op_type == "ArgMax" else torch.argmin
    return [fn(x, dim=axis, keepdim=bool(node.attr("keepdims", 1)))]


@onnx_op("CumSum")
def _cumsum(node, inputs):
    x = inputs[0]
    axis = _axis(node, int(node.static_scalar(inputs, 1, "axis")), x.dim())
    reverse, exclusive = node.attr("reverse", 0), node.attr("exclusive", 0)
    if reverse:
        index = torch.arange(x.shape[axis] - 1, -1, -1)
        x = x.index_select(axis, index)
    y = torch.cumsum(x, axis)
    if exclusive:
        y = y - x
    if reverse:
        y = y.index_select(axis, index)
    return [y]


@onnx_op("TopK")
def _topk(node, inputs):
    x = inputs[0]
    k = int(node.static_scalar(inputs, 1, "K") if node.opset >= 10 else node.attr("k"))
    axis = _axis(node, int(node.attr("axis", -1)), x.dim())
    values, indices = torch.topk(x, k, dim=axis, largest=bool(node.attr("largest", 1)), sorted=True)
    return [values, indices]


@onnx_op("Einsum")
def _einsum(node, inputs):
    return [torch.einsum(node.attr("equation"), *inputs)]


# ----- shapes and layout ------------------------------------------------------------------------

@onnx_op("Shape")
def _shape(node, inputs):
    dims = list(inputs[0].shape)
    start, end = node.attr("start", 0), node.attr("end")
    return [torch.tensor(dims[start:end] if end is not None else dims[start:], dtype=torch.int64)]


@onnx_op("Size")
def _size(node, inputs):
    return [torch.tensor(inputs[0].numel(), dtype=torch.int64)]


@onnx_op("Constant")
def _constant(node, inputs):
    for key in ("value", "value_float", "value_floats", "value_int", "value_ints"):
        if key in node.attrs:
            value = node.attrs[key]
            if isinstance(value, torch.Tensor):
                return [value]
            dtype = torch.float32 if "float" in key else torch.int64
            return [torch.tensor(value, dtype=dtype)]
    node.fail("a Constant of this kind (sparse or string) is not supported")


@onnx_op("ConstantOfShape")
def _constant_of_shape(node, inputs):
    shape = [int(d) for d in node.static_list(inputs, 0, "shape")]
    check_size(node, shape)
    value = node.attr("value")
    if value is None:
        return [torch.zeros(shape, dtype=torch.float32)]
    return [torch.full(shape, value.reshape(-1)[0].item(), dtype=value.dtype)]


@onnx_op("Reshape")
def _reshape(node, inputs):
    x = inputs[0]
    shape = [int(d) for d in node.static_list(inputs, 1, "shape")]
    if not node.attr("allowzero", 0):
        shape = [x.shape[i] if d == 0 and i < x.dim() else d for i, d in enumerate(shape)]
    return [x.reshape(shape)]


@onnx_op("Flatten")
def _flatten(node, inputs):
    x = inputs[0]
    axis = int(node.attr("axis", 1))
    if axis < 0:
        axis += x.dim()
    if not 0 <= axis <= x.dim():
        node.fail(f"axis {node.attr('axis')} out of range for a tensor of rank {x.dim()}")
    return [x.reshape(math.prod(x.shape[:axis]), math.prod(x.shape[axis:]))]


@onnx_op("Transpose")
def _transpose(node, inputs):
    x = inputs[0]
    perm = node.attr("perm")
    if perm is None:
        perm = list(reversed(range(x.dim())))
    return [x.permute(*[int(p) for p in perm])]


@onnx_op("Squeeze")
def _squeeze(node, inputs):
    x = inputs[0]
    axes = node.attr("axes") if node.opset < 13 else node.static_list(inputs, 1, "axes")
    if not axes:
        return [x.reshape([s for s in x.shape if s != 1])]
    axes = {_axis(node, int(a), x.dim()) for a in axes}
    for a in axes:
        if x.shape[a] != 1:
            node.fail(f"cannot squeeze dimension {a} of size {x.shape[a]}")
    return [x.reshape([s for i, s in enumerate(x.shape) if i not in axes])]


@onnx_op("Unsqueeze")
def _unsqueeze(node, inputs):
    x = inputs[0]
    axes = node.attr("axes") if node.opset < 13 else node.static_list(inputs, 1, "axes")
    rank = x.dim() + len(axes)
    axes = sorted({_axis(node, int(a), rank) for a in axes})
    shape = list(x.shape)
    for a in axes:
        shape.insert(a, 1)
    return [x.reshape(shape)]


@onnx_op("Concat")
def _concat(node, inputs):
    tensors = [t for t in inputs if t is not None]
    axis = _axis(node, int(node.attr("axis")), tensors[0].dim())
    return [torch.cat(tensors, dim=axis)]


@onnx_op("Split")
def _split(node, inputs):
    x = inputs[0]
    axis = _axis(node, int(node.attr("axis", 0)), x.dim())
    if node.opset < 13:
        sizes = node.attr("split")
    else:
        sizes = node.static_list(inputs, 1, "split")
    if not sizes:
        count = node.num_outputs
        if x.shape[axis] % count:
            node.fail(f"dimension {axis} of size {x.shape[axis]} does not split into {count} equal parts")
        sizes = [x.shape[axis] // count] * count
    if sum(sizes) != x.shape[axis]:
        node.fail(f"split sizes {sizes} do not add up to dimension {axis} of size {x.shape[axis]}")
    return list(torch.split(x, [int(s) for s in sizes], dim=axis))


@onnx_op("Slice")
def _slice(node, inputs):
    x = inputs[0]
    if node.opset < 10:
        starts, ends, axes, steps = node.attr("starts"), node.attr("ends"), node.attr("axes"), None
    else:
        starts = node.static_list(inputs, 1, "starts")
        ends = node.static_list(inputs, 2, "ends")
        axes = node.static_list(inputs, 3, "axes")
        steps = node.static_list(inputs, 4, "steps")
    axes = axes if axes is not None else list(range(len(starts)))
    steps = steps if steps is not None else [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        node.fail("starts, ends, axes and steps differ in length")
    for start, end, axis, step in zip(starts, ends, axes, steps):
        axis = _axis(node, int(axis), x.dim())
        size = x.shape[axis]
        if step == 0:
            node.fail("a slice step of 0")
        if step > 0:
            start = min(max(start + size if start < 0 else start, 0), size)
            end = min(max(end + size if end < 0 else end, 0), size)
            if end <= start:
                node.fail("an empty slice")
            x = x.narrow(axis, start, end - start) if step == 1 else x.narrow(axis, start, end - start)[
                (slice(None),) * axis + (slice(None, None, step),)]
        else:
            start = min(max(start + size if start < 0 else start, -1), size - 1)
            end = min(max(end + size if end < 0 else end, -1), size - 1)
            index = torch.arange(start, end, step)
            if index.numel() == 0:
                node.fail("an empty slice")
            x = x.index_select(axis, index)
    return [x]


@onnx_op("Gather")
def _gather(node, inputs):
    data, indices = inputs
    axis = _axis(node, int(node.attr("axis", 0)), data.dim())
    if not node.static[1]:
        node.fail("its indices depend on the model's input; only constant indices are supported")
    size = data.shape[axis]
    indices = indices.long()
    if ((indices < -size) | (indices >= size)).any():
        node.fail(f"an index out of range for dimension {axis} of size {size}")
    flat = torch.where(indices < 0, indices + size, indices).reshape(-1)
    selected = data.index_select(axis, flat)
    shape = list(data.shape[:axis]) + list(indices.shape) + list(data.shape[axis + 1:])
    return [selected.reshape(shape)]


@onnx_op("Expand")
def _expand(node, inputs):
    x = inputs[0]
    shape = [int(d) for d in node.static_list(inputs, 1, "shape")]
    if len(shape) > 16 or any(d < 0 for d in shape):
        node.fail(f"shape {shape} is not a valid Expand target")
    target = list(torch.broadcast_shapes(tuple(x.shape), tuple(shape)))
    check_size(node, target)
    return [x.expand(target)]


@onnx_op("Tile")
def _tile(node, inputs):
    repeats = [int(r) for r in node.static_list(inputs, 1, "repeats")]
    if len(repeats) != inputs[0].dim():
        node.fail(f"repeats has {len(repeats)} values for a tensor of rank {inputs[0].dim()}")
    check_size(node, [r * d for r, d in zip(repeats, inputs[0].shape)])
    return [inputs[0].repeat(repeats)]


@onnx_op("Range")
def _range(node, inputs):
    start, limit, delta = (node.static_scalar(inputs, i, name) for i, name in enumerate(("start", "limit", "delta")))
    if delta == 0:
        node.fail("a Range with delta 0")
    check_size(node, [max(math.ceil((limit - start) / delta), 0)])
    return [torch.arange(start, limit, delta, dtype=inputs[0].dtype)]


@onnx_op("Pad")
def _pad(node, inputs):
    x = inputs[0]
    mode = node.attr("mode", "constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    if node.opset < 11:
        pads, value = list(node.attr("pads")), float(node.attr("value", 0.0))
    else:
        pads = [int(p) for p in node.static_list(inputs, 1, "pads")]
        value = node.static_scalar(inputs, 2, "constant_value")
        value = float(value) if value is not None else 0.0
    rank = x.dim()
    if len(pads) != 2 * rank:
        node.fail(f"pads has {len(pads)} values for a tensor of rank {rank}")
    pairs = [[pads[i], pads[i + rank]] for i in range(rank)]
    for axis, (begin, end) in enumerate(pairs):  # negative pads crop
        if begin < 0 or end < 0:
            crop_begin, crop_end = max(-begin, 0), max(-end, 0)
            x = x.narrow(axis, crop_begin, x.shape[axis] - crop_begin - crop_end)
            pairs[axis] = [max(begin, 0), max(end, 0)]
    if not any(b or e for b, e in pairs):
        return [x]
    check_size(node, [d + b + e for d, (b, e) in zip(x.shape, pairs)])
    first = next(i for i, (b, e) in enumerate(pairs) if b or e)
    flat = _torch_pad(pairs[first:])
    if mode == "constant":
        return [F.pad(x, flat, value=value)]
    torch_mode = {"reflect": "reflect", "edge": "replicate"}.get(mode)
    if torch_mode is None:
        node.fail(f"Pad mode {mode!r} is not supported")
    return [F.pad(x, flat, mode=torch_mode)]


def _resize_before_11(node: Node, x: torch.Tensor, scales) -> List[torch.Tensor]:
    """Upsample (opset 9) and Resize before opset 11: asymmetric coordinates, scales only."""
    if x.dim() - 2 not in (1, 2):
        node.fail(f"{node.op_type} of a rank-{x.dim()} tensor is not supported (1-d and 2-d spatial are)")
    if scales is None or len(scales) != x.dim():
        node.fail(f"{node.op_type} needs one scale per dimension")
    if list(scales[:2]) != [1.0, 1.0] or any(not 0 < v < 1e6 for v in scales):
        node.fail(f"{node.op_type} scales {scales} are not supported (batch and channel must stay, others positive)")
    check_size(node, [math.floor(d * v) for d, v in zip(x.shape, scales)])
    if node.attr("mode", "nearest") != "nearest":
        node.fail(f"{node.op_type} mode {node.attr('mode')!r} before opset 11 is not supported (nearest is)")
    return [F.interpolate(x, scale_factor=[float(v) for v in scales[2:]], mode="nearest", recompute_scale_factor=False)]


@onnx_op("Upsample")
def _upsample(node, inputs):
    return _resize_before_11(node, inputs[0], node.static_list(inputs, 1, "scales"))


@onnx_op("Resize")
def _resize(node, inputs):
    x = inputs[0]
    if node.opset < 11:
        return _resize_before_11(node, x, node.static_list(inputs, 1, "scales"))
    n = x.dim() - 2
    mode = node.attr("mode", "nearest")
    transform = node.attr("coordinate_transformation_mode", "half_pixel")
    nearest_mode = node.attr("nearest_mode", "round_prefer_floor")
    scales = node.static_list(inputs, 2, "scales") if len(inputs) > 2 else None
    sizes = node.static_list(inputs, 3, "sizes") if len(inputs) > 3 else None
    if scales is not None and len(scales) == 0:
        scales = None
    if node.attr("antialias", 0) or node.attr("axes") is not None:
        node.fail("Resize with antialias or axes is not supported")
    if n not in (1, 2):
        node.fail(f"Resize of a rank-{x.dim()} tensor is not supported (1-d and 2-d spatial are)")
    if sizes is not None:
        check_size(node, [int(v) for v in sizes])
        if list(sizes[:2]) != list(x.shape[:2]):
            node.fail("Resize changes the batch or channel dimension")
        kwargs = {"size": [int(s) for s in sizes[2:]]}
    elif scales is not None:
        if list(scales[:2]) != [1.0, 1.0]:
            node.fail("Resize scales the batch or channel dimension")
        if any(not 0 < v < 1e6 for v in scales):
            node.fail(f"Resize scales {scales} out of range")
        check_size(node, [math.floor(d * v) for d, v in zip(x.shape, scales)])
        kwargs = {"scale_factor": [float(s) for s in scales[2:]], "recompute_scale_factor": False}
    else:
        node.fail("Resize needs scales or sizes")
    if mode == "nearest":
        if transform == "asymmetric" and nearest_mode == "floor":
            return [F.interpolate(x, mode="nearest", **kwargs)]
        if (transform in ("half_pixel", "pytorch_half_pixel") and nearest_mode in ("round_prefer_floor", "round_prefer_ceil")
                and _integer_ratio(x, kwargs)):
            return [F.interpolate(x, mode="nearest-exact", **kwargs)]
        node.fail(f"Resize nearest with coordinate_transformation_mode={transform!r}, nearest_mode={nearest_mode!r} "
                  "is not supported (asymmetric + floor is, and half_pixel upsampling by whole factors)")
    if mode == "linear":
        torch_mode = "linear" if n == 1 else "bilinear"
        if transform == "align_corners":
            return [F.interpolate(x, mode=torch_mode, align_corners=True, **kwargs)]
        if transform in ("half_pixel", "pytorch_half_pixel"):
            return [F.interpolate(x, mode=torch_mode, align_corners=False, **kwargs)]
        node.fail(f"Resize linear with coordinate_transformation_mode={transform!r} is not supported")
    node.fail(f"Resize mode {mode!r} is not supported (nearest and linear are)")


def _integer_ratio(x, kwargs) -> bool:
    """Upsampling by whole factors: ONNX's half_pixel + round_prefer_floor equals PyTorch's nearest-exact."""
    if "scale_factor" in kwargs:
        return all(float(s).is_integer() and s >= 1 for s in kwargs["scale_factor"])
    return all(out % size == 0 for out, size in zip(kwargs["size"], x.shape[2:]))


# ----- recurrent layers -------------------------------------------------------------------------
# ONNX keeps one layer per node, gates stacked in its own order; PyTorch's fused functions
# (torch._VF.lstm / gru / rnn_tanh / rnn_relu) take them in PyTorch's order.  The exporter lowers
# those functions whole (the recurrent-layer support), so the node becomes one engine op.

_GATE_ORDER = {"LSTM": [0, 2, 3, 1],   # ONNX i o f c -> PyTorch i f g o
               "GRU": [1, 0, 2],       # ONNX z r h -> PyTorch r z n
               "RNN": [0]}
_NUM_GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


def _reorder_gates(kind: str, w: torch.Tensor, hidden: int) -> torch.Tensor:
    chunks = [w[i * hidden:(i + 1) * hidden] for i in range(_NUM_GATES[kind])]
    return torch.cat([chunks[i] for i in _GATE_ORDER[kind]], dim=0)


# ONNX's activation functions of recurrent nodes: name -> (function of (x, alpha, beta), default alpha, beta).
_ACTIVATIONS = {
    "Sigmoid": (lambda x, a, b: torch.sigmoid(x), None, None),
    "Tanh": (lambda x, a, b: torch.tanh(x), None, None),
    "Relu": (lambda x, a, b: torch.relu(x), None, None),
    "Softsign": (lambda x, a, b: F.softsign(x), None, None),
    "Softplus": (lambda x, a, b: F.softplus(x), None, None),
    "HardSigmoid": (lambda x, a, b: torch.clamp(x * a + b, 0.0, 1.0), 0.2, 0.5),
    "LeakyRelu": (lambda x, a, b: F.leaky_relu(x, a), 0.01, None),
    "ThresholdedRelu": (lambda x, a, b: torch.where(x > a, x, torch.zeros(())), 1.0, None),
    "Elu": (lambda x, a, b: F.elu(x, a), 1.0, None),
    "Affine": (lambda x, a, b: x * a + b, 1.0, 0.0),
    "ScaledTanh": (lambda x, a, b: torch.tanh(x * b) * a, 1.0, 1.0),
}


def _activation_functions(node: Node, names: List[str]):
    """The node's activations as functions, taking activation_alpha/beta in order where they apply."""
    alphas = list(node.attr("activation_alpha", []))
    betas = list(node.attr("activation_beta", []))
    functions = []
    for name in names:
        if name not in _ACTIVATIONS:
            node.fail(f"activation {name!r} is not supported")
        fn, alpha, beta = _ACTIVATIONS[name]
        if alpha is not None and alphas:
            alpha = float(alphas.pop(0))
        if beta is not None and betas:
            beta = float(betas.pop(0))
        functions.append(lambda x, fn=fn, alpha=alpha, beta=beta: fn(x, alpha, beta))
    return functions


def _unrolled_direction(kind: str, x, w, r, wb, rb, h, c, peephole, acts, clip, linear_before_reset: bool,
                        input_forget: bool, reverse: bool, hidden: int):
    """One direction of an ONNX LSTM/GRU/RNN computed step by step, exactly as the specification
    writes it (gate order i o f c for LSTM, z r h for GRU).  x [T, B, I]; returns Y [T, B, H], h, c."""
    def chunk(t, k):
        return t[..., k * hidden:(k + 1) * hidden]

    def clipped(t):
        return torch.clamp(t, -clip, clip) if clip is not None else t

    steps = x.shape[0]
    projected = torch.matmul(x, w.t()) + wb  # every step's input products in one product
    outputs = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        xt = projected[t]
        if kind == "RNN":
            h = acts[0](clipped(xt + torch.mm(h, r.t()) + rb))
        elif kind == "GRU":
            hr = torch.mm(h, r.t())
            z = acts[0](clipped(chunk(xt, 0) + chunk(hr, 0) + chunk(rb, 0)))
            reset = acts[0](clipped(chunk(xt, 1) + chunk(hr, 1) + chunk(rb, 1)))
            if linear_before_reset:
                candidate = chunk(xt, 2) + reset * (chunk(hr, 2) + chunk(rb, 2))
            else:
                candidate = chunk(xt, 2) + torch.mm(reset * h, chunk(r.t(), 2)) + chunk(rb, 2)
            candidate = acts[1](clipped(candidate))
            h = (1.0 - z) * candidate + z * h
        else:
            g = xt + torch.mm(h, r.t()) + rb
            i_pre, o_pre, f_pre, c_pre = (chunk(g, k) for k in range(4))
            if peephole is not None:
                i_pre = i_pre + peephole[0] * c
                f_pre = f_pre + peephole[2] * c
            i = acts[0](clipped(i_pre))
            f = 1.0 - i if input_forget else acts[0](clipped(f_pre))
            c = f * c + i * acts[1](clipped(c_pre))
            if peephole is not None:
                o_pre = o_pre + peephole[1] * c
            o = acts[0](clipped(o_pre))
            h = o * acts[2](c)
        outputs[t] = h
    return torch.stack(outputs), h, c


@onnx_op("LSTM", "GRU", "RNN")
def _recurrent(node, inputs):
    kind = node.op_type
    inputs = list(inputs) + [None] * (8 - len(inputs))
    x, w, r, b, sequence_lens, initial_h = inputs[:6]
    initial_c = inputs[6] if kind == "LSTM" else None
    peephole = inputs[7] if kind == "LSTM" else None
    hidden = int(node.attr("hidden_size"))
    direction = node.attr("direction", "forward")
    if direction not in ("forward", "reverse", "bidirectional"):
        node.fail(f"direction {direction!r} is not supported")
    num_directions = 2 if direction == "bidirectional" else 1
    clip = node.attr("clip")
    input_forget = bool(node.attr("input_forget", 0))
    linear_before_reset = bool(node.attr("linear_before_reset", 0))
    default_activations = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"], "RNN": ["Tanh"]}[kind]
    activations = list(node.attr("activations", default_activations * num_directions))
    if len(activations) != len(default_activations) * num_directions:
        node.fail(f"{len(activations)} activations given; {kind} needs {len(default_activations) * num_directions}")
    relu_rnn = kind == "RNN" and activations == ["Relu"] * num_directions
    # PyTorch's fused layers (one engine op) where the node is one of them; else step by step.
    fused = (clip is None and not input_forget and peephole is None and node.attr("activation_alpha") is None
             and node.attr("activation_beta") is None
             and (activations == default_activations * num_directions or relu_rnn)
             and (kind != "GRU" or linear_before_reset))
    layout = int(node.attr("layout", 0))
    if layout:  # batch first: X [batch, seq, input], states [batch, directions, hidden]
        x = x.transpose(0, 1)
        initial_h = initial_h.transpose(0, 1) if initial_h is not None else None
        initial_c = initial_c.transpose(0, 1) if initial_c is not None else None
    seq_len, batch = x.shape[0], x.shape[1]
    if sequence_lens is not None:
        lengths = node.static_list(inputs, 4, "sequence_lens")
        if any(int(n) != seq_len for n in lengths):
            node.fail("sequence_lens shorter than the sequence (padded batches) are not supported")
    if w.shape[0] != num_directions:
        node.fail(f"W has {w.shape[0]} directions; direction={direction!r} needs {num_directions}")
    zeros = torch.zeros(num_directions, batch, hidden)
    initial_h = initial_h if initial_h is not None else zeros
    if kind == "LSTM":
        initial_c = initial_c if initial_c is not None else zeros
    gates = _NUM_GATES[kind] * hidden
    biases = [b[d] if b is not None else torch.zeros(2 * gates) for d in range(num_directions)]

    if not fused:
        per_direction = len(default_activations)
        ys, hs, cs = [], [], []
        for d in range(num_directions):
            acts = _activation_functions(node, activations[d * per_direction:(d + 1) * per_direction])
            y, h, c = _unrolled_direction(
                kind, x, w[d], r[d], biases[d][:gates], biases[d][gates:], initial_h[d],
                initial_c[d] if kind == "LSTM" else None, peephole[d].reshape(3, hidden) if peephole is not None else None,
                acts, float(clip) if clip is not None else None, linear_before_reset, input_forget,
                direction == "reverse" or d == 1, hidden)
            ys.append(y)
            hs.append(h)
            cs.append(c)
        y = torch.stack(ys, dim=1)  # [seq, directions, batch, hidden]
        states = [torch.stack(hs)] + ([torch.stack(cs)] if kind == "LSTM" else [])
    else:
        weights = []
        for d in range(num_directions):
            weights += [_reorder_gates(kind, w[d], hidden), _reorder_gates(kind, r[d], hidden),
                        _reorder_gates(kind, biases[d][:gates], hidden), _reorder_gates(kind, biases[d][gates:], hidden)]
        reverse = direction == "reverse"
        if reverse:  # run forward over the reversed sequence
            flip = torch.arange(seq_len - 1, -1, -1)
            x = x.index_select(0, flip)
        bidirectional = num_directions == 2
        if kind == "LSTM":
            y, h_n, c_n = torch._VF.lstm(x, (initial_h, initial_c), weights, True, 1, 0.0, False, bidirectional, False)
            states = [h_n, c_n]
        else:
            fn = torch._VF.gru if kind == "GRU" else torch._VF.rnn_relu if relu_rnn else torch._VF.rnn_tanh
            y, h_n = fn(x, initial_h, weights, True, 1, 0.0, False, bidirectional, False)
            states = [h_n]
        if reverse:
            y = y.index_select(0, flip)
        # PyTorch: [seq, batch, directions * hidden]; ONNX: [seq, directions, batch, hidden].
        y = y.reshape(seq_len, batch, num_directions, hidden).permute(0, 2, 1, 3)
    if layout:
        y = y.permute(2, 0, 1, 3)                  # [batch, seq, directions, hidden]
        states = [s.transpose(0, 1) for s in states]  # [batch, directions, hidden]
    return ([y] + states)[:node.num_outputs]


# ----- signal processing (opset 17): windows, mel weights, DFT, STFT ------------------------------

def _window(node: Node, inputs, shape_of) -> List[torch.Tensor]:
    size = int(node.static_scalar(inputs, 0, "size"))
    if not 0 < size <= MAX_ELEMENTS:
        node.fail(f"window size {size} is outside 1…{MAX_ELEMENTS}")
    span = size if node.attr("periodic", 1) else size - 1
    n = torch.arange(size, dtype=torch.float64)
    phase = 2 * math.pi * n / max(span, 1)
    return [shape_of(phase).to(ONNX_DTYPES.get(int(node.attr("output_datatype", 1)), torch.float32))]


@onnx_op("HannWindow")
def _hann_window(node, inputs):
    return _window(node, inputs, lambda phase: 0.5 - 0.5 * torch.cos(phase))


@onnx_op("HammingWindow")
def _hamming_window(node, inputs):
    return _window(node, inputs, lambda phase: 25.0 / 46.0 - (21.0 / 46.0) * torch.cos(phase))


@onnx_op("BlackmanWindow")
def _blackman_window(node, inputs):
    return _window(node, inputs, lambda phase: 0.42 - 0.5 * torch.cos(phase) + 0.08 * torch.cos(2 * phase))


@onnx_op("MelWeightMatrix")
def _mel_weight_matrix(node, inputs):
    """The ONNX specification's triangular filters ([dft_length / 2 + 1, num_mel_bins]), on integer
    FFT-bin edges as its reference implementation computes them."""
    import numpy as np
    mels, dft_length, rate = (int(node.static_scalar(inputs, i, what)) for i, what in
                              enumerate(("num_mel_bins", "dft_length", "sample_rate")))
    low, high = (float(node.static_scalar(inputs, i, what)) for i, what in ((3, "lower_edge_hertz"), (4, "upper_edge_hertz")))
    bins = dft_length // 2 + 1
    if not (0 < mels and 0 < dft_length and 0 < rate) or bins * mels > MAX_ELEMENTS:
        node.fail(f"a mel weight matrix of {mels} bands over a {dft_length}-point DFT at {rate} Hz is not supported")
    low_mel = 2595.0 * np.log10(1.0 + low / 700.0)
    high_mel = 2595.0 * np.log10(1.0 + high / 700.0)
    edges = np.arange(mels + 2) * ((high_mel - low_mel) / (mels + 2)) + low_mel  # the spec divides by mels + 2
    edges = ((dft_length + 1) * (700.0 * (np.power(10.0, edges / 2595.0) - 1.0)) // rate).astype(np.int64)
    weights = np.zeros((bins, mels))
    for i in range(mels):
        left, centre, right = (int(e) for e in edges[i:i + 3])
        if not (0 <= left <= centre <= right < bins + 1):
            node.fail("the mel band edges fall outside the DFT bins")
        if centre == left:
            if centre < bins:
                weights[centre, i] = 1.0
        else:
            for j in range(left, min(centre, bins - 1) + 1):
                weights[j, i] = (j - left) / (centre - left)
        for j in range(centre, min(right, bins)):
            if right > centre:
                weights[j, i] = (right - j) / (right - centre)
    return [torch.from_numpy(weights).to(ONNX_DTYPES.get(int(node.attr("output_datatype", 1)), torch.float32))]


def _real_signal(node: Node, signal: torch.Tensor) -> torch.Tensor:
    if signal.shape[-1] != 1:
        node.fail("a complex input signal ([..., 2]) is not supported: the engine transforms real signals")
    return signal[..., 0]


@onnx_op("DFT")
def _dft(node, inputs):
    """A forward DFT of a real signal along `axis` (torch.fft.rfft / fft), [..., 2] out."""
    if node.attr("inverse", 0):
        node.fail("the inverse DFT is not supported")
    signal = inputs[0]
    axis = int(node.attr("axis", 1))
    axis = axis + signal.dim() if axis < 0 else axis
    if not 0 <= axis < signal.dim() - 1:
        node.fail(f"axis {node.attr('axis', 1)} is not a signal axis of a rank-{signal.dim()} input")
    length = node.static_scalar(inputs, 1, "dft_length")
    x = _real_signal(node, signal)
    n = int(length) if length is not None else x.shape[axis]
    spectrum = torch.fft.rfft(x, n=n, dim=axis) if node.attr("onesided", 0) else torch.fft.fft(x, n=n, dim=axis)
    return [torch.view_as_real(spectrum)]


@onnx_op("STFT")
def _stft(node, inputs):
    """Frames of `frame_length` every `frame_step`, windowed, DFT per frame: [batch, frames, bins, 2]
    (torch.stft without centring, its bins and frames axes swapped)."""
    x = _real_signal(node, inputs[0])
    step = int(node.static_scalar(inputs, 1, "frame_step"))
    window = inputs[2] if len(inputs) > 2 else None
    length = node.static_scalar(inputs, 3, "frame_length")
    if length is None:
        if window is None:
            node.fail("needs a window or a frame_length")
        length = window.shape[0]
    length = int(length)
    if window is not None and window.dim() != 1 or window is not None and window.shape[0] != length:
        node.fail(f"the window must be one axis of frame_length = {length} values")
    if step <= 0 or not 0 < length <= x.shape[-1]:
        node.fail(f"frame_step {step} and frame_length {length} do not fit a signal of {x.shape[-1]} samples")
    spectrum = torch.stft(x, n_fft=length, hop_length=step, win_length=length,
                          window=window if window is not None else torch.ones(length), center=False,
                          onesided=bool(node.attr("onesided", 1)), return_complex=True)
    return [torch.view_as_real(spectrum).transpose(1, 2)]
