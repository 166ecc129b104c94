"""A convolutional classifier of the family that holds the record on real recordings in audio tagging
(PANNs' CNN6/CNN14: Kong et al. 2020): 3x3 convolution blocks with BatchNorm and ReLU, each halving
both axes by average pooling, then the mean over frequency and the max plus the mean over time (a
sound that fills the window and a sound in one part of it both count), then a small MLP.

log-mel [B, n_mels, frames] -> class logits [B, n_classes]; the pooled features (`class_mlp[0]`'s
output, like the AudioTransformer's) are the embedding teaching reads.
"""

import torch
import torch.nn as nn


class AudioCNN(nn.Module):
    # The settings a model configuration gives this class (the others belong to AudioTransformer).
    SETTINGS = ("n_mels", "n_classes", "channels", "convs_per_block")

    def __init__(self, n_mels: int = 64, n_classes: int = 12, channels=(32, 64, 128, 256), convs_per_block: int = 1):
        super().__init__()
        layers, width = [], 1
        for block, out in enumerate(channels):
            for k in range(convs_per_block):
                layers += [nn.Conv2d(width if k == 0 else out, out, kernel_size=3, padding=1, bias=False), nn.BatchNorm2d(out), nn.ReLU()]
            width = out
            if block < len(channels) - 1:
                layers.append(nn.AvgPool2d(2, ceil_mode=True))
        self.convs = nn.Sequential(*layers)
        self.class_mlp = nn.Sequential(
            nn.Flatten(),
            nn.Dropout(0.2),
            nn.Linear(width, width),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Linear(width, n_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.convs(x.unsqueeze(1))            # [B, C, mels / 8, frames / 8]
        x = x.mean(dim=2)                         # [B, C, T]
        x = x.amax(dim=2) + x.mean(dim=2)         # [B, C]
        return self.class_mlp(x)
