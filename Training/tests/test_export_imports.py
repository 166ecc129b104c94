"""The Python package's imports form no circle, and every module of the exporter imports on its own.

The import graph is read from the source with `ast`: every `import` and `from ... import`
between modules of `sonotype`, including the ones inside functions (an import deferred to call
time that closes a circle is still a circle)."""

import ast
import json
import os
import subprocess
import sys

PACKAGE_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sonotype"))
TRAINING = os.path.dirname(PACKAGE_ROOT)


def _modules():
    """{module name: (file path, is a package)} of every module of sonotype."""
    modules = {}
    for folder, subfolders, files in os.walk(PACKAGE_ROOT):
        subfolders[:] = [d for d in subfolders if os.path.isfile(os.path.join(folder, d, "__init__.py"))]
        for file in files:
            if not file.endswith(".py"):
                continue
            path = os.path.join(folder, file)
            parts = os.path.relpath(path, TRAINING)[:-len(".py")].split(os.sep)
            is_package = parts[-1] == "__init__"
            name = ".".join(parts[:-1] if is_package else parts)
            modules[name] = (path, is_package)
    return modules


def import_graph():
    """{module: set of sonotype modules it imports}."""
    modules = _modules()
    graph = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
            if isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names if alias.name in modules)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                for alias in node.names:
                    if f"{source}.{alias.name}" in modules:
                        edges.add(f"{source}.{alias.name}")
                    elif source in modules:
                        edges.add(source)
        edges.discard(name)
        graph[name] = edges
    return graph


def find_cycle(graph):
    """One import circle as [a, b, ..., a], or None."""
    state = {}
    stack = []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            if cycle:
                return cycle
    return None


def test_the_import_graph_is_read():
    graph = import_graph()
    assert "sonotype.export.recorder" in graph["sonotype.export.exporter"]
    assert "sonotype.export.registry" in graph["sonotype.export.handlers.layout"]


def test_no_import_circle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_registry_imports_no_handler():
    graph = import_graph()
    reachable, todo = set(), ["sonotype.export.registry"]
    while todo:
        for target in graph[todo.pop()]:
            if target not in reachable:
                reachable.add(target)
                todo.append(target)
    assert not {m for m in reachable if m.startswith("sonotype.export.handlers")}


_IMPORT_EACH_FIRST = """
import importlib, json, sys
names = json.loads(sys.argv[1])
tables = {}
for name in names:
    for loaded in [m for m in sys.modules if m == "sonotype" or m.startswith("sonotype.")]:
        del sys.modules[loaded]
    importlib.import_module(name)
    importlib.import_module("sonotype.export")
    importlib.import_module("sonotype.export.onnx_ops")
    registry = sys.modules["sonotype.export.registry"]
    tables[name] = {table: sorted(map(str, getattr(registry, table)))
                    for table in ("HANDLERS", "COMPLEX_HANDLERS", "TAKES_COMPLEX", "FUNCTION_HANDLERS", "ONNX_OPS")}
print(json.dumps(tables))
"""


def test_each_exporter_module_imports_first_and_the_tables_are_whole():
    """Each module of sonotype.export imported first in a clean interpreter state: it imports, and
    the registry's tables end up the same whichever module came first."""
    names = sorted(name for name in _modules() if name.startswith("sonotype.export"))
    result = subprocess.run([sys.executable, "-c", _IMPORT_EACH_FIRST, json.dumps(names)], capture_output=True,
                            text=True, cwd=TRAINING, env=dict(os.environ, PYTHONPATH=TRAINING))
    assert result.returncode == 0, result.stderr
    tables = json.loads(result.stdout)
    reference = tables["sonotype.export"]
    assert reference["HANDLERS"] and reference["COMPLEX_HANDLERS"] and reference["FUNCTION_HANDLERS"]
    assert reference["ONNX_OPS"]
    for name, found in tables.items():
        assert found == reference, f"importing {name} first changes the registry's tables"


def test_the_recorder_brings_its_handlers():
    script = ("import sonotype.export.recorder, sonotype.export.registry as r; "
              "print(len(r.HANDLERS), len(r.FUNCTION_HANDLERS), len(r.COMPLEX_HANDLERS))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=TRAINING,
                            env=dict(os.environ, PYTHONPATH=TRAINING))
    assert result.returncode == 0, result.stderr
    assert all(int(count) > 0 for count in result.stdout.split())
