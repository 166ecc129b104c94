class ExportError(Exception):
    """A model the exporter cannot write: names the op and the user's source line where it can."""
