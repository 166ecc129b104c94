"""Small models of the architecture families audio-ML users bring, written the way their public code
writes them (in-place idioms, tuple unpacking, torch.flatten, F.* calls), for the exporter's tests.

Each is small enough to export and compare in a second; the structure, not the size, is the point.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


# ----- EfficientAT-style MobileNetV3: inverted residuals, squeeze-excitation, hardswish --------------

class SqueezeExcitation(nn.Module):
    def __init__(self, channels, squeeze):
        super().__init__()
        self.fc1 = nn.Conv2d(channels, squeeze, 1)
        self.fc2 = nn.Conv2d(squeeze, channels, 1)

    def forward(self, x):
        scale = F.adaptive_avg_pool2d(x, 1)
        scale = F.relu(self.fc1(scale), inplace=True)
        scale = F.hardsigmoid(self.fc2(scale), inplace=True)
        return scale * x


class InvertedResidual(nn.Module):
    def __init__(self, cin, expanded, cout, kernel, stride, use_se, activation):
        super().__init__()
        self.use_residual = stride == 1 and cin == cout
        act = nn.Hardswish if activation == "HS" else nn.ReLU
        layers = []
        if expanded != cin:
            layers += [nn.Conv2d(cin, expanded, 1, bias=False), nn.BatchNorm2d(expanded), act(inplace=True)]
        layers += [nn.Conv2d(expanded, expanded, kernel, stride, kernel // 2, groups=expanded, bias=False),
                   nn.BatchNorm2d(expanded), act(inplace=True)]
        if use_se:
            layers.append(SqueezeExcitation(expanded, max(8, expanded // 4)))
        layers += [nn.Conv2d(expanded, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.block = nn.Sequential(*layers)

    def forward(self, x):
        result = self.block(x)
        if self.use_residual:
            result += x
        return result


class MobileNetV3(nn.Module):
    """EfficientAT's mn-style model on a [B, 1, mels, frames] log-mel input."""

    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Sequential(nn.Conv2d(1, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish(inplace=True)),
            InvertedResidual(16, 16, 16, 3, 1, False, "RE"),
            InvertedResidual(16, 64, 24, 3, 2, False, "RE"),
            InvertedResidual(24, 72, 24, 3, 1, False, "RE"),
            InvertedResidual(24, 72, 40, 5, 2, True, "RE"),
            InvertedResidual(40, 120, 40, 5, 1, True, "HS"),
            nn.Sequential(nn.Conv2d(40, 96, 1, bias=False), nn.BatchNorm2d(96), nn.Hardswish(inplace=True)))
        self.classifier = nn.Sequential(nn.Linear(96, 128), nn.Hardswish(inplace=True), nn.Dropout(0.2),
                                        nn.Linear(128, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = F.adaptive_avg_pool2d(x, (1, 1)).squeeze(2).squeeze(2)
        return self.classifier(x)


# ----- PANNs CNN: double-conv blocks, avg pooling, max + mean over time ------------------------------

class ConvBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, 1, 1, bias=False)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.bn2 = nn.BatchNorm2d(cout)

    def forward(self, x, pool_size=(2, 2), pool_type="avg"):
        x = F.relu_(self.bn1(self.conv1(x)))
        x = F.relu_(self.bn2(self.conv2(x)))
        if pool_type == "avg":
            x = F.avg_pool2d(x, kernel_size=pool_size)
        elif pool_type == "avg+max":
            x = F.avg_pool2d(x, kernel_size=pool_size) + F.max_pool2d(x, kernel_size=pool_size)
        return x


class PannsCnn(nn.Module):
    """PANNs' Cnn14 pattern on a [B, 1, frames, mels] log-mel input (bn0 over the mel axis)."""

    def __init__(self, mels=32, num_classes=5):
        super().__init__()
        self.bn0 = nn.BatchNorm2d(mels)
        self.block1 = ConvBlock(1, 16)
        self.block2 = ConvBlock(16, 32)
        self.block3 = ConvBlock(32, 64)
        self.fc1 = nn.Linear(64, 64, bias=True)
        self.fc_audioset = nn.Linear(64, num_classes, bias=True)

    def forward(self, x):
        x = x.transpose(1, 3)
        x = self.bn0(x)
        x = x.transpose(1, 3)
        x = self.block1(x, pool_size=(2, 2), pool_type="avg")
        x = F.dropout(x, p=0.2, training=self.training)
        x = self.block2(x, pool_size=(2, 2), pool_type="avg+max")
        x = self.block3(x, pool_size=(1, 1), pool_type="avg")
        x = torch.mean(x, dim=3)
        (x1, _) = torch.max(x, dim=2)
        x2 = torch.mean(x, dim=2)
        x = x1 + x2
        embedding = F.relu_(self.fc1(x))
        return torch.sigmoid(self.fc_audioset(embedding)), embedding


# ----- AST / ViT: patch embedding, CLS + distillation tokens, hand-written attention ------------------

class PatchEmbed(nn.Module):
    def __init__(self, patch=8, stride=6, dim=64):
        super().__init__()
        self.proj = nn.Conv2d(1, dim, kernel_size=patch, stride=stride)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return x


class AudioSpectrogramTransformer(nn.Module):
    """AST's structure on a [B, frames, mels] input (unsqueeze + transpose to [B, 1, mels, frames])."""

    def __init__(self, frames=40, mels=32, dim=64, depth=2, heads=4, num_classes=5):
        super().__init__()
        self.patch_embed = PatchEmbed(dim=dim)
        num_patches = ((mels - 8) // 6 + 1) * ((frames - 8) // 6 + 1)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.dist_token = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 2, dim) * 0.02)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.mlp_head = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, num_classes))

    def forward(self, x):
        x = x.unsqueeze(1)
        x = x.transpose(2, 3)
        B = x.shape[0]
        x = self.patch_embed(x)
        cls_tokens = self.cls_token.expand(B, -1, -1)
        dist_token = self.dist_token.expand(B, -1, -1)
        x = torch.cat((cls_tokens, dist_token, x), dim=1)
        x = x + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        x = self.norm(x)
        x = (x[:, 0] + x[:, 1]) / 2
        return self.mlp_head(x)


# ----- Conformer: torchaudio's own, with constant lengths ------------------------------------------

class ConformerClassifier(nn.Module):
    """torchaudio.models.Conformer (FFN halves, MHSA with key padding, conv module with GLU,
    depthwise conv, BatchNorm, SiLU) over [B, frames, features], mean-pooled to classes."""

    def __init__(self, features=32, num_classes=5, frames=24):
        super().__init__()
        import torchaudio
        self.conformer = torchaudio.models.Conformer(input_dim=features, num_heads=4, ffn_dim=64, num_layers=2,
                                                     depthwise_conv_kernel_size=7)
        self.register_buffer("lengths", torch.tensor([frames]))
        self.head = nn.Linear(features, num_classes)

    def forward(self, x):
        lengths = self.lengths.expand(x.shape[0])
        y, _ = self.conformer(x, lengths)
        return self.head(y.mean(dim=1))


def randomize_batch_norms(model: nn.Module, seed: int = 0) -> nn.Module:
    """Gives every BatchNorm non-trivial running statistics and affine parameters, so folding them is
    really tested (fresh ones are the identity)."""
    generator = torch.Generator().manual_seed(seed)
    for module in model.modules():
        if isinstance(module, nn.modules.batchnorm._BatchNorm):
            n = module.num_features
            with torch.no_grad():
                module.running_mean.copy_(torch.randn(n, generator=generator) * 0.1)
                module.running_var.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
                if module.affine:
                    module.weight.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
                    module.bias.copy_(torch.randn(n, generator=generator) * 0.1)
    return model


