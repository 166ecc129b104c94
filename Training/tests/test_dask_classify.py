"""A folder classified on a Dask cluster (a LocalCluster of 2 worker processes, the in-process
engine in each) gives what `sonotype classify --jobs 2` gives on the same folder: the same CSV byte
for byte, the same files skipped, one model loaded per worker."""

import io
import os
import shutil
import subprocess
import wave
from pathlib import Path

import distributed
import numpy as np
import pandas
import pytest

from sonotype import dask as sonotype_dask
from sonotype import engine
from sonotype.engine_cli import cli_path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "Resources" / "examples"


def write_tone(path: Path, seconds: float, frequency: float, rate: int = 22050) -> None:
    t = np.arange(int(seconds * rate)) / rate
    samples = (0.4 * np.sin(2 * np.pi * frequency * t) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.tobytes())


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Path:
    """A small library as users have them: nested folders, a short file, a tail, a damaged file and
    a file classify skips."""
    root = tmp_path_factory.mktemp("library")
    (root / "drums").mkdir()
    (root / "keys" / "takes").mkdir(parents=True)
    for name in ("drums.wav", "noise.wav", "speech.wav"):
        shutil.copy(EXAMPLES / name, root / "drums" / name if name == "drums.wav" else root / name)
    shutil.copy(EXAMPLES / "piano.wav", root / "keys" / "piano.wav")
    shutil.copy(EXAMPLES / "guitar.wav", root / "keys" / "takes" / "guitar take 1.wav")
    write_tone(root / "keys" / "short.wav", 0.4, 440.0)
    write_tone(root / "keys" / "takes" / "tail.wav", 2.6, 220.0)
    (root / "keys" / "broken.wav").write_bytes(b"RIFF\x10\x00\x00\x00WAVEjunk" + bytes(64))
    (root / "notes.txt").write_text("not audio\n")
    return root


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            yield client


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([cli_path(), "classify", "--jobs", "2", *args], capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    "cli_options, options",
    [
        ([], {}),
        (["--hop", "0.5", "--smooth", "0.3"], {"hop": 0.5, "smooth": 0.3}),
        (["--segments"], {"segments": True}),
        (["--summary"], {"summary": True}),
        (["--onsets"], {"onsets": True}),
    ],
    ids=["windows", "hop-smooth", "segments", "summary", "onsets"],
)
def test_cluster_csv_equals_classify_jobs(client, library, cli_options, options):
    expected = run_cli(*cli_options, str(library))
    result = sonotype_dask.classify_folder(client, [str(library)], **options)
    assert result.csv == expected.stdout
    assert expected.stdout.count("\n") > 2
    # The damaged file is an error row in both; the text file is skipped in both.
    assert result.failed == [str(library / "keys" / "broken.wav")]
    assert expected.returncode == 1
    assert [path for path, _ in result.skipped] == [str(library / "notes.txt")]
    for path, reason in result.skipped:
        assert f"skipped: {path}: {reason}" in expected.stderr


@pytest.mark.parametrize("files_per_task", [1, 3, 100])
def test_any_split_into_tasks_gives_the_same_csv(client, library, files_per_task):
    result = sonotype_dask.classify_folder(client, [str(library)], files_per_task=files_per_task)
    assert result.csv == run_cli(str(library)).stdout


def test_dataframe_and_output_file(client, library, tmp_path):
    model = REPO / "Resources" / "models" / "default.safetensors"
    expected = run_cli("--model", str(model), str(library))
    written = tmp_path / "out" / "rows.csv"
    written.parent.mkdir()
    result = sonotype_dask.classify_folder(client, [str(library)], model=str(model), output=str(written))
    assert written.read_text() == expected.stdout == result.csv
    frame = result.frame
    cli_frame = pandas.read_csv(io.StringIO(expected.stdout), keep_default_na=False, na_values=[])
    pandas.testing.assert_frame_equal(frame, cli_frame)
    classified = frame[frame["error"] == ""]
    assert set(classified["file"]) == {str(p) for p in result.files} - {str(library / "keys" / "broken.wav")}
    assert (classified.loc[classified["file"].str.endswith("drums.wav"), "label"] == "drums").all()


def test_one_model_per_worker_process(client, library):
    sonotype_dask.classify_folder(client, [str(library)])
    loaded = client.run(sonotype_dask.models_loaded)
    assert len(loaded) == 2
    # Each worker loaded each model it used once (the built-in model, and the file model of another
    # test if it ran first), however many files it classified.
    assert all(1 <= count <= 2 for count in loaded.values())
    pids = client.run(os.getpid)
    assert len(set(pids.values())) == 2


def test_bad_model_fails_once_with_the_engine_message(client, tmp_path):
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}garbage")
    expected = subprocess.run([cli_path(), "classify", "--model", str(bad), str(EXAMPLES)], capture_output=True, text=True)
    assert expected.returncode != 0
    with pytest.raises(engine.ModelError) as error:
        sonotype_dask.classify_folder(client, [str(EXAMPLES)], model=str(bad))
    assert str(error.value) in expected.stderr


def test_command_line_local_cluster(library, tmp_path):
    out = tmp_path / "cli.csv"
    env = dict(os.environ)
    done = subprocess.run(
        ["/usr/bin/python3", "-m", "sonotype.dask", "--local", "2", "--output", str(out), str(library)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 1, done.stderr  # the damaged file failed, as classify's exit status says
    assert out.read_text() == run_cli(str(library)).stdout
    assert "total: 7 classified, 1 failed, 1 skipped" in done.stderr


def test_a_missing_path_is_an_error_row_as_in_classify(client, library):
    missing = str(library / "no such take.wav")
    expected = run_cli(missing, str(library / "keys"))
    result = sonotype_dask.classify_folder(client, [missing, str(library / "keys")])
    assert result.csv == expected.stdout
    assert result.csv.splitlines()[1].startswith(missing + ",")
    assert missing in result.failed


def test_the_comparison_sees_a_different_option(client, library):
    """The equality above is not vacuous: another hop gives other rows."""
    assert sonotype_dask.classify_folder(client, [str(library)], hop=0.5).csv != run_cli(str(library)).stdout
