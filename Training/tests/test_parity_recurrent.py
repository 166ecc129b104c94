"""Parity with PyTorch for recurrent layers: nn.RNN (tanh, relu), nn.GRU, nn.LSTM (with
proj_size), exported unmodified; every output and final state is compared."""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from sonotype.export import ExportError, check, export_model
from sonotype.testing.parity import assert_parity

INPUT, HIDDEN, STEPS, BATCH = 6, 10, 7, 3


class Recurrent(nn.Module):
    """A recurrent layer with its outputs and final states returned; initial states absent, stored
    (a buffer) or computed from the input."""

    def __init__(self, kind, layers, bidirectional, batch_first, bias, state, proj_size=0, nonlinearity="tanh"):
        super().__init__()
        kwargs = dict(num_layers=layers, bidirectional=bidirectional, batch_first=batch_first, bias=bias)
        if kind == "lstm":
            self.rnn = nn.LSTM(INPUT, HIDDEN, proj_size=proj_size, **kwargs)
        elif kind == "gru":
            self.rnn = nn.GRU(INPUT, HIDDEN, **kwargs)
        else:
            self.rnn = nn.RNN(INPUT, HIDDEN, nonlinearity=nonlinearity, **kwargs)
        self.kind, self.batch_first, self.state = kind, batch_first, state
        self.rows = layers * (2 if bidirectional else 1)
        self.h_size = proj_size or HIDDEN
        if state == "const":
            self.register_buffer("h0", torch.randn(self.rows, BATCH, self.h_size) * 0.5)
            self.register_buffer("c0", torch.randn(self.rows, BATCH, HIDDEN) * 0.5)
        elif state == "input":
            self.to_h = nn.Linear(INPUT, self.rows * self.h_size)
            self.to_c = nn.Linear(INPUT, self.rows * HIDDEN)

    def initial(self, x):
        unbatched = x.dim() == 2
        if self.state == "const":
            h, c = self.h0, self.c0
            return (h[:, 0], c[:, 0]) if unbatched else (h, c)
        # From the input: its mean over time, one state row per layer and direction.
        time_axis = 0 if unbatched or not self.batch_first else 1
        summary = x.mean(dim=time_axis)                   # [B, I] or [I]
        h = torch.tanh(self.to_h(summary)).unflatten(-1, (self.rows, self.h_size))
        c = self.to_c(summary).unflatten(-1, (self.rows, HIDDEN))
        if unbatched:
            return h, c
        return h.transpose(0, 1).contiguous(), c.transpose(0, 1).contiguous()

    def forward(self, x):
        if self.state == "none":
            return self.rnn(x)
        h, c = self.initial(x)
        return self.rnn(x, (h, c) if self.kind == "lstm" else h)


# (layers, bidirectional, batch_first, bias, initial state, unbatched input)
CONFIGS = {
    "1layer": (1, False, False, True, "none", False),
    "2layers_bi_batch_first": (2, True, True, True, "none", False),
    "3layers_bi_no_bias_const_state": (3, True, False, False, "const", False),
    "2layers_batch_first_input_state": (2, False, True, True, "input", False),
    "bi_unbatched": (1, True, False, True, "none", True),
    "2layers_bi_batch_first_unbatched_input_state": (2, True, True, True, "input", True),
    "2layers_bi_const_state_unbatched": (2, True, False, True, "const", True),
}


def example(batch_first, unbatched):
    torch.manual_seed(7)
    if unbatched:
        return torch.randn(STEPS, INPUT)
    return torch.randn(BATCH, STEPS, INPUT) if batch_first else torch.randn(STEPS, BATCH, INPUT)


@pytest.mark.parametrize("kind", ["rnn_tanh", "rnn_relu", "gru", "lstm"])
@pytest.mark.parametrize("config", list(CONFIGS))
def test_recurrent_layer(kind, config):
    layers, bidirectional, batch_first, bias, state, unbatched = CONFIGS[config]
    torch.manual_seed(3)
    model = Recurrent(kind.split("_")[0], layers, bidirectional, batch_first, bias, state,
                      nonlinearity=kind.split("_")[-1])
    results = assert_parity(model, example(batch_first, unbatched))
    assert len(results) == (3 if kind == "lstm" else 2)  # output, h_n (, c_n)


@pytest.mark.parametrize("config", ["1layer", "2layers_bi_batch_first", "3layers_bi_no_bias_const_state",
                                    "2layers_batch_first_input_state", "2layers_bi_batch_first_unbatched_input_state"])
def test_lstm_projection(config):
    layers, bidirectional, batch_first, bias, state, unbatched = CONFIGS[config]
    torch.manual_seed(4)
    model = Recurrent("lstm", layers, bidirectional, batch_first, bias, state, proj_size=4)
    results = assert_parity(model, example(batch_first, unbatched))
    assert len(results) == 3


def test_long_sequence_wide_state():
    """Errors must not grow along a long sequence (200 steps, 64 units, both directions)."""
    torch.manual_seed(5)
    model = nn.GRU(20, 64, num_layers=2, bidirectional=True, batch_first=True)
    assert_parity(model, torch.randn(2, 200, 20))
    torch.manual_seed(6)
    assert_parity(nn.LSTM(20, 64, batch_first=True), torch.randn(1, 200, 20))


class CRNN(nn.Module):
    """A CRNN as public sound-event-detection code writes it: conv blocks on a log-mel
    spectrogram [B, 1, mels, frames], frequency pooled away, a bidirectional GRU over time, then a
    classifier on the mean over time and on the last step."""

    def __init__(self, n_mels=32, n_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d((2, 1))
        self.gru = nn.GRU(16 * (n_mels // 4), 32, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(64, n_classes)
        self.fc_last = nn.Linear(64, n_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)), inplace=True)
        x = self.pool(x)
        residual = x
        x = self.bn2(self.conv2(x))
        x += residual
        x = F.relu(x, inplace=True)
        x = self.pool(x)                                # [B, C, mels / 4, T]
        x = x.permute(0, 3, 1, 2)                       # [B, T, C, F]
        x = torch.flatten(x, start_dim=2)               # [B, T, C * F]
        out, _ = self.gru(x)
        out += 0.5 * x.mean(dim=-1, keepdim=True)       # in place on the GRU's output
        clip = torch.sigmoid(self.fc(out.mean(dim=1)))
        last = self.fc_last(out[:, -1, :])
        return clip, last


class LSTMTagger(nn.Module):
    """A frame-wise tagger: features [B, T, F] -> 2-layer bidirectional LSTM -> per-frame classes."""

    def __init__(self, n_features=40, hidden=24, n_classes=6):
        super().__init__()
        self.input_norm = nn.LayerNorm(n_features)
        self.lstm = nn.LSTM(n_features, hidden, num_layers=2, batch_first=True, bidirectional=True, dropout=0.2)
        self.head = nn.Linear(2 * hidden, n_classes)

    def forward(self, x):
        x = self.input_norm(x)
        out, (h, c) = self.lstm(x)
        out = F.relu(out, inplace=True)
        frames = self.head(out).log_softmax(dim=-1)
        summary = torch.cat([h[-2], h[-1]], dim=-1)     # last layer, both directions
        return frames, summary, c.sum(dim=0)


def with_running_stats(model):
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            with torch.no_grad():
                module.running_mean.uniform_(-0.2, 0.2)
                module.running_var.uniform_(0.5, 2.0)
    return model


def test_crnn():
    torch.manual_seed(11)
    model = with_running_stats(CRNN())
    assert_parity(model, torch.randn(2, 1, 32, 50))


def test_lstm_tagger():
    torch.manual_seed(12)
    assert_parity(LSTMTagger(), torch.randn(2, 30, 40))


def test_packed_sequence_is_refused_clearly(tmp_path):
    class Packed(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(INPUT, HIDDEN, batch_first=True)

        def forward(self, x):
            packed = nn.utils.rnn.pack_padded_sequence(x, torch.tensor([STEPS, STEPS - 2]), batch_first=True)
            out, h = self.gru(packed)
            return h

    with pytest.raises(ExportError, match="PackedSequence"):
        export_model(Packed().eval(), torch.randn(2, STEPS, INPUT), str(tmp_path / "m.safetensors"))
    # The report names the packing and the layer at the user's lines, and nothing else (the batch
    # sizes, constant, are folded).
    report = str(check(Packed().eval(), torch.randn(2, STEPS, INPUT)))
    assert "the model uses 2 operations" in report, report
    assert "aten::_pack_padded_sequence (1 call): PackedSequence input" in report
    assert "torch.gru (1 call): PackedSequence input" in report
    assert "test_parity_recurrent.py" in report and "pack_padded_sequence(x" in report


class CellLoop(nn.Module):
    """A recurrent cell stepped in a Python loop over time, as decoder-style code writes it."""

    def __init__(self, kind, bias=True, state="none", nonlinearity="tanh"):
        super().__init__()
        if kind == "lstm":
            self.cell = nn.LSTMCell(INPUT, HIDDEN, bias=bias)
        elif kind == "gru":
            self.cell = nn.GRUCell(INPUT, HIDDEN, bias=bias)
        else:
            self.cell = nn.RNNCell(INPUT, HIDDEN, bias=bias, nonlinearity=nonlinearity)
        self.kind, self.state = kind, state
        self.to_state = nn.Linear(INPUT, HIDDEN)

    def forward(self, x):                               # [B, T, I] or unbatched [T, I]
        steps = x.shape[-2]
        state = None
        if self.state == "input":
            h = torch.tanh(self.to_state(x.mean(dim=-2)))
            state = (h, h * 0.5) if self.kind == "lstm" else h
        outputs = []
        for t in range(steps):
            state = self.cell(x[..., t, :], state)
            outputs.append(state[0] if self.kind == "lstm" else state)
        return torch.stack(outputs, dim=-2), state


@pytest.mark.parametrize("kind", ["rnn_tanh", "rnn_relu", "gru", "lstm"])
@pytest.mark.parametrize("bias, state, unbatched", [(True, "none", False), (False, "input", False), (True, "input", True)])
def test_recurrent_cell_loop(kind, bias, state, unbatched):
    torch.manual_seed(8)
    model = CellLoop(kind.split("_")[0], bias, state, nonlinearity=kind.split("_")[-1])
    x = torch.randn(STEPS, INPUT) if unbatched else torch.randn(BATCH, STEPS, INPUT)
    assert_parity(model, x)


class TwoChunks(nn.Module):
    """One layer run over two halves of the sequence, the second starting from the first's final
    state (stateful streaming code), the same weights used twice."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.rnn = nn.LSTM(INPUT, HIDDEN, num_layers=2) if kind == "lstm" else nn.GRU(INPUT, HIDDEN, num_layers=2)

    def forward(self, x):                               # [T, B, I]
        half = x.shape[0] // 2
        first, state = self.rnn(x[:half])
        second, state = self.rnn(x[half:], state)
        return torch.cat([first, second], dim=0), state


@pytest.mark.parametrize("kind", ["gru", "lstm"])
def test_state_carried_between_calls(kind):
    torch.manual_seed(9)
    assert_parity(TwoChunks(kind), torch.randn(8, BATCH, INPUT))


def test_weights_computed_from_the_input_are_refused_clearly(tmp_path):
    class ScaledWeights(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(INPUT, HIDDEN)

        def forward(self, x):
            scale = torch.sigmoid(x.mean())
            weights = [w * scale for w in self.gru._flat_weights]
            out, _ = torch._VF.gru(x, torch.zeros(1, x.shape[1], HIDDEN), weights, True, 1, 0.0, False, False, False)
            return out

    with pytest.raises(ExportError, match="w_ih .layer 0, direction 0. computed from the input is not supported"):
        export_model(ScaledWeights().eval(), torch.randn(STEPS, BATCH, INPUT), str(tmp_path / "m.safetensors"))
