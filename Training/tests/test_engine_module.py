"""sonotype.engine, the engine in-process: Model.run() equals `sonotype run-model` bit for bit, a bad
model file or input raises with the engine's message, and run() releases the GIL (two threads run
two models at once while the main thread keeps running Python)."""

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import sonotype.engine as engine
from sonotype.engine_cli import cli_path, run_model

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILTIN_FILE = os.path.join(REPO, "Resources", "models", "default.safetensors")


def fixtures_dir():
    return os.environ.get("SONOTYPE_FIXTURES") or os.path.join(REPO, "build", "fixtures")


def fixture(name):
    path = os.path.join(fixtures_dir(), f"{name}.safetensors")
    if not os.path.isfile(path):
        pytest.fail(f"{path} is missing: run `ctest -R export_fixture_models` in the build folder first")
    return path, np.load(os.path.join(fixtures_dir(), f"{name}.input.npy"))


def cli_error(*args):
    """What `sonotype` prints after "error: " when it refuses the command."""
    result = subprocess.run([cli_path(), *args], capture_output=True, text=True)
    assert result.returncode != 0, result
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("error: "), result.stderr
    return line[len("error: "):]


def same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("name", ["seed000", "tiny_classifier", "recurrent_tagger", "waveform_classifier", "large_transformer"])
def test_run_equals_run_model_bit_for_bit(name):
    path, x = fixture(name)
    model = engine.Model(path)
    assert model.input_shape == x.shape
    y = model.run(x)
    assert isinstance(y, np.ndarray) and y.dtype == np.float32 and y.shape == model.outputs[0]
    assert same_bits(y, run_model(path, x))
    # Run again (the session is reused) and on a fresh input: still run-model's numbers.
    assert same_bits(model.run(x), y)
    x2 = np.random.default_rng(7).standard_normal(x.shape).astype(np.float32)
    assert same_bits(model.run(x2), run_model(path, x2))


def test_builtin_model_is_the_shipped_file_and_gives_each_output_as_run_model():
    model = engine.Model()
    assert model.path is None and "built-in" in repr(model)
    assert len(model.labels) == 12 and model.labels[0] == "silence"
    assert model.embedding_output == 1 and len(model.outputs) == 2
    x = np.random.default_rng(3).standard_normal(model.input_shape).astype(np.float32)
    scores, embedding = model.run(x)
    assert same_bits(scores, run_model(BUILTIN_FILE, x, output_index=0))
    assert same_bits(embedding, run_model(BUILTIN_FILE, x, output_index=1))
    from_file = engine.Model(BUILTIN_FILE)
    assert from_file.labels == model.labels and from_file.path == BUILTIN_FILE
    assert all(same_bits(a, b) for a, b in zip(from_file.run(x), (scores, embedding)))


def test_inputs_in_any_memory_layout_give_the_same_bits():
    path, x = fixture("seed000")
    model = engine.Model(path)
    expected = model.run(x)
    fortran = np.asfortranarray(x)
    strided = np.repeat(x, 2, axis=-1)[..., ::2]
    big_endian = x.astype(">f4")
    for variant in (fortran, strided):
        assert not variant.flags.c_contiguous and np.array_equal(variant, x)
        assert same_bits(model.run(variant), expected)
    with pytest.raises(TypeError, match="float32"):
        model.run(big_endian)


def test_a_bad_model_file_raises_model_error_with_the_engine_message(tmp_path):
    path, _ = fixture("seed000")
    data = open(path, "rb").read()
    truncated = tmp_path / "truncated.safetensors"
    truncated.write_bytes(data[: len(data) // 2])
    garbage = tmp_path / "garbage.safetensors"
    garbage.write_bytes(b"this is not a model file at all" * 10)
    missing = tmp_path / "missing.safetensors"
    npy = tmp_path / "in.npy"
    np.save(npy, np.zeros((1,), np.float32))
    for bad in (truncated, garbage, missing):
        with pytest.raises(engine.ModelError) as caught:
            engine.Model(str(bad))
        assert isinstance(caught.value, ValueError)
        assert str(caught.value) == cli_error("run-model", str(bad), "--input", str(npy))
    # A path-like works as a str does; the budgets are the command line's, messages and all.
    with pytest.raises(engine.ModelError) as caught:
        engine.Model(missing)
    assert str(caught.value) == cli_error("run-model", str(missing), "--input", str(npy))
    large, _ = fixture("large_transformer")
    with pytest.raises(engine.ModelError) as caught:
        engine.Model(large, max_memory=1)
    assert str(caught.value) == cli_error("run-model", large, "--input", str(npy), "--max-memory", "1")
    with pytest.raises(engine.ModelError) as caught:
        engine.Model(path, max_ops=1000)
    assert str(caught.value) == cli_error("run-model", path, "--input", str(npy), "--max-ops", "1000")
    with pytest.raises(engine.OptionError) as caught:
        engine.Model(path, max_ops=0)
    assert str(caught.value) == cli_error("run-model", path, "--input", str(npy), "--max-ops", "0")


def test_wrong_inputs_raise_with_a_clear_message():
    path, x = fixture("seed000")
    model = engine.Model(path)
    with pytest.raises(TypeError, match=r"the input is float64, the model takes float32"):
        model.run(x.astype(np.float64))
    with pytest.raises(TypeError, match=r"numpy.ndarray of float32, not list"):
        model.run(x.tolist())
    with pytest.raises(ValueError, match=r"the input has shape \[1, 64, 99\], the model expects \[1, 64, 100\]"):
        model.run(x[..., :99])
    with pytest.raises(ValueError, match=r"has shape \[64, 100\]"):
        model.run(x[0])
    with pytest.raises(TypeError, match="one array per model input: the model has 1, 2 given"):
        model.run(x, x)


def test_one_model_from_several_threads_gives_each_its_own_session():
    path, x = fixture("recurrent_tagger")
    model = engine.Model(path)
    rng = np.random.default_rng(11)
    inputs = [rng.standard_normal(x.shape).astype(np.float32) for _ in range(4)]
    expected = [model.run(each) for each in inputs]
    results = {}

    def work(k):
        results[k] = [model.run(inputs[(k + i) % 4]) for i in range(40)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for k, outputs in results.items():
        assert all(same_bits(y, expected[(k + i) % 4]) for i, y in enumerate(outputs))


def test_run_releases_the_gil_two_threads_run_two_models_at_once():
    """Two threads each run a model of their own (about 40 ms a call) while the main thread steps
    through a Python loop, reading at each step the CPU time each thread has used so far (a
    thread's CPU clock advances without the GIL). Were the GIL held through run(), the main thread
    could not step while a call is under way: each call's CPU time would fall between two of its
    steps, in one gap of a whole call. Released, the threads' CPU time comes in pieces smaller than
    half a call between the main thread's steps (the gaps are the main thread's waits for a core,
    a few ms on a loaded machine), and in the same gaps for both threads: the main thread runs
    Python while both models run at once. Nothing about speed is asserted, only where the threads'
    CPU time falls among the main thread's steps, measured against their own calls' CPU time."""
    path, x = fixture("large_transformer")
    models = [engine.Model(path), engine.Model(path)]
    expected = models[0].run(x)
    outputs = [[], []]
    call_cpu = [[], []]
    ready = threading.Barrier(3)
    done = [threading.Event(), threading.Event()]
    finish = threading.Event()

    def work(k):
        ready.wait()
        for _ in range(8):
            start = time.thread_time()
            outputs[k].append(models[k].run(x))
            call_cpu[k].append(time.thread_time() - start)
        done[k].set()
        finish.wait()  # alive, so that its CPU clock can still be read

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    clocks = [time.pthread_getcpuclockid(thread.ident) for thread in threads]
    samples = []
    ready.wait()
    while not all(event.is_set() for event in done):
        sum(range(100))  # a step of Python
        samples.append([time.clock_gettime(clock) for clock in clocks])
    finish.set()
    for thread in threads:
        thread.join()

    assert all(same_bits(y, expected) for y in outputs[0] + outputs[1])
    used = np.diff(np.array(samples), axis=0)  # [gap between two steps, thread]: CPU seconds
    total = used.sum(axis=0)
    half_call = 0.5 * np.array([np.median(call_cpu[k]) for k in range(2)])
    small = used < half_call
    share_small = [used[small[:, k], k].sum() / total[k] for k in range(2)]
    both = small.all(axis=1)
    together = np.minimum(used[:, 0], used[:, 1])[both].sum()
    print(f"{len(samples)} main-thread steps; CPU time of the threads: {total[0]:.3f} s and {total[1]:.3f} s "
          f"(calls of {2000 * half_call[0]:.0f} and {2000 * half_call[1]:.0f} ms), {share_small[0]:.0%} and "
          f"{share_small[1]:.0%} of it between steps less than half a call apart; {together:.3f} s used by "
          f"both threads in the same gaps")
    assert min(share_small) > 0.5, "the main thread did not step while run() ran: the GIL is held"
    assert together > 0.25 * total.min(), "the two models did not run at the same time"


def test_version_is_the_projects():
    import re

    import sonotype
    with open(os.path.join(REPO, "CMakeLists.txt")) as f:
        version = re.search(r"^project\(Sonotype VERSION ([0-9.]+)", f.read(), re.M).group(1)
    assert engine.__version__ == version == sonotype.__version__
    cli = subprocess.run([cli_path(), "--version"], capture_output=True, text=True, check=True).stdout.strip()
    assert cli == f"sonotype {version}"


def test_importing_sonotype_imports_neither_torch_nor_the_engine():
    code = "import sys, sonotype; print('torch' in sys.modules, 'sonotype.engine' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "False"]


def test_a_pickled_model_loads_its_file_again():
    import pickle

    path, x = fixture("seed000")
    model = engine.Model(path, max_memory=512)
    again = pickle.loads(pickle.dumps(model))
    assert again.path == path and again.outputs == model.outputs
    assert same_bits(again.run(x), model.run(x))
    builtin = pickle.loads(pickle.dumps(engine.Model()))
    assert builtin.path is None and len(builtin.labels) == 12
