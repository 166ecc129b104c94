"""Identity, layout and shape: views and reshapes, permutations, slicing, splitting and joining,
constant padding, index selection with constant indices, dtype conversions, copies and fills."""

import math

import torch

from ..emit import binary, normal_axis, permute, reshape, shape_list, slice_
from ..errors import ExportError
from ..registry import handles
from ..tracked import Tracked


@handles("view", "_unsafe_view", "reshape", "squeeze", "unsqueeze", "alias", "detach", "clone", "contiguous",
         "lift_fresh", "lift_fresh_copy", "view_as", "flatten", "unflatten", "_reshape_alias", "dropout",
         "feature_dropout", "alpha_dropout")
def _reshape(r, a, out):
    return reshape(r, r.value_id(a["self"] if "self" in a else a["input"]), shape_list(out))


@handles("expand", "broadcast_to", "expand_copy")
def _expand(r, a, out):
    x = r.value_id(a["self"])
    if math.prod(r.graph.shape(x)) == out.numel():
        return reshape(r, x, shape_list(out))
    return r.graph.add("expand", [x], shape_list(out))


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
    return reshape(r, expanded, shape_list(out))


@handles("permute")
def _permute(r, a, out):
    x = r.value_id(a["self"])
    rank = len(r.graph.shape(x))
    return permute(r, x, [normal_axis(d, rank) for d in a["dims"]])


@handles("transpose", "swapaxes", "swapdims")
def _transpose(r, a, out):
    x = r.value_id(a["self"])
    rank = len(r.graph.shape(x))
    perm = list(range(rank))
    d0, d1 = normal_axis(a["dim0"], rank), normal_axis(a["dim1"], rank)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return permute(r, x, perm)


@handles("t", "numpy_T")
def _t(r, a, out):
    x = r.value_id(a["self"])
    rank = len(r.graph.shape(x))
    return permute(r, x, list(reversed(range(rank))))

@handles("slice")
def _slice(r, a, out):
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    axis = normal_axis(a["dim"], len(shape))
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
    axis = normal_axis(a["dim"], len(shape))
    index = a["index"] + shape[axis] if a["index"] < 0 else a["index"]
    return reshape(r, slice_(r, x, axis, index, 1), shape_list(out))


@handles("narrow")
def _narrow(r, a, out):
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    axis = normal_axis(a["dim"], len(shape))
    start = a["start"] + shape[axis] if a["start"] < 0 else a["start"]
    return slice_(r, x, axis, start, a["length"])


@handles("split", "split_with_sizes", "unbind", "chunk", "tensor_split", "unsafe_split", "unsafe_split_with_sizes",
         "unsafe_chunk", "split_copy", "split_with_sizes_copy", "unbind_copy")
def _split(r, a, out):
    x = r.value_id(a["self"])
    shape = r.graph.shape(x)
    axis = normal_axis(a["dim"] if a.get("dim") is not None else 0, len(shape))
    results = []
    start = 0
    for piece in out:
        length = piece.shape[axis] if piece.dim() == len(shape) else 1
        sliced = slice_(r, x, axis, start, length)
        results.append(reshape(r, sliced, shape_list(piece)))
        start += length
    return results


@handles("cat", "concat", "concatenate")
def _cat(r, a, out):
    tensors = [t for t in a["tensors"] if not (t.dim() == 1 and t.numel() == 0)]
    rank = out.dim()
    axis = normal_axis(a["dim"], rank)
    inputs = [r.value_id(t) for t in tensors]
    if len(inputs) == 1:
        return inputs[0]
    return r.graph.add("concat", inputs, shape_list(out), axis=axis)


@handles("stack")
def _stack(r, a, out):
    axis = normal_axis(a["dim"], out.dim())
    inputs = []
    for t in a["tensors"]:
        shape = shape_list(t)
        shape.insert(axis, 1)
        inputs.append(reshape(r, r.value_id(t), shape))
    if len(inputs) == 1:
        return inputs[0]
    return r.graph.add("concat", inputs, shape_list(out), axis=axis)


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
    return r.graph.add("pad", [x], shape_list(out), pads=pads, value=float(a["value"] or 0.0))


@handles("index_select")
def _index_select(r, a, out):
    index = a["index"]
    if r.is_dynamic(index):
        raise ExportError("indices that depend on the input are not supported")
    x = r.value_id(a["self"])
    axis = normal_axis(a["dim"], len(r.graph.shape(x)))
    return r.graph.add("index_select", [x], shape_list(out), axis=axis, indices=[int(i) for i in index.reshape(-1)])


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
    return reshape(r, selected, shape_list(out))


@handles("_to_copy", "to")
def _to_copy(r, a, out):
    x = a["self"]
    vid = r.value_id(x)
    source, target = x.dtype, out.dtype
    if target == source or target == torch.float32 or (not source.is_floating_point and not target.is_floating_point and target != torch.bool):
        return reshape(r, vid, shape_list(out))
    if target == torch.bool:
        return binary(r, "ne", x, 0.0, shape_list(out))
    if not target.is_floating_point:
        return r.graph.add("trunc", [vid], shape_list(out))
    raise ExportError(f"conversion to {target} is not supported: the engine computes in float32")


@handles("copy")
def _copy(r, a, out):
    src = r.value_id(a["src"])
    if math.prod(r.graph.shape(src)) == out.numel():
        return reshape(r, src, shape_list(out))
    return r.graph.add("expand", [src], shape_list(out))


@handles("fill", "zero")
def _fill(r, a, out):
    return Tracked(const=out.detach().clone(), name="const.fill")
