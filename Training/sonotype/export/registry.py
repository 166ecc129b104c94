"""The exporter's tables: which code lowers which operation, and the engine ops it may emit.

- `HANDLERS`: ATen op name -> handler(recorder, bound arguments, out) for calls on input-dependent
  tensors (the handler modules in `handlers/` fill it with `@handles(...)`).  A handler gets the
  call's arguments bound by name (`bind`, plus "__op__": the op name without a trailing in-place
  underscore) and PyTorch's real result (`out`, whose shapes are the output shapes), adds engine
  nodes to the graph and returns, for each tensor PyTorch returned, a graph value id (or None for
  an output the engine does not compute, or a `Tracked` for special values).
- `COMPLEX_HANDLERS`: ATen op name -> handler for calls on complex tensors (`@handles_complex`).
  The recorder sends a call that has a complex tensor among its arguments or results here, unless
  the op's own handler takes complex tensors (`@handles(..., takes_complex=True)`: `TAKES_COMPLEX`).
- `FUNCTION_HANDLERS`: (module object, attribute name) -> handler for torch functions lowered whole,
  one level above ATen (`@handles_function(torch._VF, "gru")`); the handler gets the Python
  arguments bound by `bind_function`.
- `ONNX_OPS`: ONNX op type -> function computing it with torch ops (`@onnx_op`, in `onnx_ops.py`).
- `ENGINE_OPS`: every engine op name a handler may put in a graph (docs/ENGINE.md lists their
  attributes); `Graph.add_node` refuses any other name.

This module imports nothing of the modules that fill the tables.
"""

import inspect
from typing import Callable, Dict, Iterable, Set, Tuple

HANDLERS: Dict[str, Callable] = {}
COMPLEX_HANDLERS: Dict[str, Callable] = {}
TAKES_COMPLEX: Set[str] = set()
FUNCTION_HANDLERS: Dict[Tuple[object, str], Callable] = {}
ONNX_OPS: Dict[str, Callable] = {}

ENGINE_OPS = frozenset({
    # layout and data movement
    "reshape", "permute", "expand", "slice", "concat", "pad", "index_select", "gather", "as_strided",
    "as_strided_scatter",
    # elementwise
    "add", "sub", "mul", "div", "pow", "maximum", "minimum", "where", "clamp",
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not",
    "relu", "sigmoid", "tanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "neg",
    "abs", "erf", "sin", "cos", "reciprocal", "silu", "mish", "hardsigmoid", "hardswish", "sign",
    "floor", "ceil", "round", "trunc", "gelu", "leaky_relu", "elu", "softplus",
    # reductions and normalisation
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "argmax", "argmin", "var", "softmax", "log_softmax",
    "cumsum", "topk", "layer_norm", "batch_norm",
    # products, convolution, pooling, attention, recurrent layers
    "gemm", "conv", "max_pool", "avg_pool", "adaptive_avg_pool", "attention", "rnn",
    # spectral
    "stft", "complex_abs",
})
# Stands in, while recording, for the output of a call the engine cannot run; an export that has
# one fails with the report of every such call, so it is never written to a file.
UNSUPPORTED_OP = "unsupported"


def _registers(table: dict, keys: Iterable) -> Callable:
    """A decorator that enters the function it decorates in `table` under each of `keys`."""
    keys = list(keys)

    def register(fn: Callable) -> Callable:
        for key in keys:
            table[key] = fn
        return fn
    return register


def handles(*names: str, takes_complex: bool = False) -> Callable:
    """Registers an ATen handler under these op names; `takes_complex`: it lowers complex tensors itself."""
    if takes_complex:
        TAKES_COMPLEX.update(names)
    return _registers(HANDLERS, names)


def handles_complex(*names: str) -> Callable:
    """Registers the handler of these ATen ops for calls on complex tensors."""
    return _registers(COMPLEX_HANDLERS, names)


def handles_function(owner, *names: str) -> Callable:
    """Registers the handler of the torch functions `owner.<name>`, lowered whole."""
    return _registers(FUNCTION_HANDLERS, [(owner, name) for name in names])


def onnx_op(*names: str) -> Callable:
    """Registers the torch computation of these ONNX op types."""
    return _registers(ONNX_OPS, names)


def bind(func, args, kwargs) -> dict:
    """An ATen call's arguments by schema name, defaults filled in."""
    bound = {}
    for index, argument in enumerate(func._schema.arguments):
        if index < len(args) and not argument.kwarg_only:
            bound[argument.name] = args[index]
        elif argument.name in kwargs:
            bound[argument.name] = kwargs[argument.name]
        elif argument.has_default_value():
            bound[argument.name] = argument.default_value
        else:
            bound[argument.name] = None
    return bound


def bind_function(func, args, kwargs) -> dict:
    """A torch function's arguments by name, from its Python signature where it has one, else
    positionally as "0", "1", … (the C++ functions of torch._VF have no inspectable signature)."""
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
        bound.apply_defaults()
        return dict(bound.arguments)
    except (TypeError, ValueError):
        named = {str(i): a for i, a in enumerate(args)}
        named.update(kwargs)
        return named
