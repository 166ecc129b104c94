"""sonotype.engine's classify calls against `sonotype classify`: csv_header() + csv_error_row() +
classify_csv() per file equal the command line's output byte for byte (windows, --grid, --classes,
--smooth, --embeddings, --segments, --summary, --onsets), classify_file()'s numbers formatted as the
command line formats them give its rows, audio_files() its file list, and failures and warnings
carry its messages."""

import csv
import io
import os
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import sonotype.engine as engine
from sonotype.engine_cli import cli_path

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (keywords, the same options on the command line)
OPTIONS = {
    "windows": ({}, []),
    "grid": ({"grid": True, "hop": 0.5}, ["--grid", "--hop", "0.5"]),
    "classes": ({"classes": ["drums", "piano", "speech"], "smooth": 0.5}, ["--classes", "drums,piano,speech", "--smooth", "0.5"]),
    "embeddings": ({"embeddings": True, "hop": 1}, ["--embeddings", "--hop", "1"]),
    "segments": ({"segments": True, "threshold": 40}, ["--segments", "--threshold", "40"]),
    "summary": ({"summary": True}, ["--summary"]),
    "onsets": ({"onsets": True, "onset_threshold": 1.0}, ["--onsets", "--onset-threshold", "1.0"]),
}


def write_wav(path, samples, rate=16000):
    import wave
    data = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(data)
    return path


@pytest.fixture(scope="module")
def audio(tmp_path_factory):
    """A folder of real examples and made files: a short one (padded), one with a tail, one that
    is not audio (an error row), one truncated (a warning), and a text file (skipped)."""
    folder = tmp_path_factory.mktemp("audio")
    for name in ("drums.wav", "piano.wav", "speech.wav"):
        shutil.copy(os.path.join(REPO, "Resources", "examples", name), folder / name)
    rng = np.random.default_rng(5)
    t = np.arange(16000 * 3) / 16000
    write_wav(folder / "short.wav", 0.3 * np.sin(2 * np.pi * 220 * t[:6000]))
    clicks = np.zeros_like(t)
    clicks[::4000] = 0.9
    write_wav(folder / "tail.wav", 0.2 * np.sin(2 * np.pi * 330 * t[:37000]) + clicks[:37000] + 0.01 * rng.standard_normal(37000))
    data = (folder / "tail.wav").read_bytes()
    (folder / "truncated.wav").write_bytes(data[: len(data) * 2 // 3])
    (folder / "broken.wav").write_bytes(b"RIFF not really a wave file")
    (folder / "notes.txt").write_text("not audio")
    return folder


@pytest.fixture(scope="module", params=["built-in", "tiny_classifier"])
def model(request):
    if request.param == "built-in":
        return engine.Model(), []
    fixtures = os.environ.get("SONOTYPE_FIXTURES") or os.path.join(REPO, "build", "fixtures")
    path = os.path.join(fixtures, "tiny_classifier.safetensors")
    assert os.path.isfile(path), "run `ctest -R export_fixture_models` in the build folder first"
    return engine.Model(path), ["--model", path]


def classify(*args):
    return subprocess.run([cli_path(), "classify", *map(str, args)], capture_output=True, text=True)


def usable(model, name):
    """The option set `name` as keywords and as classify's arguments, fitted to the model (skipped
    where the model cannot take it)."""
    if name == "embeddings" and model.embedding_output is None:
        pytest.skip("this model has no embedding output")
    keywords, _ = OPTIONS[name]
    if "classes" in keywords and not set(keywords["classes"]) <= set(model.labels):
        keywords = {**keywords, "classes": model.labels[:3]}
    return keywords, cli_options(keywords)


def cli_options(keywords):
    args = []
    for key, value in keywords.items():
        option = "--" + key.replace("_", "-")
        if value is True:
            args.append(option)
        elif isinstance(value, list):
            args += [option, ",".join(value)]
        else:
            args += [option, str(value)]
    return args


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_header_error_rows_and_each_files_csv_equal_classify_jobs_byte_for_byte(model, audio, name):
    m, model_args = model
    keywords, args = usable(m, name)
    missing = str(audio / "missing.wav")
    expected = classify(*model_args, *args, "--jobs", "2", str(audio), missing)
    assert expected.returncode == 1  # broken.wav and the missing path fail

    files, skipped, errors = engine.audio_files([str(audio), missing])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = m.csv_header(**keywords)
        text += "".join(m.csv_error_row(path, message, **keywords) for path, message in errors)
        text += "".join(m.classify_csv(f, **keywords) for f in files)
    assert text == expected.stdout
    # The warnings are the command line's "warning: " lines, and skipped what it names as skipped.
    said = expected.stderr.splitlines()
    assert sorted(f"warning: {w.message}" for w in caught) == sorted(line for line in said if line.startswith("warning: "))
    assert all(issubclass(w.category, engine.ClassifyWarning) for w in caught)
    assert [f"skipped: {path}: {why}" for path, why in skipped] == [line for line in said if line.startswith("skipped: ")]


def csv_field(text):
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def number(value, decimals):
    return "nan" if not np.isfinite(value) else f"{value:.{decimals}f}"


def formatted(row, labels):
    """A classify_file() row as `sonotype classify` writes it (its error column left out)."""
    fields = []
    for key, value in row.items():
        if key in ("file", "label"):
            fields.append("" if value is None else csv_field(value))
        elif key in ("padded", "tail"):
            fields.append("1" if value else "0")
        elif key == "windows":
            fields.append(str(value))
        elif key.startswith("embedding_"):
            fields.append("nan" if not np.isfinite(value) else f"{value:.9g}")
        elif key in ("start_s", "end_s", "time_s", "duration_s", "share") or ("share" in row and key in labels):
            fields.append(number(value, 3))  # times, and a summary's shares
        elif key == "level_db":
            fields.append(number(value, 1))
        else:
            fields.append(number(value, 6))  # confidences, probabilities, mean probabilities
    return fields


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_classify_file_values_formatted_as_the_cli_does_give_its_rows(model, audio, name):
    m, model_args = model
    keywords, args = usable(m, name)
    for file in ("drums.wav", "short.wav", "tail.wav"):
        path = str(audio / file)
        expected = list(csv.reader(io.StringIO(classify(*model_args, *args, path).stdout)))
        header, rows = expected[0], expected[1:]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = m.classify_file(path, **keywords)
        assert len(got) == len(rows) and (name != "summary" or len(got) == 1)
        for row, cli_row in zip(got, rows):
            assert list(row) == [column for column in header[:-1]]  # every column but the error
            assert formatted(row, m.labels or [f"class{i}" for i in range(4)]) + [""] == cli_row
            assert all(isinstance(v, float) for k, v in row.items() if k not in ("file", "label", "padded", "tail", "windows"))
    if name == "windows":
        flags = [(r["padded"], r["tail"]) for r in m.classify_file(str(audio / "short.wav")) + m.classify_file(str(audio / "tail.wav"))]
        assert (True, False) in flags and (False, True) in flags  # both kinds of window were compared


def test_failures_raise_with_the_cli_message_and_warnings_are_the_cli_warnings(audio):
    m = engine.Model()
    for name in ("broken.wav", "missing.wav"):
        path = str(audio / name)
        result = classify(path)
        error_line = next(line for line in result.stderr.splitlines() if line.startswith("error: "))
        with pytest.raises(engine.ClassifyError) as caught:
            m.classify_file(path)
        assert f"error: {caught.value}" == error_line
        # classify_csv() gives the error row instead, as the command line writes it.
        assert m.csv_header() + m.classify_csv(path) == result.stdout
    path = str(audio / "truncated.wav")
    result = classify(path)
    with pytest.warns(engine.ClassifyWarning) as caught:
        rows = m.classify_file(path)
    assert [f"warning: {w.message}" for w in caught] == [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert len(rows) == len(result.stdout.splitlines()) - 1


def test_options_the_cli_refuses_raise_option_error_with_its_message(audio):
    m = engine.Model()
    path = str(audio / "drums.wav")
    for keywords, args in (({"hop": 0}, ["--hop", "0"]), ({"threshold": 101}, ["--threshold", "101"]),
                           ({"classes": ["drums", "kazoo"]}, ["--classes", "drums,kazoo"]),
                           ({"summary": True, "segments": True}, ["--summary", "--segments"]),
                           ({"onsets": True, "response": "live"}, ["--onsets", "--response", "live"]),
                           ({"response": "later"}, ["--response", "later"])):
        result = classify(*args, path)
        assert result.returncode == 2
        with pytest.raises(engine.OptionError) as caught:
            m.classify_file(path, **keywords)
        assert f"error: {caught.value}" == result.stderr.strip().splitlines()[-1]
    with pytest.raises(TypeError, match="unexpected keyword argument 'format'"):
        m.classify_file(path, format="json")
    with pytest.raises(TypeError, match="onsets must be True or False"):
        m.classify_file(path, onsets=1)
    with pytest.raises(TypeError, match="hop must be a number"):
        m.classify_file(path, hop="0.5")
    with pytest.raises(engine.OptionError, match="is a folder"):
        m.classify_file(str(audio))


def test_a_model_without_a_front_end_cannot_classify():
    fixtures = os.environ.get("SONOTYPE_FIXTURES") or os.path.join(REPO, "build", "fixtures")
    path = os.path.join(fixtures, "seed000.safetensors")
    result = classify("--model", path, os.path.join(REPO, "Resources", "examples", "drums.wav"))
    with pytest.raises(engine.ModelError) as caught:
        engine.Model(path).classify_file(os.path.join(REPO, "Resources", "examples", "drums.wav"))
    assert f"error: {caught.value}" == result.stderr.strip().splitlines()[-1]
