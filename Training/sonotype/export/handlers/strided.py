"""Strided views, element gathers and indexed writes: `diagonal`, `unfold`, `as_strided`,
`index_put` and the ops that only move elements (flip, roll, pixel shuffle, im2col), each
computed on element positions and emitted as a reshape, a strided view or a gather."""

import math

import torch

from ..emit import gather_flat, operand, reshape, shape_list
from ..errors import ExportError
from ..registry import handles


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
    return gather_flat(r, r.value_id(x), index, shape_list(out))


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
    return gather_flat(r, r.value_id(x), index, shape_list(out))


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


# ----- element rearrangements, computed on positions ------------------------------------------------

def _rearranged(r, x: torch.Tensor, apply, out) -> int:
    """An op that only moves elements (and may fill zeros): applied to the positions 1…n of x's
    elements (0 = a filled zero), it says where each output element comes from."""
    count = x.numel()
    positions = apply(torch.arange(1, count + 1, dtype=torch.float64).reshape(x.shape))
    index = positions.round().to(torch.int64).reshape(-1)
    vid = reshape(r, r.value_id(x), [count])
    if bool((index == 0).any()):
        vid = r.graph.add("concat", [r.graph.add_tensor("scalar.zeros1", torch.zeros(1)), vid], [count + 1], axis=0)
        return gather_flat(r, vid, index, shape_list(out))
    return gather_flat(r, vid, index - 1, shape_list(out))


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
