"""Parity with PyTorch for the models of the seed Q&A texts (shared/seeds 000, 001, 003)."""

import math

import pytest
import torch

from sonotype.models.audio_cnn import AudioCNN
from sonotype.models.audio_transformer import AudioTransformer
from sonotype.testing.parity import assert_parity


@pytest.mark.parametrize("batch_first", [True, False])
@pytest.mark.parametrize("positional", ["sinusoidal", "learned"])
def test_seed000_audio_transformer(batch_first, positional):
    torch.manual_seed(0)
    model = AudioTransformer(n_mels=64, d_model=64, n_head=4, n_layers=2, n_classes=12, positional=positional,
                             batch_first=batch_first)
    # Non-trivial BatchNorm statistics, so eval-mode BatchNorm is really exercised.
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm1d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    assert_parity(model, torch.randn(1, 64, 100), labels=[f"c{i}" for i in range(12)])


# shared/seeds/003: the custom self-attention, verbatim (QK-LayerNorm, scaling after the softmax).
class SelfAttention(torch.nn.Module):
    def __init__(self, token_dim: int, num_heads: int, ):
        super().__init__()
        assert token_dim % num_heads == 0
        head_dim = token_dim // num_heads
        self.token_dim = token_dim
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.qkv_proj = torch.nn.Linear(token_dim, 3 * token_dim)
        self.out_proj = torch.nn.Linear(token_dim, token_dim)
        self.q_norm = torch.nn.LayerNorm(head_dim)
        self.k_norm = torch.nn.LayerNorm(head_dim)

    def forward(self, x: torch.Tensor):
        """
        x: [B, L, Dt]
        """
        B, L, Dt = x.shape
        H, Dh = self.num_heads, self.head_dim
        qkv = self.qkv_proj(x).reshape(B, L, 3, H, Dh)  # [B, L, 3, H, Dh]
        qkv = qkv.permute(2, 0, 3, 1, 4)  # [3, B, H, L, Dh]
        q, k, v = torch.unbind(qkv, dim=0)  # [B, H, L, Dh]
        q = self.q_norm(q)
        k = self.k_norm(k)
        # this part below is usually replaced by scaled_dot_product_attention
        attn_weights = torch.einsum('bhld,bhmd->bhlm', q, k)  # [B, H, L, L]
        attn_weights = attn_weights.softmax(dim=-1)  # [B, H, L, L]
        attn_scale = 1 / math.sqrt(self.head_dim)
        attn_weights = attn_weights * attn_scale  # [B, H, L, L]
        attn_output = torch.einsum('bhlm,bhmd->bhld', attn_weights, v)  # [B, H, L, Dh]
        attn_output = attn_output.permute(0, 2, 1, 3).reshape(B, L, Dt)  # [B, L, Dt]
        final_output = self.out_proj(attn_output)
        return final_output


@pytest.mark.parametrize("batch,length,token_dim,heads", [(1, 5, 1024, 16), (3, 5, 64, 4), (1, 33, 96, 6)])
def test_seed003_self_attention_verbatim(batch, length, token_dim, heads):
    torch.manual_seed(3)
    model = SelfAttention(token_dim, heads)
    with torch.no_grad():  # non-default QK-norm affine parameters
        for norm in (model.q_norm, model.k_norm):
            norm.weight.uniform_(0.5, 1.5)
            norm.bias.uniform_(-0.2, 0.2)
    assert_parity(model, torch.randn(batch, length, token_dim))


def test_seed003_quirk_scaling_after_softmax_is_reproduced():
    """The exported graph must scale the probabilities after the softmax, as the post's code does:
    the engine's output must match the verbatim model and differ from the 'usual' pre-softmax scaling."""
    torch.manual_seed(4)
    model = SelfAttention(32, 4).eval()
    x = torch.randn(1, 6, 32)
    results = assert_parity(model, x)
    assert results[0].max_abs < 1e-5

    class Usual(SelfAttention):
        def forward(self, x):
            B, L, Dt = x.shape
            qkv = self.qkv_proj(x).reshape(B, L, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
            q, k, v = torch.unbind(qkv, dim=0)
            w = (torch.einsum('bhld,bhmd->bhlm', self.q_norm(q), self.k_norm(k)) / math.sqrt(self.head_dim)).softmax(-1)
            return self.out_proj(torch.einsum('bhlm,bhmd->bhld', w, v).permute(0, 2, 1, 3).reshape(B, L, Dt))

    usual = Usual(32, 4).eval()
    usual.load_state_dict(model.state_dict())
    with torch.no_grad():
        assert (usual(x) - model(x)).abs().max() > 1e-3


@pytest.mark.parametrize("activation,d_model,n_layers", [("gelu", 64, 2), ("relu", 96, 3)])
def test_audio_transformer_with_spectrogram_stem(activation, d_model, n_layers):
    """The built-in model's variant: a 2-d CNN embedding (Conv2d, BatchNorm2d, MaxPool2d with ceil_mode)."""
    torch.manual_seed(1)
    model = AudioTransformer(n_mels=64, d_model=d_model, n_head=4, n_layers=n_layers, n_classes=12, stem="conv2d",
                             stem_activation=activation)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    assert_parity(model, torch.randn(1, 64, 101))


@pytest.mark.parametrize("channels,convs_per_block,frames", [([24, 48, 96, 192], 1, 101), ([8, 16, 32], 2, 203)])
def test_audio_cnn(channels, convs_per_block, frames):
    """The convolutional family (models/audio_cnn.py): Conv2d without bias, BatchNorm2d, AvgPool2d with
    ceil_mode on odd sizes, the mean over frequency, the max plus the mean over time."""
    torch.manual_seed(2)
    model = AudioCNN(n_mels=64, n_classes=12, channels=channels, convs_per_block=convs_per_block)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    assert_parity(model, torch.randn(1, 64, frames))
