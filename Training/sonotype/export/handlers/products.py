"""Matrix products, convolution (transposed convolution as the convolution it is the gradient
of) and pooling."""


import torch

from ..emit import normal_axis, operand, reshape, shape_list, slice_
from ..errors import ExportError
from ..registry import handles


def _gemm_operand(r, t: torch.Tensor):
    """(value id, transposed): a last-two-dims transpose feeding a GEMM is folded into the GEMM."""
    entry = r.tracked(t)
    rank = t.dim()
    if entry.is_const and entry.origin is not None and rank >= 2:
        op_name, source, args = entry.origin
        source_const = source.const
        if source_const is not None and source_const.dim() == rank:
            if op_name in ("t", "numpy_T") and rank == 2:
                return r.value_id_of(source), True
            if op_name == "transpose" and {normal_axis(args["dim0"], rank), normal_axis(args["dim1"], rank)} == {rank - 2, rank - 1}:
                return r.value_id_of(source), True
            if op_name == "permute" and [normal_axis(d, rank) for d in args["dims"]] == list(range(rank - 2)) + [rank - 1, rank - 2]:
                return r.value_id_of(source), True
    vid = r.value_id(t)
    node = r.graph.producer_node(vid)
    if node is not None and node.op == "permute" and node.attrs["perm"] == list(range(rank - 2)) + [rank - 1, rank - 2]:
        return node.inputs[0], True
    return vid, False


def gemm(r, a_t, b_t, c, out, alpha=1.0, beta=1.0) -> int:
    a_vid, trans_a = _gemm_operand(r, a_t)
    b_vid, trans_b = _gemm_operand(r, b_t)
    c_vid = operand(r, c) if c is not None and beta != 0 else None
    return r.graph.add("gemm", [a_vid, b_vid, c_vid], shape_list(out), trans_a=trans_a, trans_b=trans_b,
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
    return reshape(r, product, shape_list(out))


def _insert_zeros(r, x: int, axis: int, stride: int) -> int:
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


def _transposed_convolution(r, a, out) -> int:
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
    return r.graph.add("conv", [x, w_vid, bias], shape_list(out), stride=[1] * num_spatial, padding=[0] * num_spatial,
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
    return r.graph.add("conv", inputs, shape_list(out), stride=spatial(a["stride"]), padding=spatial(a["padding"]),
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
    y = r.graph.add("max_pool", [r.value_id(a["self"])], shape_list(first), kernel=kernel, stride=stride,
                    padding=padding, dilation=dilation, ceil_mode=bool(a["ceil_mode"]))
    return [y, None] if isinstance(out, tuple) else y


@handles("avg_pool2d", "avg_pool1d")
def _avg_pool(r, a, out):
    num_spatial = 1 if "1d" in a["__op__"] else 2
    kernel, stride, padding, _ = _pool_params(a, num_spatial)
    return r.graph.add("avg_pool", [r.value_id(a["self"])], shape_list(out), kernel=kernel, stride=stride,
                       padding=padding, ceil_mode=bool(a["ceil_mode"]),
                       count_include_pad=bool(a["count_include_pad"]),
                       divisor_override=int(a.get("divisor_override") or 0))


@handles("_adaptive_avg_pool2d", "adaptive_avg_pool2d", "adaptive_avg_pool1d", "_adaptive_avg_pool1d")
def _adaptive_avg_pool(r, a, out):
    return r.graph.add("adaptive_avg_pool", [r.value_id(a["self"])], shape_list(out),
                       num_spatial=1 if "1d" in a["__op__"] else 2)
