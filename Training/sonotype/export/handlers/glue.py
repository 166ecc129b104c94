"""Glue of real code: GLU, vector norms, PReLU, top-k and sort, interpolation, small activations
written with other ops (CELU, log-sigmoid, threshold, shrink), adaptive max pooling, logit and
nan_to_num."""

import math
from typing import List, Optional

import torch

from ..emit import normal_axes, normal_axis, reshape, shape_list, slice_
from ..errors import ExportError
from ..registry import handles


@handles("glu")
def _glu(r, a, out):
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    axis = normal_axis(a["dim"], len(shape))
    half = shape[axis] // 2
    gate = r.graph.add("sigmoid", [slice_(r, x, axis, half, half)], shape_list(out))
    return r.graph.add("mul", [slice_(r, x, axis, 0, half), gate], shape_list(out))


def _vector_norm(r, x: int, order, axes: List[int], keepdim: bool, out_shape) -> int:
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
    return _vector_norm(r, x, order, normal_axes(a.get("dim"), len(r.graph.shape(x))), bool(a.get("keepdim") or False), shape_list(out))


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


@handles("topk")
def _topk(r, a, out):
    x = r.value_id(a["self"])
    axis = normal_axis(a["dim"], len(r.graph.shape(x)))
    return r.graph.add_node("topk", [x], [shape_list(out[0]), shape_list(out[1])], axis=axis, k=int(a["k"]),
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


@handles("celu")
def _celu(r, a, out):
    alpha = float(a["alpha"])
    return r.graph.add("elu", [r.value_id(a["self"])], shape_list(out), alpha=alpha, scale=1.0, input_scale=1.0 / alpha)


@handles("log_sigmoid_forward", "log_sigmoid")
def _log_sigmoid(r, a, out):
    """log σ(x) = −softplus(−x)."""
    first = out[0] if isinstance(out, tuple) else out
    negated = r.graph.add("neg", [r.value_id(a["self"])], shape_list(first))
    softplus = r.graph.add("softplus", [negated], shape_list(first), beta=1.0, threshold=20.0)
    y = r.graph.add("neg", [softplus], shape_list(first))
    return [y, None] if isinstance(out, tuple) else y


@handles("threshold")
def _threshold(r, a, out):
    x = r.value_id(a["self"])
    above = r.graph.add("gt", [x, r.graph.add_scalar(float(a["threshold"]))], shape_list(out))
    return r.graph.add("where", [above, x, r.graph.add_scalar(float(a["value"]))], shape_list(out))


@handles("hardshrink", "softshrink")
def _shrink(r, a, out):
    x = r.value_id(a["self"])
    lambd = float(a["lambd"])
    shape = shape_list(out)
    outside = r.graph.add("gt", [r.graph.add("abs", [x], shape), r.graph.add_scalar(lambd)], shape)
    if a["__op__"] == "hardshrink":
        return r.graph.add("where", [outside, x, r.graph.add_scalar(0.0)], shape)
    shrunk = r.graph.add("sub", [x, r.graph.add("mul", [r.graph.add("sign", [x], shape), r.graph.add_scalar(lambd)], shape)], shape)
    return r.graph.add("where", [outside, shrunk, r.graph.add_scalar(0.0)], shape)


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
        y = r.graph.add("max_pool", [x], shape_list(out[0]), kernel=kernel, stride=kernel, padding=[0] * num_spatial,
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


@handles("logit")
def _logit(r, a, out):
    x = r.value_id(a["self"])
    shape = shape_list(out)
    if a.get("eps") is not None:
        x = r.graph.add("clamp", [x], shape, min=float(a["eps"]), max=1.0 - float(a["eps"]))
    odds = r.graph.add("div", [x, r.graph.add("sub", [r.graph.add_scalar(1.0), x], shape)], shape)
    return r.graph.add("log", [odds], shape)


@handles("nan_to_num")
def _nan_to_num(r, a, out):
    import numpy as np
    x = r.value_id(a["self"])
    shape = shape_list(out)
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
    axis = normal_axis(a["dim"], len(r.graph.shape(x)))
    return r.graph.add_node("topk", [x], [shape_list(out[0]), shape_list(out[1])], axis=axis, k=int(r.graph.shape(x)[axis]),
                            largest=bool(a["descending"]))
