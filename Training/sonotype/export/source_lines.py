"""Where in the user's code a call is: the innermost frame that belongs neither to torch nor to this
exporter, as 'file:line', and that line's code for messages."""

import linecache
import os
import sys
from typing import Dict

import torch

_TORCH_DIR = os.path.dirname(os.path.realpath(torch.__file__)) + os.sep
_EXPORT_DIR = os.path.dirname(os.path.realpath(__file__)) + os.sep
_is_library_file: Dict[str, bool] = {}


def _library_file(filename: str) -> bool:
    """Whether a frame's file belongs to torch or to this exporter rather than to the user's model."""
    known = _is_library_file.get(filename)
    if known is None:
        path = os.path.realpath(filename)
        known = filename.startswith("<") or path.startswith(_TORCH_DIR) or path.startswith(_EXPORT_DIR)
        _is_library_file[filename] = known
    return known


def user_source() -> str:
    """'file:line' of the innermost frame of the user's code (not torch, not this exporter)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not _library_file(filename):
            return f"{os.path.normpath(filename)}:{frame.f_lineno}"
        frame = frame.f_back
    return ""


def describe_source(source: str) -> str:
    """'at file:line: code' for a source of `user_source`."""
    if not source:
        return "(source line unknown)"
    filename, _, line = source.rpartition(":")
    code = linecache.getline(filename, int(line)).strip()
    return f"at {source}: {code}" if code else f"at {source}"
