"""The engine op names the exporter can write are ones the engine runs.

The exporter's list is `registry.ENGINE_OPS` (a graph refuses any other name); the engine's is what
`sonotype inspect --ops` prints: a JSON array of objects with a "name" under `--format json`, else
one name a line."""

import ast
import json
import os
import subprocess

import pytest

from sonotype.engine_cli import cli_path
from sonotype.export.graph import Graph
from sonotype.export.registry import ENGINE_OPS, UNSUPPORTED_OP

EXPORT_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sonotype", "export"))


def engine_op_names():
    cli = cli_path()
    as_json = subprocess.run([cli, "inspect", "--ops", "--format", "json"], capture_output=True, text=True)
    if as_json.returncode == 0:
        return {entry["name"] for entry in json.loads(as_json.stdout)}
    plain = subprocess.run([cli, "inspect", "--ops"], capture_output=True, text=True, check=True)
    return {line.split()[0] for line in plain.stdout.splitlines() if line.strip()}


def emitted_literals():
    """{op name: where} for every `.add("op", ...)` / `.add_node("op", ...)` in the exporter's source."""
    found = {}
    for folder, _, files in os.walk(EXPORT_ROOT):
        for file in (f for f in files if f.endswith(".py")):
            path = os.path.join(folder, file)
            for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr in ("add", "add_node") and node.args
                        and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
                    found.setdefault(node.args[0].value, f"{os.path.relpath(path, EXPORT_ROOT)}:{node.lineno}")
    return found


def test_every_op_the_exporter_can_emit_is_in_the_engine():
    engine = engine_op_names()
    assert "gemm" in engine and "conv" in engine  # the table was read
    missing = sorted(ENGINE_OPS - engine)
    assert not missing, f"the exporter can write ops the engine does not run: {missing}"


def test_the_exporter_source_emits_only_listed_ops():
    literals = emitted_literals()
    assert "gemm" in literals and "rnn" in literals and "stft" in literals  # the source was read
    unlisted = {op: where for op, where in literals.items() if op not in ENGINE_OPS and op != UNSUPPORTED_OP}
    assert not unlisted, f"engine ops emitted but not in registry.ENGINE_OPS: {unlisted}"


def test_a_graph_refuses_an_unlisted_op():
    graph = Graph()
    x = graph.add_input([1, 4])
    graph.add("relu", [x], [1, 4])
    with pytest.raises(AssertionError, match="ENGINE_OPS"):
        graph.add("no_such_op", [x], [1, 4])
