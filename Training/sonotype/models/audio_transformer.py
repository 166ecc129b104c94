"""The audio transformer of shared/seeds/000 (the Q&A Sonotype grew from), completed.

`AttentionBlock` is the post's code verbatim.  The parts the post leaves out are completed the
obvious way: `expand` is a small CNN embedding over the log-mel (frames -> tokens), a learned CLS
token is prepended on the token axis, positional encoding is sinusoidal or learned, and `class_mlp`
maps the CLS token to class logits.  `batch_first=False` gives the same model written for PyTorch's
default (seq, batch, feature) layout.
"""

import math
from collections import OrderedDict

import torch
import torch.nn as nn


class AttentionBlock(nn.Module):
    @staticmethod
    def make_ffn(hidden_dim: int) -> torch.nn.Module:
        return nn.Sequential(
            OrderedDict([
                ("ffn_linear1", nn.Linear(in_features=hidden_dim, out_features=hidden_dim)),
                ("ffn_relu", nn.ReLU()),
                ("ffn_linear2", nn.Linear(in_features=hidden_dim, out_features=hidden_dim))
            ])
        )

    def __init__(self, embed_dim, n_head):
        super().__init__()
        self.attention = nn.MultiheadAttention(embed_dim, n_head, batch_first=True)
        self.layer_norm1 = nn.LayerNorm(embed_dim)
        self.feed_forward = self.make_ffn(embed_dim)
        self.layer_norm2 = nn.LayerNorm(embed_dim)

    def forward(self, x: torch.Tensor):
        attn_output, _ = self.attention(x, x, x)
        x = self.layer_norm1(x + attn_output)
        ff_output = self.feed_forward(x)
        x = self.layer_norm2(x + ff_output)
        return x


class AttentionBlockSeqFirst(AttentionBlock):
    """`AttentionBlock` for (seq, batch, feature) tensors: the same code with `batch_first=False`."""

    def __init__(self, embed_dim, n_head):
        super().__init__(embed_dim, n_head)
        self.attention = nn.MultiheadAttention(embed_dim, n_head, batch_first=False)


class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sin/cos encoding of "Attention Is All You Need" along the token axis."""

    def __init__(self, d_model: int, max_len: int, batch_first: bool = True):
        super().__init__()
        self.batch_first = batch_first
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.batch_first:                       # [B, L, D]
            return x + self.pe[: x.size(1)]
        return x + self.pe[: x.size(0)].unsqueeze(1)  # [L, B, D]


class LearnedPositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int, batch_first: bool = True):
        super().__init__()
        self.batch_first = batch_first
        self.pe = nn.Parameter(torch.randn(max_len, d_model) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.batch_first:
            return x + self.pe[: x.size(1)].unsqueeze(0)
        return x + self.pe[: x.size(0)].unsqueeze(1)


class SpectrogramStem(nn.Module):
    """A 2-d CNN embedding: local spectro-temporal patterns (timbre) of the log-mel, then one token
    per time step: [B, n_mels, frames] -> [B, d_model, frames / 2].

    `activation` "relu" trains about a third faster on CPU than "gelu" (GELU over the full-resolution
    feature maps is a large share of a training step) and runs faster in the engine."""

    activations = {"gelu": nn.GELU, "relu": nn.ReLU}

    def __init__(self, n_mels: int, d_model: int, channels: int = 32, activation: str = "gelu"):
        super().__init__()
        act = self.activations[activation]
        self.convs = nn.Sequential(
            nn.Conv2d(1, channels // 2, kernel_size=3, padding=1), nn.BatchNorm2d(channels // 2), act(),
            nn.MaxPool2d((2, 1)),
            nn.Conv2d(channels // 2, channels, kernel_size=3, padding=1), nn.BatchNorm2d(channels), act(),
            nn.MaxPool2d((2, 2), ceil_mode=True),
            nn.Conv2d(channels, channels, kernel_size=3, padding=1), nn.BatchNorm2d(channels), act(),
            nn.MaxPool2d((2, 1)),
        )
        self.project = nn.Conv1d(channels * (n_mels // 8), d_model, kernel_size=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.convs(x.unsqueeze(1))           # [B, C, n_mels / 8, frames / 2]
        B, C, M, T = x.shape
        return self.project(x.reshape(B, C * M, T))


class BandNormalization(nn.Module):
    """A fixed coloration (a microphone's or a room's response, an EQ) and the level add a constant to
    each band of a log-mel spectrogram; this takes the window's such constants out, in one of three ways:
    - "mean": each band less its mean over the window; what stays is how each band moves in time. A
      learned per-band weight (from 0) puts back the share of the band's mean training finds useful.
    - "meanvar": the same, divided by the band's spread over the window.
    - "tiltN": only the smooth part of the window's mean spectrum, a polynomial of degree N - 1 over
      the bands (level, tilt, broad curvature: what microphones, rooms and EQs change), is taken out;
      the finer spectral shape that tells instruments apart (formants, the spacing of harmonics) stays.
    [B, n_mels, frames] -> the same."""

    def __init__(self, n_mels: int, mode: str = "mean"):
        super().__init__()
        self.mode = mode
        if mode.startswith("tilt"):
            components = int(mode[4:])
            bands = torch.linspace(-1.0, 1.0, n_mels, dtype=torch.float64)
            powers = torch.stack([bands ** k for k in range(components)], dim=1)  # [mels, N]: 1, b, b^2, ...
            basis, _ = torch.linalg.qr(powers)                                   # orthonormal columns
            self.register_buffer("smooth", (basis @ basis.T).float())           # projection onto the smooth part [mels, mels]
        elif mode in ("mean", "meanvar"):
            self.keep = nn.Parameter(torch.zeros(n_mels, 1))
        else:
            raise ValueError(f"band normalization must be mean, meanvar or tilt<N>, not {mode!r}")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(dim=-1, keepdim=True)
        if self.mode.startswith("tilt"):
            return x - torch.matmul(self.smooth, mean)
        y = x - mean
        if self.mode == "meanvar":
            y = y / torch.sqrt(y.pow(2).mean(dim=-1, keepdim=True) + 1e-2)
        return y + self.keep * mean


class AudioTransformer(nn.Module):
    """log-mel [B, n_mels, frames] -> class logits [B, n_classes].

    stem "conv1d": a 1-d CNN over time with the mel bands as channels (the seed's minimal completion);
    "conv2d": SpectrogramStem, the built-in model's, with `stem_channels` and `stem_activation`.
    band_norm "mean" or "meanvar": BandNormalization first (None: the log-mel as it comes)."""

    def __init__(self, n_mels: int = 64, d_model: int = 64, n_head: int = 4, n_layers: int = 2,
                 n_classes: int = 12, max_tokens: int = 512, positional: str = "sinusoidal",
                 batch_first: bool = True, stem: str = "conv1d", stem_channels: int = 32,
                 stem_activation: str = "gelu", band_norm=None):
        super().__init__()
        self.batch_first = batch_first
        self.band_norm = BandNormalization(n_mels, band_norm) if band_norm else None
        if stem == "conv2d":
            self.expand = SpectrogramStem(n_mels, d_model, stem_channels, stem_activation)
        else:
            self.expand = nn.Sequential(
                nn.Conv1d(n_mels, d_model, kernel_size=3, padding=1),
                nn.BatchNorm1d(d_model),
                nn.GELU(),
                nn.Conv1d(d_model, d_model, kernel_size=3, stride=2, padding=1),
                nn.BatchNorm1d(d_model),
                nn.GELU(),
            )
        self.cls_token = nn.Parameter(torch.randn(1, d_model, 1) * 0.02)
        encodings = {"sinusoidal": SinusoidalPositionalEncoding, "learned": LearnedPositionalEncoding}
        self.positional_encoder = encodings[positional](d_model, max_tokens + 1, batch_first)
        block = AttentionBlock if batch_first else AttentionBlockSeqFirst
        self.attention_block = nn.Sequential(*[block(d_model, n_head) for _ in range(n_layers)])
        self.class_mlp = nn.Sequential(
            nn.Flatten(),
            nn.Linear(d_model, d_model),
            nn.GELU(),
            nn.Dropout(0.1),
            nn.Linear(d_model, n_classes),
        )

    def concat_cls_token(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.cls_token.expand(x.size(0), -1, -1), x], dim=2)

    @staticmethod
    def get_cls_token(x: torch.Tensor) -> torch.Tensor:
        return x[:, :, 0:1]

    def forward(self, x: torch.Tensor):
        # Initial: x is [batch_size, n_mels, frames]
        if self.band_norm is not None:
            x = self.band_norm(x)
        x = self.expand(x)                 # [batch_size, d_model, num_tokens]
        x = self.concat_cls_token(x)       # [batch_size, d_model, num_tokens+1]
        if self.batch_first:
            x = x.permute(0, 2, 1)         # [batch_size, num_tokens+1, d_model]
            x = self.positional_encoder(x)
            x = self.attention_block(x)    # [batch_size, num_tokens+1, d_model]
            x = x.permute(0, 2, 1)         # [batch_size, d_model, num_tokens+1]
        else:
            x = x.permute(2, 0, 1)         # [num_tokens+1, batch_size, d_model]
            x = self.positional_encoder(x)
            x = self.attention_block(x)    # [num_tokens+1, batch_size, d_model]
            x = x.permute(1, 2, 0)         # [batch_size, d_model, num_tokens+1]
        x = self.get_cls_token(x)          # [batch_size, d_model, 1]
        y = self.class_mlp(x)              # [batch_size, n_classes]
        return y
