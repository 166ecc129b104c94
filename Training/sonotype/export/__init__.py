"""One-call export of a PyTorch model to a Sonotype model file: `export_model(model, example, path)`;
`check(model, example)` reports every operation the engine cannot run, without writing a file;
ONNX files in: `from_onnx(path, output_path)`."""

from .errors import ExportError
from .exporter import FORMAT_VERSION, ExportReport, check, export_model
from .onnx_import import from_onnx

__all__ = ["ExportError", "ExportReport", "FORMAT_VERSION", "check", "export_model", "from_onnx"]
