class ExportError(Exception):
    """A model the exporter cannot write: names the op and the user's source line where it can.

    `located` is True once the message names the source line (so it is not added twice).
    `problems` lists every operation the engine cannot run (see `sonotype.export.check`), when the
    error is the report of them."""

    def __init__(self, message: str, located: bool = False, problems=None):
        super().__init__(message)
        self.located = located
        self.problems = list(problems or [])
