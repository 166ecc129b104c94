"""One-call export of a PyTorch model to a Sonotype model file: `export_model(model, example, path)`."""

from .errors import ExportError
from .exporter import FORMAT_VERSION, export_model

__all__ = ["ExportError", "FORMAT_VERSION", "export_model"]
