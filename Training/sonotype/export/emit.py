"""Graph-building steps shared by the handlers and the recorder: argument helpers (shapes, axes,
operands) and the engine nodes many lowerings are made of (reshape, permute, slice, linear, layer
norm, element gathers).  `r` is the recorder: its graph (`r.graph`) and the value ids of tensors
(`r.value_id`)."""

import math
from typing import List, Optional, Sequence

import torch

from .errors import ExportError


def shape_list(t: torch.Tensor) -> List[int]:
    """A tensor's shape as a list (an output shape for `graph.add`)."""
    return list(t.shape)


def normal_axis(dim: int, rank: int) -> int:
    """A dimension argument (negative counts from the end) as an axis in [0, rank)."""
    if rank == 0 and dim in (0, -1):
        return 0
    if not -rank <= dim < rank:
        raise ExportError(f"dimension {dim} out of range for a tensor of rank {rank}")
    return dim % rank


def normal_axes(dims, rank: int) -> List[int]:
    """Dimension arguments as sorted axes; none (None or []) means all of them."""
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({normal_axis(d, rank) for d in dims})


def operand(r, x) -> int:
    """A tensor argument's value id, or a stored 0-d constant for a Python number."""
    if isinstance(x, torch.Tensor):
        return r.value_id(x)
    if isinstance(x, (bool, int, float)):
        return r.graph.add_scalar(float(x))
    raise ExportError(f"unsupported argument {x!r}")


def reshape(r, vid: int, shape: Sequence[int]) -> int:
    shape = [int(d) for d in shape]
    if list(r.graph.shape(vid)) == shape:
        return vid
    return r.graph.add("reshape", [vid], shape)


def permute(r, vid: int, perm: Sequence[int]) -> int:
    in_shape = r.graph.shape(vid)
    perm = [int(p) for p in perm]
    out_shape = [in_shape[p] for p in perm]
    if perm == sorted(perm):
        return vid
    # Moving only size-1 dimensions keeps the memory order: that is a reshape.
    if [p for p in perm if in_shape[p] != 1] == [p for p in range(len(perm)) if in_shape[p] != 1]:
        return reshape(r, vid, out_shape)
    return r.graph.add("permute", [vid], out_shape, perm=perm)


def binary(r, op: str, x, y, out_shape) -> int:
    return r.graph.add(op, [operand(r, x), operand(r, y)], out_shape)


def linear(r, x: int, weight: int, bias: Optional[int]) -> int:
    """x[..., K] @ weight[N, K]^T + bias[N] (nn.Linear)."""
    out_shape = list(r.graph.shape(x)[:-1]) + [r.graph.shape(weight)[0]]
    return r.graph.add("gemm", [x, weight, bias], out_shape, trans_a=False, trans_b=True, alpha=1.0, beta=1.0)


def slice_(r, x: int, axis: int, start: int, length: int, step: int = 1) -> int:
    shape = list(r.graph.shape(x))
    if start == 0 and step == 1 and length == shape[axis]:
        return x
    out_shape = shape[:]
    out_shape[axis] = length
    return r.graph.add("slice", [x], out_shape, axis=axis, start=start, step=step)


def layer_norm(r, x: int, num_normalized: int, weight, bias, eps: float) -> int:
    shape = r.graph.shape(x)
    return r.graph.add("layer_norm", [x, weight, bias], shape, axis=len(shape) - num_normalized, eps=float(eps))


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


def gather_flat(r, x: int, index: torch.Tensor, shape: Sequence[int]) -> int:
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
