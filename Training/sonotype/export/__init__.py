"""One-call export of a PyTorch model to a Sonotype model file: `export_model(model, example, path)`;
ONNX files in: `from_onnx(path, output_path)`."""

from .errors import ExportError
from .exporter import FORMAT_VERSION, export_model
from .onnx_import import from_onnx

__all__ = ["ExportError", "FORMAT_VERSION", "export_model", "from_onnx"]
