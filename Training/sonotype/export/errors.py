class ExportError(Exception):
    """A model the exporter cannot write: names the op and the user's source line where it can.

    `located` is True once the message names the source line (so it is not added twice)."""

    def __init__(self, message: str, located: bool = False):
        super().__init__(message)
        self.located = located
