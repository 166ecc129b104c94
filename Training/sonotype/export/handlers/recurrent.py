"""Recurrent layers lowered whole: nn.RNN (tanh, relu), nn.GRU and nn.LSTM (with proj_size), and
their cells nn.RNNCell, nn.GRUCell and nn.LSTMCell.

PyTorch runs them as `torch._VF.<mode>(input, hx, flat_weights, has_biases, num_layers, dropout,
train, bidirectional, batch_first)` (nn/modules/rnn.py), whose ATen decomposition is one cell per
time step.  The whole call becomes one engine `rnn` node per layer, covering both directions
(docs/ENGINE.md); layers are chained, the initial states sliced per layer and the final states of
the layers joined.  A cell (`torch._VF.gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh)`) is one step:
an `rnn` node over a sequence of length 1.
"""

from typing import List, Optional

import torch

from ..emit import reshape, slice_
from ..errors import ExportError
from ..registry import UNSUPPORTED_OP, handles, handles_function
from ..source_lines import user_source
from ..tracked import Tracked

_GATES = {"rnn_tanh": 1, "rnn_relu": 1, "gru": 3, "lstm": 4}

_PACKED_MESSAGE = ("PackedSequence input (pack_padded_sequence / pack_sequence) is not supported: the engine runs "
                   "fixed-length sequences; pass the padded tensor to the recurrent layer instead")


def _state_for_layer(r, state: Optional[torch.Tensor], layer: int, directions: int) -> Optional[int]:
    """Value id of the initial state rows [layer * D, (layer + 1) * D) of h0 or c0; None when the
    state is absent or a constant of zeros (the engine's default)."""
    if state is None:
        return None
    entry = r.tracked(state)
    rows = slice(layer * directions, (layer + 1) * directions)
    if entry.is_const:
        value = entry.const[rows]
        if not bool(torch.any(value != 0)):
            return None
        if value.shape[0] == entry.const.shape[0]:
            return r.value_id_of(entry)
        return r.graph.add_tensor(f"{entry.name}.layer{layer}", value)
    vid = r.value_id_of(entry)
    return slice_(r, vid, 0, layer * directions, directions)


def _initial_states(mode: str, hx, not_a_pair: str):
    """(h0, c0) of the call's state argument: an LSTM's pair, another mode's h0 alone (c0 None)."""
    if mode != "lstm":
        return hx, None
    if not isinstance(hx, (list, tuple)) or len(hx) != 2:
        raise ExportError(not_a_pair)
    return hx[0], hx[1]


def _weight(r, w: torch.Tensor, what: str) -> int:
    if not isinstance(w, torch.Tensor):
        raise ExportError(f"recurrent layer {what} is not a tensor")
    if r.is_dynamic(w):
        raise ExportError(f"recurrent layer {what} computed from the input is not supported: the engine packs "
                          "recurrent weights at load")
    return r.value_id(w)


def _lower(r, mode: str, a: dict, out) -> List[Optional[int]]:
    if not isinstance(a.get("3"), bool):
        # _VF.<mode>(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)
        raise ExportError(_PACKED_MESSAGE)
    x, hx, params = a["0"], a["1"], list(a["2"])
    has_biases, num_layers, bidirectional, batch_first = bool(a["3"]), int(a["4"]), bool(a["7"]), bool(a["8"])
    if bool(a["6"]) and float(a["5"]) > 0:
        raise ExportError("recurrent layer in training mode with dropout: call model.eval() before exporting")
    if not isinstance(x, torch.Tensor) or x.dim() != 3:
        raise ExportError("recurrent layer input must be 3-d at this point")
    if not x.is_floating_point() or x.dtype != torch.float32:
        raise ExportError(f"recurrent layer input has dtype {x.dtype}; the engine computes in float32")
    directions = 2 if bidirectional else 1
    groups = num_layers * directions
    if groups == 0 or len(params) % groups != 0:
        raise ExportError(f"recurrent layer has {len(params)} weights for {num_layers} layers x {directions} directions")
    per_group = len(params) // groups
    has_proj = mode == "lstm" and per_group == (5 if has_biases else 3)
    if per_group != (4 if has_biases else 2) + (1 if has_proj else 0):
        raise ExportError(f"recurrent layer has {per_group} weights per layer and direction, expected "
                          f"{(4 if has_biases else 2)} (+1 for an LSTM projection)")
    h0, c0 = _initial_states(mode, hx, "LSTM initial state must be a pair (h0, c0)")

    gates = _GATES[mode]
    hidden = int(params[0].shape[0]) // gates
    proj = int(params[4 if has_biases else 2].shape[0]) if has_proj else 0

    layer_input = r.value_id(x)
    finals_h, finals_c = [], []
    y_shape = list(out[0].shape)
    for layer in range(num_layers):
        inputs: List[Optional[int]] = [layer_input, _state_for_layer(r, h0, layer, directions),
                                       _state_for_layer(r, c0, layer, directions) if mode == "lstm" else None]
        for direction in range(directions):
            group = params[(layer * directions + direction) * per_group:(layer * directions + direction + 1) * per_group]
            names = ["w_ih", "w_hh"] + (["b_ih", "b_hh"] if has_biases else []) + (["w_hr"] if has_proj else [])
            by_name = {name: _weight(r, w, f"{name} (layer {layer}, direction {direction})") for name, w in zip(names, group)}
            inputs += [by_name.get(name) for name in ("w_ih", "w_hh", "b_ih", "b_hh", "w_hr")]
        batch = y_shape[0] if batch_first else y_shape[1]
        out_shapes = [y_shape, [directions, batch, proj or hidden]]
        if mode == "lstm":
            out_shapes.append([directions, batch, hidden])
        attrs = dict(mode=mode, hidden_size=hidden, bidirectional=bidirectional, batch_first=batch_first)
        if proj:
            attrs["proj_size"] = proj
        outputs = r.graph.add_node("rnn", inputs, out_shapes, **attrs)
        layer_input = outputs[0]
        finals_h.append(outputs[1])
        if mode == "lstm":
            finals_c.append(outputs[2])

    def joined(values: List[int], like: torch.Tensor) -> int:
        if len(values) == 1:
            return values[0]
        return r.graph.add("concat", values, list(like.shape), axis=0)

    results = [layer_input, joined(finals_h, out[1])]
    if mode == "lstm":
        results.append(joined(finals_c, out[2]))
    return results


def _cell_state(r, state: Optional[torch.Tensor]) -> Optional[int]:
    """A cell's state [B, H] as the rnn node's [1, B, H]; None when absent or constant zeros."""
    if state is None:
        return None
    entry = r.tracked(state)
    if entry.is_const and not bool(torch.any(entry.const != 0)):
        return None
    return reshape(r, r.value_id_of(entry), [1] + list(state.shape))


def _lower_cell(r, mode: str, a: dict, out) -> List[Optional[int]]:
    x, hx = a["0"], a["1"]
    weights = [a.get(str(i)) for i in range(2, 6)]
    if not isinstance(x, torch.Tensor) or x.dim() != 2 or x.dtype != torch.float32:
        raise ExportError("recurrent cell input must be a 2-d float32 tensor at this point")
    h0, c0 = _initial_states(mode, hx, "LSTMCell state must be a pair (h, c)")
    w_ih, w_hh, b_ih, b_hh = weights
    hidden = int(w_ih.shape[0]) // _GATES[mode]
    batch = int(x.shape[0])
    names = ("w_ih", "w_hh", "b_ih", "b_hh")
    ids = [None if w is None else _weight(r, w, f"cell {name}") for name, w in zip(names, weights)]
    inputs = [reshape(r, r.value_id(x), [1] + list(x.shape)), _cell_state(r, h0), _cell_state(r, c0)] + ids + [None]
    out_shapes = [[1, batch, hidden], [1, batch, hidden]] + ([[1, batch, hidden]] if mode == "lstm" else [])
    outputs = r.graph.add_node("rnn", inputs, out_shapes, mode=mode, hidden_size=hidden, bidirectional=False, batch_first=False)
    h = reshape(r, outputs[0], [batch, hidden])
    if mode == "lstm":
        return [h, reshape(r, outputs[2], [batch, hidden])]
    return h


def _register(mode: str) -> None:
    """torch._VF.<mode> (a layer) and torch._VF.<mode>_cell lowered to rnn nodes of that mode."""
    handles_function(torch._VF, mode)(lambda r, a, out: _lower(r, mode, a, out))
    handles_function(torch._VF, f"{mode}_cell")(lambda r, a, out: _lower_cell(r, mode, a, out))


for _mode in ("rnn_tanh", "rnn_relu", "gru", "lstm"):
    _register(_mode)


@handles("_pack_padded_sequence")
def _pack_padded_sequence(r, a, out):
    """Reported, not run.  Its batch sizes depend only on the lengths: when those are constant, so
    is the result, and the code that reads it (`int(batch_sizes[0])`) is folded, not reported."""
    lengths = a.get("lengths")
    if not isinstance(lengths, torch.Tensor) or r.is_dynamic(lengths):
        raise ExportError(_PACKED_MESSAGE)
    r.note_problem("aten::_pack_padded_sequence", _PACKED_MESSAGE, user_source())
    data = Tracked(vid=r.graph.add(UNSUPPORTED_OP, [], list(out[0].shape)))
    return [data, Tracked(const=out[1].detach().clone(), name="pack_padded_sequence.batch_sizes")]
