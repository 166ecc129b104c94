"""In-place writes and views as real code writes them: the exporter follows writes exactly (a write
through one view reaches every tensor sharing those elements; disjoint views keep their values)."""

import pytest
import torch
import torch.nn.functional as F

from sonotype.export import check, export_model
from sonotype.testing.parity import Lambda, assert_parity


def gated_chunks(x):  # a hand-written GRU/LSTM cell: in-place activations on chunks of one buffer
    gates = x * 1.5
    i, f, g, o = gates.chunk(4, -1)
    i.sigmoid_()
    f.sigmoid_()
    g.tanh_()
    o.sigmoid_()
    return f * o + i * g


def write_then_read_base(x):
    y = x * 1
    y[:, :2].mul_(3)
    return y + 1


def slice_assign_into_buffer(x):
    out = torch.zeros(x.shape[0], x.shape[1], 5)
    for t in range(x.shape[1]):
        out[:, t, 1:4] = x[:, t, :3] * (t + 1)
    return out


def earlier_view_sees_later_write(x):
    y = x * 1
    view = y[:, 1:3]
    y.add_(1)
    return view * 2


def constant_write_into_dynamic(x):
    y = x * 1
    y[0][1:3].zero_()
    y[:, -1] = 0.25
    return y


def relu_in_place_on_a_view(x):
    h = x * 1
    F.relu(h[:, :2], inplace=True)
    return h


def masked_fill_in_place(x):
    y = x - 0.1
    y.masked_fill_(torch.arange(y.shape[-1]) % 2 == 0, -1.0)
    return y.sum(-1)


def strided_views(x):
    y = x * 1
    y[:, ::2] += y[:, 1::2]  # reads and writes interleaved halves
    return y


def index_put_constant_indices(x):
    y = x * 1
    y[:, torch.tensor([0, 3])] = x[:, 1:3] * -1
    y[:, torch.tensor([1, 2])] += 10.0
    return y


def transposed_writes(x):
    y = (x * 1).t()  # a non-contiguous view
    y[1:, :].mul_(0.5)
    return y.t() + 0


CASES = [gated_chunks, write_then_read_base, slice_assign_into_buffer, earlier_view_sees_later_write,
         constant_write_into_dynamic, relu_in_place_on_a_view, masked_fill_in_place, strided_views,
         index_put_constant_indices, transposed_writes]


@pytest.mark.parametrize("fn", CASES, ids=[fn.__name__ for fn in CASES])
def test_in_place_idioms_match_pytorch(fn):
    torch.manual_seed(0)
    x = torch.randn(3, 4, 8) if fn is slice_assign_into_buffer else torch.randn(3, 8)
    if fn is transposed_writes:
        x = torch.randn(6, 5)
    assert_parity(Lambda(fn).eval(), x)


def test_disjoint_views_need_no_gathers(tmp_path):
    """Writing one chunk leaves the others as they were: nothing is re-gathered for them."""
    summary = export_model(Lambda(gated_chunks).eval(), torch.randn(2, 8), str(tmp_path / "m.safetensors"))
    assert not {"gather", "as_strided", "as_strided_scatter"} & set(summary["op_counts"])


def test_a_buffer_filled_row_by_row_takes_one_scatter_per_row(tmp_path):
    """Writes through slices become strided scatters (no index tables), and only tensors read after
    a write take it in: the recording stays linear in the number of writes."""
    summary = export_model(Lambda(slice_assign_into_buffer).eval(), torch.randn(2, 40, 8), str(tmp_path / "m.safetensors"))
    assert summary["op_counts"]["as_strided_scatter"] == 40
    assert "gather" not in summary["op_counts"]


def test_a_view_beyond_the_tensor_is_an_error():
    report = check(Lambda(lambda x: torch.as_strided((x * 1)[2:6], (2, 4), (1, 1), 0)).eval(), torch.randn(8))
    assert [p.reason for p in report.problems] == ["the view reads memory outside the tensor it is taken from"]


def test_as_strided_views_match_pytorch():
    def framed(x):  # frames of 6 samples every 2, as an STFT frames its input
        y = x * 1
        return torch.as_strided(y, (1, 7, 6), (20, 2, 1)).sum(-1) + y.as_strided((4, 5), (5, 1)).mean()
    assert_parity(Lambda(framed).eval(), torch.randn(1, 20))


def test_a_write_from_an_uncomputed_output_reaches_the_views_it_overlaps():
    """Pooling indices are not computed: a write made from them leaves overlapping views unusable
    (reported), not silently stale."""

    def writes_indices(x):
        y = x * 1
        indices = F.max_pool1d(y, 2, return_indices=True)[1]
        view = y[..., :4]
        view.add_(indices.float())
        return y.reshape(-1) * 2

    report = check(Lambda(writes_indices).eval(), torch.randn(1, 2, 8))
    assert [(p.operation, p.reason) for p in report.problems] == [
        ("model output 0", "reads memory written by an operation the engine does not compute")]


def test_a_write_through_a_view_of_another_dtype_is_reported():

    def writes_real_view(x):
        z = torch.stft(x, 16, 4, window=torch.hann_window(16), return_complex=True)
        torch.view_as_real(z).mul_(2)
        return z.abs()

    report = check(Lambda(writes_real_view).eval(), torch.randn(1, 64))
    assert len(report.problems) == 1 and "view of another dtype" in report.problems[0].reason
