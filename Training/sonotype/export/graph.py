"""The engine graph the exporter builds: values (input, stored tensors, node outputs) and nodes.

Every value is float32 on the engine side and has a fixed shape; a node names an engine op
(`registry.ENGINE_OPS`; see docs/ENGINE.md), its input and output value ids and its attributes.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import torch

from .errors import ExportError
from .registry import ENGINE_OPS, UNSUPPORTED_OP


@dataclass
class Value:
    shape: Tuple[int, ...]
    kind: str                      # "input", "tensor" or "node"
    tensor: Optional[str] = None   # stored tensor name, for kind == "tensor"


@dataclass
class Node:
    op: str
    inputs: List[Optional[int]]
    outputs: List[int]
    attrs: Dict[str, object] = field(default_factory=dict)
    source: str = ""


class Graph:
    def __init__(self) -> None:
        self.values: List[Value] = []
        self.nodes: List[Node] = []
        self.tensors: Dict[str, torch.Tensor] = {}
        self._tensor_values: Dict[str, int] = {}
        self.inputs: List[int] = []
        self._producers: Dict[int, int] = {}
        self.source = ""  # user source line attached to nodes added now

    def add_input(self, shape: Sequence[int]) -> int:
        vid = self._new_value(shape, "input")
        self.inputs.append(vid)
        return vid

    def add_tensor(self, name: str, tensor: torch.Tensor) -> int:
        """A stored tensor (weight, buffer or folded constant), stored once under `name` (another
        value under a name already taken gets the name with a number appended)."""
        if tensor.is_floating_point() or tensor.dtype in (torch.bool, torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
            stored = tensor.detach().to(torch.float32).contiguous().clone()
        else:
            raise ExportError(f"constant '{name}' has dtype {tensor.dtype}, which the engine cannot store")
        if name in self._tensor_values:
            existing = self.tensors[name]
            if existing.shape == stored.shape and torch.equal(existing, stored):
                return self._tensor_values[name]
            suffix = 2
            while f"{name}.{suffix}" in self._tensor_values:
                suffix += 1
            name = f"{name}.{suffix}"
        self.tensors[name] = stored
        vid = self._new_value(tuple(tensor.shape), "tensor", name)
        self._tensor_values[name] = vid
        return vid

    def add_scalar(self, value: float) -> int:
        """A 0-d constant; the same number is stored once."""
        number = float(value)
        name = f"scalar.{number!r}"
        return self.add_tensor(name, torch.tensor(number, dtype=torch.float32))

    def add_node(self, op: str, inputs: Sequence[Optional[int]], out_shapes: Sequence[Sequence[int]], **attrs) -> List[int]:
        if op not in ENGINE_OPS and op != UNSUPPORTED_OP:
            raise AssertionError(f"'{op}' is not in the registry's ENGINE_OPS")
        outputs = [self._new_value(shape, "node") for shape in out_shapes]
        for output in outputs:
            self._producers[output] = len(self.nodes)
        self.nodes.append(Node(op, list(inputs), outputs, dict(attrs), self.source))
        return outputs

    def add(self, op: str, inputs: Sequence[Optional[int]], out_shape: Sequence[int], **attrs) -> int:
        return self.add_node(op, inputs, [out_shape], **attrs)[0]

    def producer_node(self, vid: int) -> Optional[Node]:
        index = self._producers.get(vid)
        return None if index is None else self.nodes[index]

    def shape(self, vid: int) -> Tuple[int, ...]:
        return self.values[vid].shape

    def _new_value(self, shape: Sequence[int], kind: str, tensor: Optional[str] = None) -> int:
        self.values.append(Value(tuple(int(d) for d in shape), kind, tensor))
        return len(self.values) - 1

    def finish(self, outputs: Sequence[int]) -> Tuple[dict, Dict[str, torch.Tensor]]:
        """Drops what the outputs do not need, renumbers values densely and returns (graph JSON, tensors)."""
        producer = {out: index for index, node in enumerate(self.nodes) for out in node.outputs}
        needed_nodes = set()
        needed_values = set(self.inputs)
        stack = list(outputs)
        while stack:
            vid = stack.pop()
            if vid in needed_values:
                continue
            needed_values.add(vid)
            if vid in producer and producer[vid] not in needed_nodes:
                node_index = producer[vid]
                needed_nodes.add(node_index)
                stack.extend(i for i in self.nodes[node_index].inputs if i is not None)
        for node_index in needed_nodes:
            needed_values.update(self.nodes[node_index].outputs)

        order = sorted(needed_values)
        renumber = {old: new for new, old in enumerate(order)}
        values_json = []
        tensors: Dict[str, torch.Tensor] = {}
        for old in order:
            value = self.values[old]
            entry: Dict[str, object] = {"shape": list(value.shape), "kind": value.kind}
            if value.kind == "tensor":
                entry["tensor"] = value.tensor
                tensors[value.tensor] = self.tensors[value.tensor]
            values_json.append(entry)
        nodes_json = []
        for index, node in enumerate(self.nodes):
            if index not in needed_nodes:
                continue
            entry = {
                "op": node.op,
                "inputs": [None if i is None else renumber[i] for i in node.inputs],
                "outputs": [renumber[o] for o in node.outputs],
            }
            if node.attrs:
                entry["attrs"] = node.attrs
            if node.source:
                entry["source"] = node.source
            nodes_json.append(entry)
        graph = {
            "inputs": [renumber[i] for i in self.inputs],
            "outputs": [renumber[o] for o in outputs],
            "values": values_json,
            "nodes": nodes_json,
        }
        return graph, tensors
