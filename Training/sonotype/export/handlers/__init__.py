"""The handlers that lower PyTorch calls to engine ops, one module per subject; importing this
package enters every one of them in the registry's tables (`registry.py`).  The list below is the
whole set: a new handler module is added here."""

from . import (attention, elementwise, glue, layout, products, recurrent, reductions,  # noqa: F401
               spectral, strided)
