"""Features computed inside the model: torchaudio Spectrogram / MelSpectrogram /
AmplitudeToDB / MFCC, torch.stft and torch.fft.rfft with the options torchaudio uses, the complex
steps after them, reflect / replicate padding, and the waveform front end they give a model file.

Decibel outputs (AmplitudeToDB, MFCC) are compared with the model run in float64: PyTorch's own
float32 FFT is off the true spectrum by about 1e-5 dB in weak bands, while the engine computes the
FFT in double; the float32 comparison is then made with the float32 error measured on the spot.
"""

import json
import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchaudio

from sonotype.engine_cli import run_model
from sonotype.export import ExportError, export_model
from sonotype.export.safetensors_io import read_safetensors
from sonotype.testing.parity import MAX_ABS_ERROR, MAX_REL_ERROR, assert_parity, compare

T = torchaudio.transforms
SR = 16000


@pytest.fixture(autouse=True)
def _seeded():
    torch.manual_seed(16)  # every random input is the same in every run


def waveform(samples=4000, batch=1, seed=0, amplitude=0.05):
    generator = torch.Generator().manual_seed(seed)
    return amplitude * torch.randn(batch, samples, generator=generator)


class Apply(nn.Module):
    def __init__(self, transform, after=None):
        super().__init__()
        self.transform = transform
        self.after = after

    def forward(self, x):
        y = self.transform(x)
        return self.after(y) if self.after is not None else y


def export_and_run(tmp_path, model, x, **kwargs):
    path = str(tmp_path / "model.safetensors")
    export_model(model.eval(), x, path, **kwargs)
    return path, run_model(path, x.numpy(), 0)


def assert_parity_float64(tmp_path, model, x, **kwargs):
    """The engine against the model in float64 (the bound of the parity tests), and against float32
    PyTorch no worse than PyTorch's own float32 error plus the bound."""
    model = model.eval()
    _, engine = export_and_run(tmp_path, model, x, **kwargs)
    with torch.no_grad():
        float32 = model(x).numpy()
        float64 = model.double()(x.double()).numpy()
    model.float()
    exact = compare(engine, float64)
    assert exact.ok(), f"engine vs float64 PyTorch: max abs {exact.max_abs:.3g}, max rel {exact.max_rel:.3g}"
    torch_error = compare(float32, float64)
    versus_float32 = compare(engine, float32)
    assert versus_float32.max_abs <= torch_error.max_abs + MAX_ABS_ERROR
    assert versus_float32.max_rel <= torch_error.max_rel + MAX_REL_ERROR


# ----- torchaudio transforms -----------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    dict(n_fft=400, hop_length=160),
    dict(n_fft=400, hop_length=160, power=1.0),
    dict(n_fft=512, win_length=400, hop_length=128, power=2.0),
    dict(n_fft=256, hop_length=100, normalized=True),
    dict(n_fft=256, hop_length=64, normalized="frame_length"),
    dict(n_fft=400, hop_length=160, center=False),
    dict(n_fft=400, hop_length=160, pad_mode="constant"),
    dict(n_fft=300, hop_length=75, window_fn=torch.hamming_window),
    dict(n_fft=1024, hop_length=256, onesided=False),
], ids=lambda kwargs: ",".join(f"{k}={getattr(v, '__name__', v)}" for k, v in kwargs.items()))
def test_spectrogram(kwargs):
    assert_parity(Apply(T.Spectrogram(**kwargs)), waveform(), sample_rate=SR)


def test_spectrogram_complex_then_abs_and_parts():
    class Parts(nn.Module):
        def __init__(self):
            super().__init__()
            self.spectrogram = T.Spectrogram(n_fft=400, hop_length=160, power=None)

        def forward(self, x):
            z = self.spectrogram(x)
            return z.abs(), torch.view_as_real(z), z.real, z.imag, (z * 0.5 + z).abs() ** 2
    assert_parity(Parts(), waveform(), sample_rate=SR)


@pytest.mark.parametrize("kwargs", [
    dict(n_fft=400, hop_length=160, n_mels=64),
    dict(n_fft=1024, hop_length=320, n_mels=64, f_min=50.0, f_max=8000.0),
    dict(n_fft=512, hop_length=160, n_mels=40, mel_scale="slaney", norm="slaney"),
    dict(n_fft=400, hop_length=160, n_mels=64, norm="slaney"),
    dict(n_fft=400, hop_length=160, n_mels=32, center=False, power=1.0),
    dict(n_fft=400, hop_length=160, n_mels=32, pad_mode="constant"),
], ids=lambda kwargs: ",".join(f"{k}={v}" for k, v in kwargs.items()))
def test_mel_spectrogram(kwargs):
    assert_parity(Apply(T.MelSpectrogram(sample_rate=SR, **kwargs)), waveform())


@pytest.mark.parametrize("stype,top_db", [("power", 80.0), ("power", None), ("magnitude", 80.0), ("magnitude", 40.0)])
def test_amplitude_to_db(tmp_path, stype, top_db):
    power = 2.0 if stype == "power" else 1.0
    model = Apply(T.MelSpectrogram(sample_rate=SR, n_fft=400, hop_length=160, n_mels=64, power=power),
                  T.AmplitudeToDB(stype=stype, top_db=top_db))
    assert_parity_float64(tmp_path, model, waveform())


def test_amplitude_to_db_of_a_linear_spectrogram(tmp_path):
    model = Apply(T.Spectrogram(n_fft=256, hop_length=128), T.AmplitudeToDB(top_db=60.0))
    assert_parity_float64(tmp_path, model, waveform(seed=3), sample_rate=SR)


@pytest.mark.parametrize("kwargs,amplitude", [
    (dict(n_mfcc=20, melkwargs=dict(n_fft=512, hop_length=160, n_mels=40)), 0.05),
    (dict(n_mfcc=13, log_mels=True, melkwargs=dict(n_fft=400, hop_length=160, n_mels=40)), 0.05),
    # Slaney-normalised filters are ~100x smaller: a louder signal keeps the decibels, and so the
    # coefficients, within +-20; the engine's gemm sums the DCT's terms in order in float32 (PyTorch's
    # BLAS in blocks), 4e-5 off at coefficients of +-170 (see test_lfcc).
    (dict(n_mfcc=30, melkwargs=dict(n_fft=400, hop_length=200, n_mels=40, mel_scale="slaney", norm="slaney")), 0.5),
])
def test_mfcc(tmp_path, kwargs, amplitude):
    assert_parity_float64(tmp_path, Apply(T.MFCC(sample_rate=SR, **kwargs)), waveform(amplitude=amplitude))


def test_lfcc(tmp_path):
    # The engine's gemm sums the 64 decibel values of a coefficient in order in float32 (PyTorch's
    # BLAS in blocks): at coefficients of +-130 that is 4e-5 off, so the level keeps them within +-15.
    model = Apply(T.LFCC(sample_rate=SR, n_filter=64, n_lfcc=20, speckwargs=dict(n_fft=400, hop_length=160)))
    assert_parity_float64(tmp_path, model, waveform(amplitude=0.05))


def test_spectrogram_then_mel_scale_takes_the_rate_of_the_mel_scale(tmp_path):
    model = Apply(T.Spectrogram(n_fft=512, hop_length=128), T.MelScale(n_mels=40, sample_rate=8000, n_stft=257))
    assert_parity(model, waveform(4000))
    path, _ = export_and_run(tmp_path, model, waveform(4000))
    assert json.loads(read_safetensors(path)[1]["frontend"])["sample_rate"] == 8000


class WaveformCrnn(nn.Module):
    """The issue's user model: raw waveform in, MelSpectrogram + AmplitudeToDB inside forward, a
    conv block, a bidirectional GRU over time, a linear head (as public CRNN code writes it)."""

    def __init__(self, n_classes=5):
        super().__init__()
        self.mel = T.MelSpectrogram(sample_rate=SR, n_fft=512, hop_length=160, n_mels=40)
        self.to_db = T.AmplitudeToDB(top_db=80.0)
        self.conv = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True), nn.MaxPool2d((4, 1)))
        self.gru = nn.GRU(8 * 10, 16, batch_first=True, bidirectional=True)
        self.head = nn.Linear(32, n_classes)

    def forward(self, waveform):
        x = self.to_db(self.mel(waveform))           # [B, 40, frames]
        x = (x + 50.0) / 20.0
        x = self.conv(x.unsqueeze(1))               # [B, 8, 10, frames]
        b, c, f, t = x.shape
        x = x.permute(0, 3, 1, 2).reshape(b, t, c * f)
        out, _ = self.gru(x)
        return self.head(out.mean(dim=1))


def test_waveform_crnn(tmp_path):
    model = WaveformCrnn().eval()
    with torch.no_grad():
        model.conv[1].running_var.uniform_(0.5, 2.0)
    assert_parity_float64(tmp_path, model, waveform(16000, amplitude=0.1))
    path, _ = export_and_run(tmp_path, model, waveform(16000, amplitude=0.1))
    assert json.loads(read_safetensors(path)[1]["frontend"]) == {"type": "waveform", "sample_rate": SR, "window_samples": 16000}


# ----- torch.stft and torch.fft.rfft written directly --------------------------------------------

class DirectStft(nn.Module):
    def __init__(self, n_fft=512, hop=128, win_length=None, center=True, pad_mode="reflect", normalized=False,
                 onesided=True, output="power"):
        super().__init__()
        self.n_fft, self.hop, self.win_length = n_fft, hop, win_length
        self.center, self.pad_mode, self.normalized, self.onesided, self.output = center, pad_mode, normalized, onesided, output
        self.register_buffer("window", torch.hann_window(win_length or n_fft))

    def forward(self, x):
        z = torch.stft(x, self.n_fft, hop_length=self.hop, win_length=self.win_length, window=self.window,
                       center=self.center, pad_mode=self.pad_mode, normalized=self.normalized, onesided=self.onesided,
                       return_complex=True)
        if self.output == "power":
            return z.abs().pow(2.0)
        if self.output == "real":
            return torch.view_as_real(z).transpose(1, 2)
        return z.abs()


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(output="magnitude", normalized=True),
    dict(output="real", win_length=400),
    dict(center=False, hop=160),
    dict(pad_mode="constant", n_fft=256, hop=64),
    dict(pad_mode="replicate", n_fft=256, hop=64),
    dict(onesided=False, n_fft=128, hop=32, output="real"),
], ids=lambda kwargs: ",".join(f"{k}={v}" for k, v in kwargs.items()) or "defaults")
def test_torch_stft(kwargs):
    assert_parity(DirectStft(**kwargs), waveform(), sample_rate=SR)


def test_torch_stft_of_a_1d_signal_without_window():
    class Plain(nn.Module):
        def forward(self, x):
            return torch.stft(x, 256, return_complex=True).abs()
    assert_parity(Plain(), waveform()[0], sample_rate=SR)


def test_complex_steps_user_code_writes():
    class Steps(nn.Module):
        def forward(self, x):
            z = torch.stft(x, 128, hop_length=32, window=torch.hann_window(128), return_complex=True)
            z *= 2
            power = torch.square(z.abs()) + torch.abs(z) ** 2
            band = z[:, 1:10].permute(0, 2, 1).abs()
            doubled = torch.cat([z, z], dim=1).real
            return power, band, doubled, z.imag.mean()
    assert_parity(Steps(), waveform(), sample_rate=SR)


def test_legacy_real_stft_output():
    class Legacy(nn.Module):
        def forward(self, x):
            with warnings.catch_warnings():  # return_complex=False is deprecated, still accepted
                warnings.simplefilter("ignore")
                s = torch.stft(x, 256, hop_length=64, window=torch.hann_window(256), return_complex=False)
            return s.pow(2).sum(-1)
    assert_parity(Legacy(), waveform(), sample_rate=SR)


@pytest.mark.parametrize("shape", [(1, 1, 4000), (2, 4000), (2, 1, 4000)])
def test_mel_spectrogram_of_channels(shape):
    class LogMel(nn.Module):
        def __init__(self):
            super().__init__()
            self.mel = T.MelSpectrogram(SR, n_fft=400, hop_length=160, n_mels=32)

        def forward(self, x):
            return torch.log(self.mel(x) + 1e-6)
    assert_parity(LogMel(), waveform(4000 * math.prod(shape[:-1])).reshape(shape))


class Rfft(nn.Module):
    def __init__(self, n=None, dim=-1, norm=None):
        super().__init__()
        self.n, self.dim, self.norm = n, dim, norm

    def forward(self, x):
        return torch.view_as_real(torch.fft.rfft(x, n=self.n, dim=self.dim, norm=self.norm))


@pytest.mark.parametrize("n", [256, 400, 512, 1024, 2048, 441, 1021, 675])
def test_rfft_sizes_match_torch_and_numpy(tmp_path, n):
    x = waveform(n, batch=3, seed=n)
    assert_parity(Rfft(), x)
    _, engine = export_and_run(tmp_path, Rfft(), x)
    expected = np.fft.rfft(x.double().numpy(), axis=-1)
    numpy_pairs = np.stack([expected.real, expected.imag], axis=-1)
    result = compare(engine, numpy_pairs)
    assert result.ok(), f"engine vs numpy.fft.rfft: max abs {result.max_abs:.3g}, max rel {result.max_rel:.3g}"


@pytest.mark.parametrize("kwargs", [dict(norm="ortho"), dict(norm="forward"), dict(n=300), dict(n=128, dim=1)])
def test_rfft_options(kwargs):
    assert_parity(Rfft(**kwargs), waveform(256, batch=2, seed=7).reshape(2, 16, 16) if kwargs.get("dim") == 1 else waveform(256, batch=2))


class AugmentMelSTFT(nn.Module):
    """The eval path of EfficientAT's preprocessing as its public code writes it: pre-emphasis by
    conv1d, a legacy real stft with a shorter symmetric window, power by x ** 2 summed over the
    pair axis, Kaldi mel banks made inside forward, natural log.  (`.to(x.dtype)` only so that the
    float64 reference run works.)"""

    def __init__(self, n_mels=128, sr=32000, win_length=800, hopsize=320, n_fft=1024):
        super().__init__()
        self.win_length, self.n_mels, self.n_fft, self.sr, self.hopsize = win_length, n_mels, n_fft, sr, hopsize
        self.register_buffer("window", torch.hann_window(win_length, periodic=False), persistent=False)
        self.register_buffer("preemphasis_coefficient", torch.as_tensor([[[-.97, 1]]]), persistent=False)

    def forward(self, x):
        x = nn.functional.conv1d(x.unsqueeze(1), self.preemphasis_coefficient.to(x.dtype)).squeeze(1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = torch.stft(x, self.n_fft, hop_length=self.hopsize, win_length=self.win_length, center=True,
                           normalized=False, window=self.window.to(x.dtype), return_complex=False)
        x = (x ** 2).sum(dim=-1)
        mel_basis, _ = torchaudio.compliance.kaldi.get_mel_banks(self.n_mels, self.n_fft, self.sr, 0.0, self.sr // 2,
                                                                 vtln_low=100.0, vtln_high=-500., vtln_warp_factor=1.0)
        mel_basis = torch.nn.functional.pad(mel_basis, (0, 1), mode="constant", value=0).to(x.dtype)
        melspec = torch.matmul(mel_basis, x)
        melspec = (melspec + 0.00001).log()
        return (melspec + 4.5) / 5.


def test_efficientat_preprocessing(tmp_path):
    assert_parity_float64(tmp_path, AugmentMelSTFT(), waveform(32000, amplitude=0.1), sample_rate=32000)


class KaldiFbank(nn.Module):
    """AST's front end as its public code writes it: torchaudio.compliance.kaldi.fbank (framing by
    as_strided, DC removal, pre-emphasis, window, torch.fft.rfft, |X|^2, mel, log), normalised."""

    def __init__(self, **options):
        super().__init__()
        self.options = dict(htk_compat=True, sample_frequency=16000, use_energy=False, window_type="hanning",
                            num_mel_bins=128, dither=0.0, frame_shift=10)
        self.options.update(options)

    def forward(self, waveform):
        fbank = torchaudio.compliance.kaldi.fbank(waveform, **self.options)
        return (fbank + 4.2677393) / (4.5689974 * 2)


@pytest.mark.parametrize("options", [dict(), dict(window_type="povey"), dict(snip_edges=False),
                                     dict(remove_dc_offset=False, preemphasis_coefficient=0.0, num_mel_bins=64)],
                         ids=["hanning", "povey", "snip_edges=False", "plain"])
def test_kaldi_fbank(tmp_path, options):
    assert_parity_float64(tmp_path, KaldiFbank(**options), waveform(16000, amplitude=0.1), sample_rate=16000)


@pytest.mark.parametrize("shape,dim,size,step", [((2, 1000), -1, 400, 160), ((1, 3, 50), 2, 8, 8), ((30, 4), 0, 7, 3),
                                                  ((2, 64, 5), 1, 16, 4)])
def test_unfold_frames(shape, dim, size, step):
    class Frames(nn.Module):
        def forward(self, x):
            return (x * 2.0).unfold(dim, size, step) + 1.0
    assert_parity(Frames(), torch.randn(*shape))


def test_as_strided_frames():
    class Frames(nn.Module):
        def forward(self, x):
            y = x[0] * 1.0
            return y.as_strided((11, 64), (32, 1), 5).pow(2).mean(-1)
    assert_parity(Frames(), torch.randn(2, 400))


@pytest.mark.parametrize("n", [16, 45, 400])
def test_full_fft_of_a_real_signal(n):
    class FullFft(nn.Module):
        def forward(self, x):
            z = torch.fft.fft(x, norm="ortho")  # two-sided: the upper bins by conjugate symmetry
            return torch.view_as_real(z), z.abs()
    assert_parity(FullFft(), waveform(n, batch=2, amplitude=1.0))


# ----- complex tensors the engine does not compute ------------------------------------------------

@pytest.mark.parametrize("body,message", [
    (lambda z: (z * z).abs(), "product of two complex tensors"),
    (lambda z: torch.angle(z), "complex"),
    (lambda z: z.sum(dim=1).abs(), "complex tensor is not supported"),
])
def test_unsupported_complex_operations_are_named(tmp_path, body, message):
    class Model(nn.Module):
        def forward(self, x):
            return body(torch.stft(x, 64, return_complex=True))
    with pytest.raises(ExportError, match=message) as error:
        export_model(Model().eval(), waveform(1000), str(tmp_path / "m.safetensors"))
    assert "test_parity_spectral.py" in str(error.value)


def test_a_complex_model_output_is_refused_with_the_way_out(tmp_path):
    with pytest.raises(ExportError, match="view_as_real"):
        export_model(Apply(T.Spectrogram(n_fft=64, power=None)).eval(), waveform(1000), str(tmp_path / "m.safetensors"),
                     sample_rate=SR)


def test_view_as_complex_of_real_pairs():
    class Pairs(nn.Module):
        def forward(self, x):
            z = torch.view_as_complex(x.reshape(2, 50, 2))
            return torch.view_as_real(z * 3.0).flatten(1), (z.abs() + z.real).mean(dim=1)
    assert_parity(Pairs(), torch.randn(200, generator=torch.Generator().manual_seed(4)))


# ----- log10 and pad modes -------------------------------------------------------------------------

def test_log10():
    class Log10(nn.Module):
        def forward(self, x):
            return torch.log10(x.abs() + 1e-3)
    assert_parity(Log10(), waveform(1000, batch=2))


@pytest.mark.parametrize("pad,mode,shape", [
    ((3, 5), "reflect", (2, 3, 40)),
    ((1, 2, 3, 4), "reflect", (1, 2, 8, 9)),
    ((39, 39), "reflect", (1, 1, 40)),
    ((3, 5), "replicate", (2, 3, 40)),
    ((1, 2, 3, 4), "replicate", (1, 2, 8, 9)),
    ((2, 0, 0, 3, 1, 1), "replicate", (1, 2, 4, 5, 6)),
])
def test_pad_modes(pad, mode, shape):
    class Pad(nn.Module):
        def forward(self, x):
            return F.pad(x * 2.0, pad, mode=mode) + 1.0
    assert_parity(Pad(), torch.randn(*shape))


def test_reflect_padding_as_wide_as_the_input_is_refused_by_the_engine(tmp_path):
    # PyTorch refuses it too, so the model file is written by hand from a valid one.
    class Pad(nn.Module):
        def forward(self, x):
            return F.pad(x, (3, 3), mode="reflect")
    path = str(tmp_path / "m.safetensors")
    export_model(Pad().eval(), torch.randn(1, 1, 8), path)
    tensors, metadata = read_safetensors(path)
    graph = json.loads(metadata["graph"])
    pad_node = next(node for node in graph["nodes"] if node["op"] == "pad")
    assert pad_node["attrs"]["mode"] == "reflect"
    pad_node["attrs"]["pads"] = [[0, 0], [0, 0], [8, 3]]
    graph["values"][pad_node["outputs"][0]]["shape"] = [1, 1, 19]
    for output in graph["outputs"]:
        graph["values"][output]["shape"] = [1, 1, 19]
    metadata["graph"] = json.dumps(graph)
    from sonotype.export.safetensors_io import write_safetensors
    write_safetensors(path, tensors, metadata)
    with pytest.raises(Exception, match="reflect padding of 8 must be less than the size 8"):
        run_model(path, np.zeros((1, 1, 8), dtype=np.float32), 0)


# ----- the waveform front end ------------------------------------------------------------------------

def test_waveform_front_end_is_written_for_a_model_with_a_mel_spectrogram(tmp_path):
    model = Apply(T.MelSpectrogram(sample_rate=22050, n_fft=512, hop_length=256, n_mels=32))
    path, _ = export_and_run(tmp_path, model, waveform(11025))
    _, metadata = read_safetensors(path)
    assert json.loads(metadata["frontend"]) == {"type": "waveform", "sample_rate": 22050, "window_samples": 11025}


@pytest.mark.parametrize("shape", [(8000,), (1, 8000), (1, 1, 8000)])
def test_waveform_input_shapes(tmp_path, shape):
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.mel = T.MelSpectrogram(sample_rate=SR, n_fft=400, hop_length=160, n_mels=16)

        def forward(self, x):
            return self.mel(x.reshape(1, -1)).mean(dim=-1)
    path, _ = export_and_run(tmp_path, Model(), waveform(8000).reshape(shape))
    assert json.loads(read_safetensors(path)[1]["frontend"])["window_samples"] == 8000


def test_a_spectrogram_without_sample_rate_needs_one(tmp_path):
    model = Apply(T.Spectrogram(n_fft=256))
    with pytest.raises(ExportError, match="sample_rate="):
        export_model(model.eval(), waveform(2000), str(tmp_path / "m.safetensors"))
    path, _ = export_and_run(tmp_path, model, waveform(2000), sample_rate=8000)
    assert json.loads(read_safetensors(path)[1]["frontend"])["sample_rate"] == 8000
    with pytest.raises(ExportError, match="differs"):
        export_model(Apply(T.MelSpectrogram(sample_rate=SR)).eval(), waveform(2000), str(tmp_path / "n.safetensors"),
                     sample_rate=8000)


def test_a_batch_of_waveforms_gets_no_front_end(tmp_path):
    path, _ = export_and_run(tmp_path, Apply(T.MelSpectrogram(sample_rate=SR, n_mels=16)), waveform(2000, batch=2))
    assert json.loads(read_safetensors(path)[1]["frontend"]) == {}
