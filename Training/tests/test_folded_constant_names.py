"""Folded constants that get the same derived name are still different tensors.

The recorder names a constant computed from a weight after the weight and the op ("w.slice"), so
two slices of one weight share a name; the model file must store both (before this was checked, the
second silently became the first and the engine's result was wrong)."""

import torch

from sonotype.testing.parity import assert_parity


class TwoSlicesOfOneWeight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(6, 6)

    def forward(self, x):
        return x @ self.linear.weight[:3].t() + x @ self.linear.weight[3:].t()


class RecurrentBiasSlices(torch.nn.Module):
    """torch._VF.rnn_tanh with both biases sliced from one buffer (as an ONNX RNN's B stores them)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.randn(4, 3))
        self.register_buffer("r", torch.randn(4, 4) * 0.5)
        self.register_buffer("b", torch.randn(8))

    def forward(self, x):
        y, _ = torch._VF.rnn_tanh(x, torch.zeros(1, 2, 4), [self.w, self.r, self.b[:4], self.b[4:]], True, 1, 0.0,
                                  False, False, False)
        return y


def test_two_slices_of_one_weight():
    torch.manual_seed(0)
    assert_parity(TwoSlicesOfOneWeight(), torch.randn(2, 6))


def test_same_named_constants_with_equal_values_are_stored_once():
    from sonotype.export.graph import Graph
    graph = Graph()
    a = graph.add_tensor("w.slice", torch.ones(3))
    assert graph.add_tensor("w.slice", torch.ones(3)) == a
    b = graph.add_tensor("w.slice", torch.zeros(3))
    assert b != a and len(graph.tensors) == 2


def test_recurrent_bias_slices():
    torch.manual_seed(1)
    assert_parity(RecurrentBiasSlices(), torch.randn(5, 2, 3))
