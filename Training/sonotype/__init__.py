"""Sonotype's PyTorch side: the model exporter, the reference front end and the built-in model."""

__version__ = "0.1.0"
