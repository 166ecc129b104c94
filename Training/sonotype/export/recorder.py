"""Records what a model does at PyTorch's ATen dispatch level and turns it into an engine graph.

The model runs once, for real, on the example input, under a TorchDispatchMode.  Every ATen call is
seen with its concrete arguments (shapes are plain ints, so `B, L, D = x.shape` just works), after
PyTorch chose its eval-mode fast paths (`_native_multi_head_attention`,
`_transformer_encoder_layer_fwd`).  Each tensor is tracked:

- *dynamic*: depends on the input; lives in the graph as a value id;
- *constant*: weights, buffers, tensors made inside forward, and everything computed from those
  alone.  Their values are known, so they are folded: the engine stores the result.

Calls on dynamic tensors are lowered to engine ops by the handlers the registry holds (`registry.py`;
the handler modules in `handlers/` fill it, and this module imports them).  A call that has a complex
tensor among its arguments or results goes to the registry's complex table, unless its op's own
handler takes complex tensors; any other operation on a complex tensor is reported as not supported.

In-place writes are followed exactly: a write through one view of a storage (`x += y`,
`gates[0].sigmoid_()`, `out[:, 0] = v`) is logged on the storage; a tensor of that storage read
later first takes in the writes logged since its value was recorded that overlap its elements (the
written view scattered into it, `as_strided_scatter`, or a gather where the overlap is irregular).
Tensors on disjoint elements keep their values, and tensors never read again cost nothing.

The recording does not stop at the first operation the engine lacks: each problem is noted with
its count and source lines (`problems`), the output gets a placeholder value so the rest of the
model is still walked, and the exporter reports the whole list at once.

A few torch functions are lowered whole, one level above ATen (`FUNCTION_HANDLERS` in
`registry.py`: recurrent layers, STFT): while recording, the function's attribute on its module
(`torch._VF.gru`, `torch.stft`) is replaced by a wrapper that sees the call with its Python
arguments; the function runs for real with its ATen calls not recorded, and the handler turns the
whole call into engine ops.  (Not a TorchFunctionMode: an active mode turns off PyTorch's eval fast
paths, whose results can differ in shape from the slow path's, e.g. nested-tensor padding.)
"""

import math
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from . import handlers  # noqa: F401  (fills the registry's tables)
from .emit import gather_flat, strided_form
from .errors import ExportError
from .graph import Graph
from .registry import (COMPLEX_HANDLERS, FUNCTION_HANDLERS, HANDLERS, TAKES_COMPLEX, UNSUPPORTED_OP, bind,
                       bind_function)
from .source_lines import describe_source, user_source
from .tracked import Tracked

# Ops whose result depends only on the shape of their tensor inputs, never on the values.
_SHAPE_ONLY_OPS = {"zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
                   "new_zeros", "new_ones", "new_full", "new_empty", "new_empty_strided", "scalar_tensor"}


def _aten_name(func) -> str:
    """aten::name, with the overload only where it is not the default one."""
    name = func.__name__
    return "aten::" + (name[:-len(".default")] if name.endswith(".default") else name)


def _has_complex(bound: dict, out) -> bool:
    flat, _ = tree_flatten((list(bound.values()), out))
    return any(isinstance(t, torch.Tensor) and t.is_complex() for t in flat)


@dataclass
class Write:
    """One in-place write to a storage: the storage elements written (in the written tensor's
    element order), its shape and dtype, and its value after the write."""
    positions: torch.Tensor
    shape: Tuple[int, ...]
    dtype: torch.dtype
    value: Tracked


@dataclass
class Problem:
    """One thing the engine cannot run: an operation (with why) and where the model does it."""
    operation: str
    reason: str
    count: int = 0
    sources: List[str] = field(default_factory=list)

    def describe(self, max_sources: int = 3) -> str:
        calls = f"{self.count} call{'s' if self.count != 1 else ''}"
        lines = [f"  {self.operation} ({calls}): {self.reason}"]
        for source in self.sources[:max_sources]:
            lines.append(f"      {describe_source(source)}")
        if len(self.sources) > max_sources:
            lines.append(f"      … and {len(self.sources) - max_sources} more places")
        return "\n".join(lines)


# In-place ops that change a tensor's geometry, not its elements.
_METADATA_INPLACE_OPS = {"as_strided_", "squeeze_", "unsqueeze_", "transpose_", "t_", "swapaxes_", "swapdims_",
                         "resize_", "resize_as_", "set_"}


class Recorder:
    def __init__(self, model: torch.nn.Module, graph: Graph):
        self.graph = graph
        self.suspended = 0  # > 0 while a function lowered whole runs: its ATen calls are not recorded
        self.problems: Dict[Tuple[str, str], Problem] = {}
        self._by_id: Dict[int, Tracked] = {}
        self._geometry_before: Dict[int, tuple] = {}
        self._keepalive: List[torch.Tensor] = []
        self._writes: Dict[int, List[Write]] = {}  # per storage, in order
        self._param_names: Dict[int, str] = {}
        self._param_by_storage: Dict[tuple, str] = {}
        self._num_anonymous = 0
        # |z| values (complex_abs nodes) -> z, so that |z| ** 2 becomes one complex_abs with `squared`
        self.complex_magnitudes: Dict[int, int] = {}
        for name, tensor in list(model.named_parameters()) + list(model.named_buffers()):
            self._param_names.setdefault(id(tensor), name)
            self._param_by_storage.setdefault(self._storage_key(tensor), name)

    # ----- tensor bookkeeping -------------------------------------------------------------------
    @staticmethod
    def _storage_key(t: torch.Tensor) -> tuple:
        return (t.data_ptr(), tuple(t.shape), tuple(t.stride()), t.dtype)

    @staticmethod
    def _storage_id(t: torch.Tensor) -> Optional[int]:
        if t.is_nested:
            return None
        try:
            return t.storage().data_ptr()
        except (RuntimeError, NotImplementedError):
            return None

    def _remember(self, t: torch.Tensor, tracked: Tracked) -> Tracked:
        self._keepalive.append(t)
        self._by_id[id(t)] = tracked
        tracked.version = len(self._writes.get(self._storage_id(t), ()))
        return tracked

    def set_input(self, t: torch.Tensor) -> None:
        self._remember(t, Tracked(vid=self.graph.add_input(tuple(t.shape))))

    def _current(self, t: torch.Tensor) -> Optional[Tracked]:
        """What is known of t now (the writes to its storage since taken in), or None if nothing."""
        entry = self._by_id.get(id(t))
        if entry is not None and entry.version < len(self._writes.get(self._storage_id(t), ())):
            entry = self._take_in_writes(t, entry)
        return entry

    def tracked(self, t: torch.Tensor) -> Tracked:
        entry = self._current(t)
        if entry is None:
            name = self._param_names.get(id(t)) or self._param_by_storage.get(self._storage_key(t))
            if name is None:
                self._num_anonymous += 1
                name = f"const.{self._num_anonymous}"
                value = t.detach().clone()
            else:
                value = t.detach()
            entry = self._remember(t, Tracked(const=value, name=name))
        if entry.unavailable:
            raise ExportError(entry.unavailable)
        return entry

    def value_id(self, t: torch.Tensor) -> int:
        """The graph value of a tensor argument; constants become stored tensors on first use."""
        return self.value_id_of(self.tracked(t))

    def value_id_of(self, entry: Tracked) -> int:
        if entry.vid is not None:
            return entry.vid
        if entry.stored_vid is None:
            entry.stored_vid = self.graph.add_tensor(entry.name, entry.const)
        return entry.stored_vid

    def is_dynamic(self, t: torch.Tensor) -> bool:
        return not self.tracked(t).is_const

    def geometry(self, t: torch.Tensor) -> tuple:
        """(shape, strides, storage offset) of `t` as the current call found it (an in-place view op
        such as as_strided_ has already changed it when the handler runs)."""
        return self._geometry_before.get(id(t)) or (tuple(t.shape), tuple(t.stride()), t.storage_offset())

    @staticmethod
    def storage_positions(t: torch.Tensor, geometry: Optional[tuple] = None) -> torch.Tensor:
        """The storage element each element of `t` is (shape of t's geometry), as int64."""
        shape, strides, offset = geometry or (tuple(t.shape), tuple(t.stride()), t.storage_offset())
        positions = torch.arange(t.storage().size(), dtype=torch.int64)
        return torch.as_strided(positions, shape, strides, offset)

    # ----- the problem report -------------------------------------------------------------------
    def note_problem(self, operation: str, reason: str, source: str) -> None:
        problem = self.problems.setdefault((operation, reason), Problem(operation, reason))
        problem.count += 1
        if source and source not in problem.sources:
            problem.sources.append(source)

    def _placeholders(self, out) -> None:
        """Stand-in values for the outputs of a call the engine cannot run, so recording goes on."""
        for t in (o for o in tree_flatten(out)[0] if isinstance(o, torch.Tensor)):
            shape = () if t.is_nested else tuple(t.shape)
            self._replace(t, Tracked(vid=self.graph.add(UNSUPPORTED_OP, [], shape)))

    def report(self) -> str:
        """Every problem noted, with counts and source lines; "" when there is none."""
        return self.report_of(list(self.problems.values()))

    @staticmethod
    def report_of(problems: List[Problem]) -> str:
        if not problems:
            return ""
        ops = sorted(problems, key=lambda p: (p.operation, p.reason))
        names = {p.operation for p in ops}
        head = (f"the model uses {len(names)} operation{'s' if len(names) != 1 else ''} the engine cannot run "
                f"({sum(p.count for p in ops)} call{'s' if sum(p.count for p in ops) != 1 else ''}):")
        return "\n".join([head] + [p.describe() for p in ops] +
                         ["See docs/ENGINE.md for the supported operations and their limits."])

    # ----- one ATen call ------------------------------------------------------------------------
    def on_call(self, func, args, kwargs, out) -> None:
        flat_args, _ = tree_flatten((args, kwargs))
        tensor_args = [a for a in flat_args if isinstance(a, torch.Tensor)]
        op_name = func.overloadpacket.__name__
        written = self._written_args(func, args, kwargs)
        current = [self._current(t) for t in tensor_args]
        unavailable = [entry.unavailable for entry in current if entry is not None and entry.unavailable]
        dynamic = not unavailable and op_name not in _SHAPE_ONLY_OPS and any(self.is_dynamic(t) for t in tensor_args)

        if unavailable:
            # Computed from an output the engine does not produce: fine unless the model uses it.
            for t in (o for o in tree_flatten(out)[0] if isinstance(o, torch.Tensor)):
                self._replace(t, Tracked(vid=-1, unavailable=unavailable[0]))
        elif not dynamic:
            self._record_constant(func, args, kwargs, tensor_args, out)
        else:
            source = user_source()
            self.graph.source = source
            base_name = op_name[:-1] if op_name.endswith("_") and not op_name.startswith("_") else op_name
            key = next((k for k in (str(func), op_name, base_name) if k in HANDLERS), None)
            if key is None:
                self.note_problem(_aten_name(func), "not supported", source)
                self._placeholders(out)
            else:
                bound = bind(func, args, kwargs)
                bound["__op__"] = base_name
                try:
                    result = self._lower(key, bound, out)
                    self._record_outputs(out, result)
                except ExportError as error:
                    self.note_problem(_aten_name(func), str(error), source)
                    self._placeholders(out)
        if op_name not in _METADATA_INPLACE_OPS:
            for t in written:
                self._log_write(t)
        self._geometry_before.clear()

    def _lower(self, key: str, bound: dict, out):
        """The handler's result for one call: the registry's handler under `key`, or for a call on
        complex tensors the complex table's (an ExportError naming what is supported where it has none)."""
        handler = HANDLERS[key]
        if key not in TAKES_COMPLEX and _has_complex(bound, out):
            op = bound["__op__"]
            handler = COMPLEX_HANDLERS.get(op)
            if handler is None:
                raise ExportError(f"aten::{op} on a complex tensor is not supported; on complex tensors the exporter "
                                  f"lowers {', '.join(sorted(COMPLEX_HANDLERS))} and view_as_real/.real/.imag "
                                  "(take .abs() or torch.view_as_real first)")
        return handler(self, bound, out)

    def _record_constant(self, func, args, kwargs, tensor_args, out) -> None:
        sources = [self.tracked(t) for t in tensor_args] if tensor_args else []
        op_name = func.overloadpacket.__name__
        base = sources[0].name if sources else op_name
        flat_out, _ = tree_flatten(out)
        for index, t in enumerate(o for o in flat_out if isinstance(o, torch.Tensor)):
            if t.is_nested:
                raise ExportError(f"a NestedTensor built from constants is not supported {describe_source(user_source())}",
                                  located=True)
            origin = (op_name, sources[0], bind(func, args, kwargs)) if sources else None
            tracked = Tracked(const=t.detach().clone(), name=f"{base}.{op_name}" + (f".{index}" if index else ""),
                              origin=origin)
            self._replace(t, tracked)

    def _record_outputs(self, out, result) -> None:
        flat_out, _ = tree_flatten(out)
        flat_result = [result] if isinstance(out, torch.Tensor) else list(result) if isinstance(result, (list, tuple)) else [result]
        if len(flat_result) == len(flat_out):  # one entry per returned item, tensors or not
            pairs = [(t, res) for t, res in zip(flat_out, flat_result) if isinstance(t, torch.Tensor)]
        else:  # one entry per returned tensor
            tensors = [t for t in flat_out if isinstance(t, torch.Tensor)]
            if len(tensors) != len(flat_result):
                raise AssertionError("lowering handler returned the wrong number of outputs")
            pairs = list(zip(tensors, flat_result))
        for t, res in pairs:
            if res is None:
                # An output the engine does not compute (e.g. pooling indices): an error only if used.
                self._replace(t, Tracked(vid=-1, unavailable="uses an output of an operation that the engine "
                                                             "does not compute (e.g. pooling indices)"))
            else:
                self._replace(t, res if isinstance(res, Tracked) else Tracked(vid=res))

    def _replace(self, t: torch.Tensor, tracked: Tracked) -> None:
        self._by_id.pop(id(t), None)
        self._remember(t, tracked)

    # ----- in-place writes ----------------------------------------------------------------------
    def _written_args(self, func, args, kwargs) -> List[torch.Tensor]:
        """The tensor arguments the call writes in place (`self` of `add_`, `out=`)."""
        written = []
        for index, argument in enumerate(func._schema.arguments):
            if argument.alias_info is None or not argument.alias_info.is_write:
                continue
            value = args[index] if index < len(args) and not argument.kwarg_only else kwargs.get(argument.name)
            for t in (v for v in tree_flatten(value)[0] if isinstance(v, torch.Tensor)):
                written.append(t)
        return written

    def note_geometry(self, func, args, kwargs) -> None:
        """Called before an in-place call runs: remembers the geometry of the tensors it writes."""
        if func.overloadpacket.__name__ in _METADATA_INPLACE_OPS:
            for t in self._written_args(func, args, kwargs):
                self._geometry_before[id(t)] = (tuple(t.shape), tuple(t.stride()), t.storage_offset())

    def _log_write(self, written: torch.Tensor) -> None:
        """`written` was changed in place (its tracked value is the new one): logs the write on its storage."""
        sid = self._storage_id(written)
        entry = self._by_id.get(id(written))
        if sid is None or entry is None or written.is_nested:
            return
        log = self._writes.setdefault(sid, [])
        log.append(Write(self.storage_positions(written).reshape(-1), tuple(written.shape), written.dtype, entry))
        entry.version = len(log)

    def _take_in_writes(self, t: torch.Tensor, entry: Tracked) -> Tracked:
        """t's value with the writes to its storage since `entry` was recorded applied, in order."""
        log = self._writes[self._storage_id(t)]
        pending = log[entry.version:]
        if any(write.dtype != t.dtype for write in pending):
            # Element positions of views of another dtype (view_as_real of a complex tensor) do not line up.
            updated = Tracked(vid=-1, unavailable="reads memory written in place through a view of another dtype "
                                                  "(e.g. torch.view_as_real of a complex tensor); write it out of place")
            updated.version = len(log)
            self._by_id[id(t)] = updated
            return updated
        positions = self.storage_positions(t).reshape(-1)
        size = t.storage().size()
        index_in_t = torch.full((size,), -1, dtype=torch.int64)
        index_in_t[positions] = torch.arange(positions.numel())
        overlapping = []
        for write in pending:
            inside = index_in_t[write.positions]
            if bool((inside >= 0).any()):
                overlapping.append((write, inside))
        if not overlapping:
            updated = entry
        elif entry.unavailable or any(w.value.unavailable for w, _ in overlapping):
            updated = Tracked(vid=-1, unavailable="reads memory written by an operation the engine does not compute")
        elif entry.is_const and all(w.value.is_const for w, _ in overlapping):
            updated = Tracked(const=t.detach().clone(), name=entry.name + ".written")  # folded: the live value is it
        else:
            vid = self.value_id_of(entry)
            for write, inside in overlapping:
                vid = self._write_into(vid, tuple(t.shape), positions, size, write, inside)
            updated = Tracked(vid=vid)
        updated.version = len(log)
        self._by_id[id(t)] = updated
        return updated

    def _write_into(self, vid: int, shape: tuple, positions: torch.Tensor, storage_size: int, write: Write,
                    inside: torch.Tensor) -> int:
        """The value `vid` (of a tensor on storage elements `positions`) after `write`, whose elements
        are at `inside` in it (-1: not in it): the write scattered in where it is a strided view of the
        tensor, else a gather from the old value and the written one."""
        value = self.value_id_of(write.value)
        count = positions.numel()
        if bool((inside >= 0).all()):
            form = strided_form(inside, write.shape)
            if form is not None:
                offset, strides = form
                return self.graph.add("as_strided_scatter", [vid, value], list(shape), stride=strides, offset=offset)
        index_in_write = torch.full((storage_size,), -1, dtype=torch.int64)
        index_in_write[write.positions] = torch.arange(write.positions.numel())
        selected = index_in_write[positions]
        index = torch.where(selected >= 0, selected + count, torch.arange(count))
        written_count = math.prod(write.shape)
        joined = self.graph.add("concat", [self.graph.add("reshape", [vid], [count]),
                                           self.graph.add("reshape", [value], [written_count])],
                                [count + written_count], axis=0)
        return gather_flat(self, joined, index, shape)

    # ----- one call of a torch function lowered whole ------------------------------------------
    def on_function(self, name: str, handler, func, args, kwargs):
        """Runs `func` for real without recording its ATen calls, then lets `handler` lower it."""
        source = user_source()
        self.suspended += 1  # neither the call nor the handler's own tensor work is recorded
        try:
            out = func(*args, **kwargs)
            self.graph.source = source
            try:
                self._record_outputs(out, handler(self, bind_function(func, args, kwargs), out))
            except ExportError as error:
                self.note_problem(f"torch.{name}", str(error), source)
                self._placeholders(out)
        finally:
            self.suspended -= 1
        return out

    def depends_on_input(self, args, kwargs) -> bool:
        flat_args, _ = tree_flatten((args, kwargs))
        return any(isinstance(a, torch.Tensor) and id(a) in self._by_id and self.is_dynamic(a) for a in flat_args)


class _DispatchRecorder(TorchDispatchMode):
    def __init__(self, recorder: Recorder):
        super().__init__()
        self.recorder = recorder

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.recorder.suspended:
            return func(*args, **kwargs)
        self.recorder.note_geometry(func, args, kwargs)
        out = func(*args, **kwargs)
        self.recorder.on_call(func, args, kwargs, out)
        return out


class _FunctionRecorder:
    """Context manager: wraps the functions of FUNCTION_HANDLERS on their modules while recording."""

    def __init__(self, recorder: Recorder):
        self.recorder = recorder
        self._restore = []

    def __enter__(self):
        for (owner, name), handler in FUNCTION_HANDLERS.items():
            original = getattr(owner, name)
            self._restore.append((owner, name, original, name in vars(owner)))
            setattr(owner, name, self._wrap(name, original, handler))
        return self

    def __exit__(self, *exc):
        for owner, name, original, own_attribute in reversed(self._restore):
            if own_attribute:
                setattr(owner, name, original)
            else:
                delattr(owner, name)
        self._restore.clear()
        return False

    def _wrap(self, name, original, handler):
        recorder = self.recorder

        def wrapper(*args, **kwargs):
            if recorder.suspended or not recorder.depends_on_input(args, kwargs):
                return original(*args, **kwargs)
            return recorder.on_function(name, handler, original, args, kwargs)
        wrapper.__wrapped__ = original
        return wrapper


@dataclass
class ModuleCall:
    """One call of a watched module during the recording: the module, and what the recorder knew of
    its input (pre-hook) or output (hook) at that moment (or why the engine does not compute it)."""
    module: torch.nn.Module
    tensor: Optional[torch.Tensor]
    entry: Optional[Tracked]
    unavailable: str = ""
    what: str = ""  # "" for a tensor, else what the module took or returned instead


def _watch(recorder: Recorder, calls: List[ModuleCall], module: torch.nn.Module, value) -> None:
    """Notes one call of `module` with `value` (its output, or its first input)."""
    if not isinstance(value, torch.Tensor):
        calls.append(ModuleCall(module, None, None, what=type(value).__name__))
        return
    recorder.suspended += 1  # the bookkeeping's own tensor work is not the model's
    try:
        try:
            calls.append(ModuleCall(module, value, recorder.tracked(value)))
        except ExportError as error:
            calls.append(ModuleCall(module, value, None, unavailable=str(error)))
    finally:
        recorder.suspended -= 1


def record(model: torch.nn.Module, example_input: torch.Tensor, graph: Graph, grad_enabled: bool = False,
           watch_outputs=(), watch_inputs=()):
    """Runs the model once on the example input and returns (recorder, model output).

    Normally under no_grad, as inference runs, so PyTorch takes its eval-mode fast paths.
    `watch_outputs`/`watch_inputs`: modules whose every call's output (or first input) is noted, in
    call order, in `recorder.module_calls` (the embedding an export names)."""
    recorder = Recorder(model, graph)
    recorder.module_calls = []
    x = example_input.detach().clone()
    recorder.set_input(x)
    handles = []
    try:
        for module in watch_outputs:
            handles.append(module.register_forward_hook(
                lambda m, args, out: _watch(recorder, recorder.module_calls, m, out)))
        for module in watch_inputs:
            handles.append(module.register_forward_pre_hook(
                lambda m, args: _watch(recorder, recorder.module_calls, m, args[0] if args else None)))
        with torch.set_grad_enabled(grad_enabled), _FunctionRecorder(recorder), _DispatchRecorder(recorder):
            output = model(x)
    finally:
        for handle in handles:
            handle.remove()
    return recorder, output
