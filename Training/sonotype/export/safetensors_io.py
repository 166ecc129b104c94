"""Reading and writing the safetensors container (https://huggingface.co/docs/safetensors).

Layout: 8-byte little-endian header length N, N bytes of JSON header, then the raw tensor bytes.
The header maps each tensor name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative
to the start of the data section) and may hold "__metadata__", a flat str -> str map.
Debian ships no safetensors package, and the format is small enough to write here exactly.
"""

import json
import struct
from typing import Dict, Mapping, Tuple

import numpy as np
import torch

_DTYPES = {
    torch.float32: ("F32", np.float32),
    torch.float64: ("F64", np.float64),
    torch.int64: ("I64", np.int64),
    torch.int32: ("I32", np.int32),
    torch.bool: ("BOOL", np.bool_),
}
_NUMPY_BY_CODE = {code: npdtype for code, npdtype in _DTYPES.values()}

# The header is padded with spaces so the data section starts at a multiple of 8, as the reference
# implementation does; tensors follow each other without gaps (the format forbids holes).
HEADER_ALIGNMENT = 8


def write_safetensors(path: str, tensors: Mapping[str, torch.Tensor], metadata: Mapping[str, str]) -> None:
    header: Dict[str, object] = {"__metadata__": dict(metadata)}
    blobs = []
    offset = 0
    for name, tensor in tensors.items():
        if tensor.dtype not in _DTYPES:
            raise TypeError(f"tensor '{name}' has unsupported dtype {tensor.dtype}")
        code, npdtype = _DTYPES[tensor.dtype]
        data = tensor.detach().cpu().contiguous().numpy().astype(npdtype, copy=False).tobytes()
        header[name] = {"dtype": code, "shape": list(tensor.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header_bytes = json.dumps(header, separators=(",", ":"), ensure_ascii=True).encode("utf-8")
    header_bytes += b" " * ((-(8 + len(header_bytes))) % HEADER_ALIGNMENT)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header_bytes)))
        f.write(header_bytes)
        for blob in blobs:
            f.write(blob)


def read_safetensors(path: str) -> Tuple[Dict[str, torch.Tensor], Dict[str, str]]:
    with open(path, "rb") as f:
        raw = f.read()
    (header_len,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + header_len].decode("utf-8"))
    data = raw[8 + header_len:]
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        array = np.frombuffer(data[begin:end], dtype=_NUMPY_BY_CODE[info["dtype"]]).reshape(info["shape"])
        tensors[name] = torch.from_numpy(array.copy())
    return tensors, metadata
