"""`Tracked`: what the recorder knows about one tensor object (handlers make them for special values)."""

from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class Tracked:
    """What the recorder knows about one tensor object."""
    vid: Optional[int] = None                 # graph value id, for dynamic tensors
    const: Optional[torch.Tensor] = None      # snapshot of the value, for constants
    name: str = ""                            # stored-tensor name, for constants
    origin: Optional[tuple] = None            # how a constant was derived, e.g. ("t", Tracked)
    stored_vid: Optional[int] = None          # graph value of a constant once an op on dynamic data uses it
    nested_keep: Optional[torch.Tensor] = None  # for a NestedTensor made from a padding mask: keep-mask [B, L]
    unavailable: str = ""                     # why the engine does not compute this output, if it does not
    version: int = 0                          # writes to its storage logged when this value was recorded

    @property
    def is_const(self) -> bool:
        return self.vid is None
