"""ONNX in: `from_onnx(path, output_path)` converts an ONNX graph into a Sonotype model file.

The graph is not translated op by op into engine nodes.  It becomes an nn.Module, `OnnxModule`,
whose forward walks the ONNX nodes in order and computes each with torch ops (`onnx_ops.py`); that
module then goes through `export_model` like any PyTorch model: the recorder lowers the torch ops
it sees into engine ops, folds whatever does not depend on the input (initializers, shape
arithmetic) into constants, and the model file gets the same validation as an exported PyTorch
model.  `onnx` (Debian's python3-onnx) is used only to parse and check the file.

Before anything runs, the whole graph is checked: every node of an op type (or domain) the
converter lacks is reported at once, with its count and node names, in one ExportError.  Nodes
that fail while recording (an attribute combination or a torch op the engine lacks) are also
collected: the error lists every one reached, and nodes that depend on them are not tried.
"""

import math
import os
import re
from collections import Counter, OrderedDict
from typing import Dict, List, Mapping, Optional, Sequence, Union

import numpy as np
import torch

from .errors import ExportError
from .onnx_ops import Node
from .registry import ONNX_OPS

# The default-domain opsets whose semantics the converter implements (tested: 9, 11, 13 and 17).
MIN_OPSET = 9
MAX_OPSET = 17
_DEFAULT_DOMAINS = ("", "ai.onnx")


def _onnx():
    try:
        import onnx
    except ImportError as error:  # pragma: no cover - install-deps.sh installs python3-onnx
        raise ExportError("reading ONNX files needs the onnx package (Debian: apt-get install python3-onnx)") from error
    return onnx


def load_onnx(path: str):
    """Reads and checks an ONNX file; every problem becomes an ExportError that says what is wrong."""
    onnx = _onnx()
    if not isinstance(path, (str, os.PathLike)):
        raise ExportError(f"path must be a file name, not {type(path).__name__}")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        raise ExportError(f"cannot read {path}: {error.strerror or error}") from None
    try:
        model = onnx.load_model_from_string(data)
    except Exception as error:  # protobuf's DecodeError and friends
        raise ExportError(f"{path} is not an ONNX model (it does not parse as one: {error})") from None
    if not model.HasField("graph") or not model.opset_import or len(model.graph.node) == 0:
        raise ExportError(f"{path} is not an ONNX model (no graph with nodes and no operator set)")
    external = [t.name for t in model.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    external += [f"{n.name or n.op_type} (attribute {a.name})" for n in model.graph.node for a in n.attribute
                 if a.HasField("t") and a.t.data_location == onnx.TensorProto.EXTERNAL]
    if external:
        raise ExportError(f"{path} keeps {len(external)} tensors in external data files ({', '.join(external[:5])}"
                          f"{', …' if len(external) > 5 else ''}); this converter reads self-contained files only: "
                          "save the model with onnx.save(model, path, save_as_external_data=False)")
    try:
        onnx.checker.check_model(model)
    except Exception as error:
        raise ExportError(f"{path} is not a valid ONNX model: {str(error).strip()}") from None
    opset = default_opset(model)
    if not MIN_OPSET <= opset <= MAX_OPSET:
        raise ExportError(f"{path} uses ONNX operator set {opset}; the converter supports opsets {MIN_OPSET} to "
                          f"{MAX_OPSET} (re-export with torch.onnx.export(..., opset_version={MAX_OPSET}))")
    return model


def default_opset(model) -> int:
    versions = [o.version for o in model.opset_import if o.domain in _DEFAULT_DOMAINS]
    if not versions:
        raise ExportError("the ONNX model imports no version of the default operator set (ai.onnx)")
    return int(versions[0])


def unsupported_ops(model) -> "OrderedDict[str, List[str]]":
    """Every op type of the graph the converter lacks -> the names of its nodes, in graph order."""
    missing: "OrderedDict[str, List[str]]" = OrderedDict()
    for index, node in enumerate(model.graph.node):
        domain = node.domain or ""
        key = node.op_type if domain in _DEFAULT_DOMAINS else f"{domain}::{node.op_type}"
        if domain in _DEFAULT_DOMAINS and node.op_type in ONNX_OPS and not node.op_type.startswith("_"):
            continue
        missing.setdefault(key, []).append(node.name or f"#{index}")
    return missing


def op_report(missing: Mapping[str, Sequence[str]]) -> str:
    lines = [f"  {op_type} x{len(names)}: {', '.join(names)}" for op_type, names in missing.items()]
    total = sum(len(names) for names in missing.values())
    return (f"the ONNX graph has {total} nodes of {len(missing)} operator types the converter does not support:\n"
            + "\n".join(lines) + "\n(docs/ENGINE.md, 'ONNX models', lists the supported operators)")


def _to_torch(array: np.ndarray, what: str) -> torch.Tensor:
    # np.array copies (writable, C order) and keeps 0-d arrays 0-d (np.ascontiguousarray makes them 1-d).
    if array.dtype.kind == "f":
        return torch.from_numpy(np.array(array, dtype=np.float32, order="C"))
    if array.dtype == np.bool_:
        return torch.from_numpy(np.array(array, dtype=np.bool_, order="C"))
    if array.dtype.kind in "iu":
        return torch.from_numpy(np.array(array, dtype=np.int64, order="C"))
    raise ExportError(f"{what} holds {array.dtype} data, which is not supported")


def _attributes(node_proto) -> dict:
    onnx = _onnx()
    from onnx import numpy_helper
    attrs = {}
    for attribute in node_proto.attribute:
        value = onnx.helper.get_attribute_value(attribute)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        elif isinstance(value, onnx.TensorProto):
            value = _to_torch(numpy_helper.to_array(value), f"attribute {attribute.name} of node {node_proto.name!r}")
        elif isinstance(value, list) and value and isinstance(value[0], bytes):
            value = [v.decode("utf-8", "replace") for v in value]
        attrs[attribute.name] = value
    return attrs


def _shape_of(value_info) -> Optional[List[Union[int, str, None]]]:
    """The declared dimensions (int, or a name/None where dynamic); None where not even the rank is."""
    if not value_info.type.tensor_type.HasField("shape"):
        return None
    dims = []
    for dim in value_info.type.tensor_type.shape.dim:
        if dim.HasField("dim_value") and dim.dim_value > 0:
            dims.append(int(dim.dim_value))
        else:
            dims.append(dim.dim_param or None)
    return dims


class _Patterns:
    """What the pattern fusions need to know about the node list: constants, producers, readers."""

    def __init__(self, nodes: List[Node], graph, graph_outputs: set):
        from onnx import numpy_helper
        self.nodes = nodes
        self.constants = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
        for node in nodes:
            if node.op_type == "Constant" and isinstance(node.attrs.get("value"), torch.Tensor):
                self.constants[node.proto.output[0]] = node.attrs["value"].numpy()
            elif node.op_type == "Identity" and node.proto.input[0] in self.constants:
                # PyTorch's exporter stores equal weights once and names the others with Identity nodes.
                self.constants[node.proto.output[0]] = self.constants[node.proto.input[0]]
        self.producer = {out: i for i, node in enumerate(nodes) for out in node.proto.output}
        self.readers: Dict[str, int] = Counter(name for node in nodes for name in node.proto.input)
        self.graph_outputs = graph_outputs
        self.replaced: Dict[int, Node] = {}
        self.dropped = set()

    def scalar(self, name, value=None):
        """Whether `name` is a one-element constant (equal to `value` within 1e-6 if given)."""
        array = self.constants.get(name)
        if array is None or array.size != 1:
            return False
        return value is None or abs(float(array.reshape(-1)[0]) - value) <= 1e-6 * abs(value)

    @staticmethod
    def other(node, name):
        """The input of a two-input node that is not `name` (None if `name` is not one)."""
        if len(node.proto.input) != 2:
            return None
        a, b = node.proto.input
        return b if a == name else a if b == name else None

    def private(self, name, readers=1):
        """Read by exactly `readers` nodes and not a graph output."""
        return self.readers[name] == readers and name not in self.graph_outputs

    def reader(self, name, op_type):
        """The index of the one node reading `name` if it is an `op_type`."""
        matches = [i for i, node in enumerate(self.nodes) if name in node.proto.input]
        if len(matches) == 1 and self.nodes[matches[0]].op_type == op_type:
            return matches[0]
        return None

    def made_by(self, name, op_type):
        index = self.producer.get(name)
        return index if index is not None and self.nodes[index].op_type == op_type else None

    def replace(self, chain: List[int], op_type: str, inputs: List[str], attrs: dict) -> None:
        if any(i in self.dropped or i in self.replaced for i in chain):
            return
        from onnx import helper
        last = self.nodes[max(chain)]
        proto = helper.make_node(op_type, inputs, [last.proto.output[0]],
                                 name=", ".join(self.nodes[i].name for i in sorted(chain)))
        fused = Node(proto, attrs, last.opset)
        fused.static = [False] * len(inputs)
        self.replaced[max(chain)] = fused
        self.dropped.update(i for i in chain if i != max(chain))

    def result(self) -> List[Node]:
        return [self.replaced.get(i, node) for i, node in enumerate(self.nodes) if i not in self.dropped]


def _fuse_gelu(p: _Patterns) -> None:
    """GELU as ONNX writes it before opset 20, x * 0.5 * (1 + erf(x / sqrt(2))) in either of the
    orders exporters emit (Div, Erf, Add, Mul, Mul), becomes one node: the engine's gelu op."""
    nodes = p.nodes
    for e_index, erf in enumerate(nodes):
        if erf.op_type != "Erf" or erf.proto.input[0] not in p.producer:
            continue
        scale_index = p.producer[erf.proto.input[0]]
        scale = nodes[scale_index]
        if scale.op_type == "Div" and p.scalar(scale.proto.input[1], math.sqrt(2.0)):
            x = scale.proto.input[0]
        elif scale.op_type == "Mul" and p.scalar(scale.proto.input[1], math.sqrt(0.5)):
            x = scale.proto.input[0]
        elif scale.op_type == "Mul" and p.scalar(scale.proto.input[0], math.sqrt(0.5)):
            x = scale.proto.input[1]
        else:
            continue
        if not p.private(scale.proto.output[0]) or not p.private(erf.proto.output[0]):
            continue
        add_index = p.reader(erf.proto.output[0], "Add")
        if add_index is None or not p.scalar(p.other(nodes[add_index], erf.proto.output[0]), 1.0):
            continue
        chain = [scale_index, e_index, add_index]
        sum_name = nodes[add_index].proto.output[0]
        product_index = p.reader(sum_name, "Mul") if p.private(sum_name) else None
        if product_index is None:
            continue
        factor = p.other(nodes[product_index], sum_name)
        if factor == x:  # (x * (1 + erf)) * 0.5
            middle = nodes[product_index].proto.output[0]
            last_index = p.reader(middle, "Mul") if p.private(middle) else None
            if last_index is None or not p.scalar(p.other(nodes[last_index], middle), 0.5):
                continue
            chain += [product_index, last_index]
        else:  # (x * 0.5) * (1 + erf)
            half_index = p.made_by(factor, "Mul")
            if half_index is None or not p.private(factor) or not p.scalar(p.other(nodes[half_index], x), 0.5):
                continue
            chain += [half_index, product_index]
        p.replace(chain, "_FusedGelu", [x], {})


def _fuse_layer_norm(p: _Patterns) -> None:
    """LayerNorm as ONNX writes it before opset 17 (ReduceMean, Sub, Pow 2, ReduceMean, Add eps,
    Sqrt, Div, then Mul by a weight and Add of a bias), over the last axis, becomes one node: the
    engine's layer_norm op."""
    nodes = p.nodes

    def last_axis_mean(node):
        return (node.op_type == "ReduceMean" and list(node.attr("axes") or []) == [-1]
                and node.attr("keepdims", 1) == 1 and len(node.proto.input) == 1)

    for m_index, mean in enumerate(nodes):
        if not last_axis_mean(mean) or not p.private(mean.proto.output[0]):
            continue
        x = mean.proto.input[0]
        sub_index = p.reader(mean.proto.output[0], "Sub")
        if sub_index is None or list(nodes[sub_index].proto.input) != [x, mean.proto.output[0]]:
            continue
        centred = nodes[sub_index].proto.output[0]
        if not p.private(centred, readers=2):
            continue
        readers = [i for i, node in enumerate(nodes) if centred in node.proto.input]
        pow_index = next((i for i in readers if nodes[i].op_type == "Pow"), None)
        div_index = next((i for i in readers if nodes[i].op_type == "Div"), None)
        if pow_index is None or div_index is None or not p.scalar(nodes[pow_index].proto.input[1], 2.0):
            continue
        squares = nodes[pow_index].proto.output[0]
        var_index = p.reader(squares, "ReduceMean") if p.private(squares) else None
        if var_index is None or not last_axis_mean(nodes[var_index]):
            continue
        variance = nodes[var_index].proto.output[0]
        eps_index = p.reader(variance, "Add") if p.private(variance) else None
        eps_name = p.other(nodes[eps_index], variance) if eps_index is not None else None
        if eps_name is None or not p.scalar(eps_name):
            continue
        eps = float(p.constants[eps_name].reshape(-1)[0])
        shifted = nodes[eps_index].proto.output[0]
        sqrt_index = p.reader(shifted, "Sqrt") if p.private(shifted) else None
        if sqrt_index is None:
            continue
        deviation = nodes[sqrt_index].proto.output[0]
        if not p.private(deviation) or list(nodes[div_index].proto.input) != [centred, deviation]:
            continue
        chain = [m_index, sub_index, pow_index, var_index, eps_index, sqrt_index, div_index]
        inputs = [x]
        normalized = nodes[div_index].proto.output[0]
        mul_index = p.reader(normalized, "Mul") if p.private(normalized) else None
        weight = p.other(nodes[mul_index], normalized) if mul_index is not None else None
        if weight is not None and weight in p.constants and p.constants[weight].ndim == 1:
            chain.append(mul_index)
            inputs.append(weight)
            scaled = nodes[mul_index].proto.output[0]
            add_index = p.reader(scaled, "Add") if p.private(scaled) else None
            bias = p.other(nodes[add_index], scaled) if add_index is not None else None
            if bias is not None and bias in p.constants and p.constants[bias].ndim == 1:
                chain.append(add_index)
                inputs.append(bias)
        p.replace(chain, "_FusedLayerNorm", inputs, {"epsilon": eps})


def _fuse_gated(p: _Patterns) -> None:
    """x * sigmoid(x) (SiLU/Swish) and, before opset 14, x * HardSigmoid(x; 1/6, 0.5) (HardSwish)
    become the engine's silu and hardswish."""
    nodes = p.nodes
    for g_index, gate in enumerate(nodes):
        if gate.op_type == "Sigmoid":
            op_type = "_FusedSilu"
        elif (gate.op_type == "HardSigmoid" and abs(float(gate.attr("alpha", 0.2)) - 1.0 / 6.0) < 1e-6
              and abs(float(gate.attr("beta", 0.5)) - 0.5) < 1e-6):
            op_type = "_FusedHardSwish"
        else:
            continue
        x, gated = gate.proto.input[0], gate.proto.output[0]
        mul_index = p.reader(gated, "Mul") if p.private(gated) else None
        if mul_index is None or p.other(nodes[mul_index], gated) != x:
            continue
        p.replace([g_index, mul_index], op_type, [x], {})


def _fuse_patterns(nodes: List[Node], graph, graph_outputs: set) -> List[Node]:
    """Exporters write GELU, SiLU and (before opsets 17 and 14) LayerNorm and HardSwish out as
    elementwise ops; where the intermediate values are used nowhere else, such a chain becomes the
    one engine op."""
    patterns = _Patterns(nodes, graph, graph_outputs)
    _fuse_gelu(patterns)
    _fuse_layer_norm(patterns)
    _fuse_gated(patterns)
    return patterns.result()


def _node_runners(nodes: Sequence[Node], source_name: str):
    """Per node, a function that runs it, compiled as line i + 1 of a file named after the ONNX file
    whose text (in linecache) names the node: the exporter's messages locate an ATen operation at
    the innermost frame outside torch and the exporter, so they say "at model.onnx:17: node '/conv1/Conv'
    (Conv)" rather than the line that called from_onnx.  Returns [(function, that location text)]."""
    import linecache
    filename = os.path.normpath(os.path.abspath(source_name))
    lines = [f"node {node.name!r} ({node.op_type})\n" for node in nodes]
    linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)  # mtime None: kept as is
    source = "".join(f"def run_{i}(op, node, inputs): return op(node, inputs)\n" for i in range(len(nodes)))
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - generated above, no data from the file
    return [(namespace[f"run_{i}"], f" at {filename}:{i + 1}: {lines[i].strip()}") for i in range(len(nodes))]


class OnnxModule(torch.nn.Module):
    """An ONNX graph as an nn.Module: forward runs the nodes in order with torch ops.

    Initializers are buffers (named after the ONNX names, made valid attribute names), so the
    model file's tensors carry recognisable names.  The module takes the graph's one input."""

    def __init__(self, model, input_shape: Optional[Sequence[int]] = None, source_name: str = "graph.onnx"):
        super().__init__()
        from onnx import numpy_helper
        graph = model.graph
        self.opset = default_opset(model)
        missing = unsupported_ops(model)
        if missing:
            raise ExportError(op_report(missing))

        self._buffer_of: Dict[str, str] = {}
        used_names = set()
        for tensor in graph.initializer:
            name = re.sub(r"[^0-9A-Za-z_]", "_", tensor.name) or "initializer"
            if name[0].isdigit():
                name = "t_" + name
            base, suffix = name, 1
            while name in used_names or hasattr(self, name):
                suffix += 1
                name = f"{base}_{suffix}"
            used_names.add(name)
            self.register_buffer(name, _to_torch(numpy_helper.to_array(tensor), f"initializer {tensor.name!r}"))
            self._buffer_of[tensor.name] = name

        inputs = [i for i in graph.input if i.name not in self._buffer_of]
        if len(inputs) != 1:
            names = ", ".join(i.name for i in inputs) or "none"
            raise ExportError(f"the engine runs models of one input; this ONNX graph takes {len(inputs)} ({names})")
        graph_input = inputs[0]
        self.input_name = graph_input.name
        elem_type = graph_input.type.tensor_type.elem_type
        if elem_type != 1:
            raise ExportError(f"the graph's input {self.input_name!r} is of ONNX data type {elem_type}; "
                              "the engine takes float32 (type 1) input")
        self.input_shape = self._resolve_input_shape(_shape_of(graph_input), input_shape)
        self._check_input_size(self.input_shape)
        self.output_names = [o.name for o in graph.output]
        if not self.output_names:
            raise ExportError("the ONNX graph has no outputs")

        # Which values are static (computed without the graph's input): shapes of dynamic values are.
        static = set(self._buffer_of) | {""}
        self.nodes: List[Node] = []
        for proto in graph.node:
            node = Node(proto, _attributes(proto), self.opset)
            node.static = [name in static for name in proto.input]
            if proto.op_type in ("Shape", "Size") or all(node.static):
                static.update(proto.output)
            self.nodes.append(node)
        self.nodes = _fuse_patterns(self.nodes, graph, set(self.output_names))
        self._node_runners = _node_runners(self.nodes, source_name)
        known = set(self._buffer_of) | {self.input_name} | {o for n in graph.node for o in n.output}
        undefined = [o for o in self.output_names if o not in known]
        if undefined:
            raise ExportError(f"the graph's outputs {undefined} are computed by no node")

    def _resolve_input_shape(self, declared, given) -> List[int]:
        if declared is None:
            if given is None:
                raise ExportError(f"the graph's input {self.input_name!r} declares no shape; the engine runs fixed "
                                  "shapes: give input_shape=[...] to from_onnx")
            declared = [None] * len(given)
        if given is None:
            unknown = [i for i, d in enumerate(declared) if not isinstance(d, int)]
            if unknown:
                raise ExportError(
                    f"the graph's input {self.input_name!r} has dynamic dimensions {unknown} "
                    f"(shape {[d if d is not None else '?' for d in declared]}); the engine runs fixed shapes: "
                    "give input_shape=[...] to from_onnx")
            return list(declared)
        given = [int(d) for d in given]
        if len(given) != len(declared):
            raise ExportError(f"input_shape {given} has rank {len(given)}; the graph's input {self.input_name!r} "
                              f"has rank {len(declared)}")
        for i, (g, d) in enumerate(zip(given, declared)):
            if g <= 0:
                raise ExportError(f"input_shape {given}: dimension {i} must be positive")
            if isinstance(d, int) and d != g:
                raise ExportError(f"input_shape {given}: dimension {i} is fixed at {d} in the ONNX graph")
        return given

    @staticmethod
    def _check_input_size(shape: Sequence[int]) -> None:
        from .onnx_ops import MAX_ELEMENTS
        count = 1
        for d in shape:
            count *= d
        if count > MAX_ELEMENTS:
            raise ExportError(f"the input shape {list(shape)} has more than 2^28 elements")

    def example_input(self) -> torch.Tensor:
        generator = torch.Generator().manual_seed(0)
        return torch.randn(self.input_shape, generator=generator)

    def forward(self, x: torch.Tensor):
        values: Dict[str, Optional[torch.Tensor]] = {"": None}
        for onnx_name, buffer_name in self._buffer_of.items():
            values[onnx_name] = getattr(self, buffer_name)
        values[self.input_name] = x
        failures: List[str] = []
        failed: Dict[str, str] = {}  # value -> the failed node it comes from
        skipped = 0
        for node, (run, location) in zip(self.nodes, self._node_runners):
            proto = node.proto
            upstream = [failed[name] for name in proto.input if name in failed]
            if upstream:
                skipped += 1
                failed.update({name: upstream[0] for name in proto.output})
                continue
            missing_inputs = [name for name in proto.input if name not in values]
            try:
                if missing_inputs:
                    raise ExportError(f"its inputs {missing_inputs} are not computed before it (the graph is not "
                                      "in topological order, or they do not exist)")
                outputs = run(ONNX_OPS[node.op_type], node, [values[name] for name in proto.input])
                if len(outputs) < len([o for o in proto.output if o]):
                    raise ExportError(f"it has {len(proto.output)} outputs; the converter computes {len(outputs)}")
            except Exception as error:  # noqa: BLE001 - every failure becomes one line of the report
                message = str(error).replace(location, "").strip()
                if not isinstance(error, ExportError):
                    message = f"{type(error).__name__}: {message}"
                failures.append(f"  node {node.name!r} ({node.op_type}): {message}")
                failed.update({name: node.name for name in proto.output})
                continue
            for name, value in zip(proto.output, outputs):
                if name:
                    values[name] = value
        if failures:
            tail = f"\n({skipped} nodes that depend on them were not tried)" if skipped else ""
            raise ExportError(f"{len(failures)} ONNX nodes could not be converted:\n" + "\n".join(failures) + tail,
                              located=True)
        results = []
        for name in self.output_names:
            if name not in values:
                raise ExportError(f"the graph's output {name!r} is computed by no node", located=True)
            results.append(values[name])
        return results[0] if len(results) == 1 else tuple(results)


def from_onnx(path: str, output_path: str, *, labels: Optional[Sequence[str]] = None,
              frontend=None, input_shape: Optional[Sequence[int]] = None) -> dict:
    """Converts the ONNX model `path` into the Sonotype model file `output_path`.

    `labels` and `frontend` as for export_model.  `input_shape` fixes the input's dynamic
    dimensions (required when the ONNX input has any: the engine runs fixed shapes).  Returns
    export_model's summary plus "onnx_op_counts".  Raises ExportError listing every unsupported
    ONNX op (type, count, node names) at once, or every node that could not be lowered."""
    from .exporter import export_model

    model = load_onnx(path)
    module = OnnxModule(model, input_shape=input_shape, source_name=str(path)).eval()
    summary = export_model(module, module.example_input(), output_path, labels=labels, frontend=frontend)
    summary["onnx_op_counts"] = dict(Counter(n.op_type for n in model.graph.node))
    summary["onnx_opset"] = module.opset
    return summary


def onnx_module(path: str, input_shape: Optional[Sequence[int]] = None) -> OnnxModule:
    """The ONNX file as an nn.Module (eval mode) computing with torch ops: for inspection and tests."""
    return OnnxModule(load_onnx(path), input_shape=input_shape, source_name=str(path)).eval()


__all__ = ["from_onnx", "onnx_module", "load_onnx", "unsupported_ops", "OnnxModule", "MIN_OPSET", "MAX_OPSET"]
