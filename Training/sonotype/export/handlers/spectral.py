"""Features computed inside the model: `torch.stft` (as torchaudio's Spectrogram, MelSpectrogram
and MFCC call it), `torch.fft.rfft` (`aten::_fft_r2c`), the complex tensors they return and the
reflect / replicate pad modes.  (Kaldi-style front ends frame the signal with `as_strided` /
`unfold`, which `strided.py` lowers generally; AmplitudeToDB's `log10` is elementwise.)

Complex tensors live in the engine graph as float values with a trailing axis of 2 ([real,
imaginary]): a complex64 tensor of shape S is a value of shape S + [2].  The operations user code and
torchaudio apply to complex tensors are lowered here (abs, view_as_real / .real / .imag,
multiplication and division by real numbers, addition of complex tensors, and layout operations that
keep the pair axis last), registered in the registry's complex table; the recorder sends any call on
a complex tensor there, and any other operation on a complex tensor is a clear ExportError.
"""

import math
from typing import List, Optional

import torch

from ..emit import normal_axis, operand, permute, reshape, shape_list, slice_
from ..errors import ExportError
from ..registry import handles, handles_complex, handles_function


def _pair_shape(t: torch.Tensor) -> List[int]:
    """The engine shape of a complex tensor: its shape and a trailing [real, imaginary] axis."""
    return list(t.shape) + [2]


def _is_complex(value) -> bool:
    return isinstance(value, torch.Tensor) and value.is_complex()


# ----- torch.stft and torch.fft.rfft --------------------------------------------------------------

def stft_node(r, x: int, n_fft: int, hop: int, window: Optional[torch.Tensor], onesided: bool, scale: float) -> int:
    """The engine's stft op on x [B, T] (already padded): [B, F, frames, 2]."""
    batch, samples = r.graph.shape(x)
    if samples < n_fft:
        raise ExportError(f"the signal has {samples} samples, fewer than n_fft = {n_fft}")
    frames = 1 + (samples - n_fft) // hop
    bins = n_fft // 2 + 1 if onesided else n_fft
    inputs = [x]
    if window is not None:
        inputs.append(r.graph.add_tensor("stft.window", window))
    return r.graph.add("stft", inputs, [batch, bins, frames, 2], n_fft=int(n_fft), hop_length=int(hop),
                       onesided=bool(onesided), scale=float(scale))


def pad_last_axis(r, x: int, before: int, after: int, mode: str, value: float = 0.0) -> int:
    shape = list(r.graph.shape(x))
    size = shape[-1]
    if mode == "reflect" and (before >= size or after >= size):
        raise ExportError(f"reflect padding of {max(before, after)} needs more than {size} samples")
    pads = [[0, 0] for _ in shape]
    pads[-1] = [int(before), int(after)]
    out_shape = shape[:-1] + [size + before + after]
    attrs = {"pads": pads, "value": float(value)}
    if mode != "constant":
        attrs["mode"] = mode
    return r.graph.add("pad", [x], out_shape, **attrs)


def _full_window(r, window, n_fft: int, win_length: int) -> Optional[torch.Tensor]:
    """The window over n_fft samples as torch.stft applies it (a shorter one centred), or None for
    a rectangular window over all n_fft samples."""
    if window is not None:
        if window.is_complex():
            raise ExportError("a complex stft window is not supported")
        window = r.tracked(window).const.to(torch.float64)
        if window.dim() != 1 or window.numel() != win_length:
            raise ExportError(f"the stft window has shape {tuple(window.shape)}, not [{win_length}]")
    if not 0 < win_length <= n_fft:
        raise ExportError(f"win_length {win_length} must be between 1 and n_fft = {n_fft}")
    if win_length < n_fft:  # torch centres a shorter window in n_fft samples
        full = torch.zeros(n_fft, dtype=torch.float64)
        left = (n_fft - win_length) // 2
        full[left:left + win_length] = window if window is not None else 1.0
        window = full
    return None if window is None else window.to(torch.float32)


@handles_function(torch, "stft")
@handles_function(torch.functional, "stft")
def _stft(r, a, out):
    x_t = a["input"]
    if x_t.is_complex():
        raise ExportError("stft of a complex signal is not supported")
    if x_t.dim() not in (1, 2):
        raise ExportError(f"stft needs a [samples] or [batch, samples] signal, not {tuple(x_t.shape)}")
    n_fft = int(a["n_fft"])
    hop = int(a["hop_length"]) if a.get("hop_length") is not None else n_fft // 4
    win_length = int(a["win_length"]) if a.get("win_length") is not None else n_fft
    window = a.get("window")
    if window is not None and r.is_dynamic(window):
        raise ExportError("an stft window that depends on the input is not supported")
    r.suspended += 1  # the window is prepared here, not recorded as part of the model
    try:
        window = _full_window(r, window, n_fft, win_length)
    finally:
        r.suspended -= 1
    onesided = a.get("onesided")
    if onesided is None:
        onesided = True
    normalized = bool(a.get("normalized"))
    x = r.value_id(x_t)
    samples = x_t.shape[-1]
    x = reshape(r, x, [1 if x_t.dim() == 1 else x_t.shape[0], samples])
    if a.get("center", True):
        pad_mode = a.get("pad_mode") or "reflect"
        if pad_mode not in ("reflect", "constant", "replicate"):
            raise ExportError(f"stft pad_mode '{pad_mode}' is not supported (reflect, constant and replicate are)")
        x = pad_last_axis(r, x, n_fft // 2, n_fft // 2, pad_mode)
    y = stft_node(r, x, n_fft, hop, window, bool(onesided), 1.0 / math.sqrt(n_fft) if normalized else 1.0)
    result_shape = list(out.shape) if out.is_complex() else list(out.shape)[:-1]
    return reshape(r, y, result_shape + [2])


@handles("_fft_r2c", takes_complex=True)
def _fft_r2c(r, a, out):
    x_t = a["self"]
    dims = list(a["dim"])
    if len(dims) != 1:
        raise ExportError("a real FFT over more than one dimension is not supported (torch.fft.rfft over one is)")
    rank = x_t.dim()
    axis = normal_axis(dims[0], rank)
    n = x_t.shape[axis]
    x = r.value_id(x_t)
    perm = [d for d in range(rank) if d != axis] + [axis]
    moved = permute(r, x, perm)
    outer = math.prod(x_t.shape[d] for d in perm[:-1])
    scale = {0: 1.0, 1: 1.0 / math.sqrt(n), 2: 1.0 / n}.get(int(a["normalization"]))
    if scale is None:
        raise ExportError(f"FFT normalization {a['normalization']} is not supported")
    onesided = bool(a["onesided"])
    y = stft_node(r, reshape(r, moved, [outer, n]), n, n, None, onesided, scale)
    bins = r.graph.shape(y)[1]
    moved_shape = [x_t.shape[d] for d in perm[:-1]] + [bins, 2]
    y = reshape(r, y, moved_shape)
    # Put the frequency axis back where the transformed axis was, the pair axis staying last.
    inverse = [0] * rank
    for position, d in enumerate(perm):
        inverse[d] = position
    return permute(r, y, inverse + [rank])


# ----- complex tensors ----------------------------------------------------------------------------

@handles_complex("abs")
def _complex_abs(r, a, out):
    z = r.value_id(a["self"])
    magnitude = r.graph.add("complex_abs", [z], shape_list(out))
    r.complex_magnitudes[magnitude] = z  # |z| ** 2 is then one complex_abs with squared (elementwise.py)
    return magnitude


@handles("view_as_real", "view_as_complex", "_view_as_real_physical", takes_complex=True)
def _view_as_real(r, a, out):
    return reshape(r, r.value_id(a["self"]), shape_list(out) if not out.is_complex() else _pair_shape(out))


def _real_factor(r, value, complex_shape: List[int]) -> int:
    """A real operand of a complex product, broadcast against [..., 2]."""
    if isinstance(value, (bool, int, float)):
        return r.graph.add_scalar(float(value))
    if isinstance(value, complex):
        raise ExportError("multiplying a complex tensor by a complex number is not supported")
    if value.is_complex():
        raise ExportError("the product or quotient of two complex tensors is not supported "
                          "(of a complex tensor and a real one is)")
    vid = operand(r, value)
    shape = list(r.graph.shape(vid))
    return reshape(r, vid, shape + [1]) if shape else vid


@handles_complex("mul", "multiply", "div", "true_divide")
def _complex_mul(r, a, out):
    x, y = a["self"], a["other"]
    op = "mul" if a["__op__"] in ("mul", "multiply") else "div"
    if a.get("rounding_mode") is not None:
        raise ExportError("rounding division of a complex tensor is not supported")
    if _is_complex(x) and not _is_complex(y):
        return r.graph.add(op, [r.value_id(x), _real_factor(r, y, shape_list(out))], _pair_shape(out))
    if op == "mul" and _is_complex(y) and not _is_complex(x):
        return r.graph.add(op, [_real_factor(r, x, shape_list(out)), r.value_id(y)], _pair_shape(out))
    if op == "div":
        raise ExportError("dividing by a complex tensor is not supported (dividing one by real numbers is)")
    raise ExportError("the product of two complex tensors is not supported (of a complex tensor and a real one is)")


@handles_complex("add", "sub")
def _complex_add(r, a, out):
    x, y = a["self"], a["other"]
    if not (_is_complex(x) and _is_complex(y)):
        raise ExportError("adding a real and a complex tensor is not supported (adding two complex tensors is)")
    alpha = a.get("alpha")
    y_vid = r.value_id(y)
    if alpha is not None and alpha != 1:
        y_vid = r.graph.add("mul", [y_vid, r.graph.add_scalar(float(alpha))], r.graph.shape(y_vid))
    return r.graph.add(a["__op__"], [r.value_id(x), y_vid], _pair_shape(out))


@handles_complex("view", "_unsafe_view", "reshape", "squeeze", "unsqueeze", "alias", "detach", "clone", "contiguous",
                 "lift_fresh", "view_as", "flatten", "unflatten", "_reshape_alias", "resolve_conj", "resolve_neg")
def _complex_reshape(r, a, out):
    return reshape(r, r.value_id(a["self"] if "self" in a else a["input"]), _pair_shape(out))


@handles_complex("permute", "transpose", "swapaxes", "swapdims", "t", "numpy_T")
def _complex_permute(r, a, out):
    x_t = a["self"]
    rank = x_t.dim()
    op = a["__op__"]
    if op == "permute":
        perm = [normal_axis(d, rank) for d in a["dims"]]
    elif op in ("t", "numpy_T"):
        perm = list(reversed(range(rank)))
    else:
        perm = list(range(rank))
        d0, d1 = normal_axis(a["dim0"], rank), normal_axis(a["dim1"], rank)
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return permute(r, r.value_id(x_t), perm + [rank])


@handles_complex("slice")
def _complex_slice(r, a, out):
    x_t = a["self"]
    axis = normal_axis(a["dim"], x_t.dim())
    size = x_t.shape[axis]
    start = a["start"] if a["start"] is not None else 0
    step = a["step"] if a["step"] is not None else 1
    if step <= 0:
        raise ExportError("slice step must be positive")
    start = min(max(start + size if start < 0 else start, 0), size)
    return slice_(r, r.value_id(x_t), axis, start, out.shape[axis], step)


@handles_complex("select")
def _complex_select(r, a, out):
    x_t = a["self"]
    axis = normal_axis(a["dim"], x_t.dim())
    index = a["index"] + x_t.shape[axis] if a["index"] < 0 else a["index"]
    return reshape(r, slice_(r, r.value_id(x_t), axis, index, 1), _pair_shape(out))


@handles_complex("narrow")
def _complex_narrow(r, a, out):
    x_t = a["self"]
    axis = normal_axis(a["dim"], x_t.dim())
    start = a["start"] + x_t.shape[axis] if a["start"] < 0 else a["start"]
    return slice_(r, r.value_id(x_t), axis, start, a["length"])


@handles_complex("cat", "concat", "concatenate")
def _complex_cat(r, a, out):
    tensors = [t for t in a["tensors"] if not (t.dim() == 1 and t.numel() == 0)]
    if not all(t.is_complex() for t in tensors):
        raise ExportError("concatenating real and complex tensors is not supported")
    inputs = [r.value_id(t) for t in tensors]
    if len(inputs) == 1:
        return inputs[0]
    return r.graph.add("concat", inputs, _pair_shape(out), axis=normal_axis(a["dim"], out.dim()))


# ----- reflect / replicate padding -----------------------------------------------------------------

@handles("reflection_pad1d", "reflection_pad2d", "reflection_pad3d", "replication_pad1d", "replication_pad2d",
         "replication_pad3d")
def _mode_pad(r, a, out):
    x = r.value_id(a["self"])
    shape = list(r.graph.shape(x))
    rank = len(shape)
    padding = [int(p) for p in a["padding"]]
    mode = "reflect" if a["__op__"].startswith("reflection") else "replicate"
    if any(p < 0 for p in padding):
        raise ExportError(f"negative {mode} padding (cropping) is not supported")
    pads = [[0, 0] for _ in range(rank)]
    for i in range(len(padding) // 2):
        axis = rank - 1 - i
        before, after = padding[2 * i], padding[2 * i + 1]
        if mode == "reflect" and (before >= shape[axis] or after >= shape[axis]):
            raise ExportError(f"reflect padding ({before}, {after}) must be less than the size {shape[axis]} of dimension {axis}")
        pads[axis] = [before, after]
    return r.graph.add("pad", [x], shape_list(out), pads=pads, value=0.0, mode=mode)
