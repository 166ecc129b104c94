"""One-call export of a PyTorch model to a Sonotype model file: `export_model(model, example, path)`;
`check(model, example)` reports every operation the engine cannot run, without writing a file."""

from .errors import ExportError
from .exporter import FORMAT_VERSION, ExportReport, check, export_model

__all__ = ["ExportError", "ExportReport", "FORMAT_VERSION", "check", "export_model"]
