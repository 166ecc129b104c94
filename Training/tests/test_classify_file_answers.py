"""What `sonotype classify` answers for whole files, by default: a file's summary is the class that holds
most of its time in its segments (silence only when no other class holds any), a short file ends at its
true end, a file that could not be classified is a row with its error (exit 1), warnings leave the exit
code 0, and every run ends with its totals on stderr."""

import csv
import io
import json
import subprocess

import pytest

from test_classify import sonotype
from test_classify_segments import EXAMPLES


def parse_csv(text):
    return list(csv.reader(io.StringIO(text)))


def summary_of(*args):
    result = sonotype("classify", "--summary", *args)
    header, *rows = parse_csv(result.stdout)
    return result, [dict(zip(header, row)) for row in rows]


@pytest.fixture(scope="module")
def material(tmp_path_factory):
    folder = tmp_path_factory.mktemp("file_answers")

    def sox(*args):
        subprocess.run(["sox", *map(str, args)], check=True)

    # 2 s of drums, then 3 s of digital silence: the mean of the windows is silence's.
    sox(EXAMPLES / "drums.wav", folder / "drums_then_silence.wav", "pad", "0", "3")
    sox("-n", "-r", "16000", "-b", "16", "-c", "1", folder / "silence.wav", "synth", "3", "sine", "440", "vol", "0")
    sox(EXAMPLES / "drums.wav", folder / "drums_0.1s.wav", "trim", "0", "0.1")
    sox(EXAMPLES / "noise.wav", folder / "noise_0.1s.wav", "trim", "0", "0.1")  # its one window reaches no class's threshold
    good = (EXAMPLES / "speech.wav").read_bytes()
    (folder / "truncated.wav").write_bytes(good[:len(good) // 2])  # the header claims twice what the file holds
    (folder / "corrupt.wav").write_bytes(b"RIFF\x10\x00\x00\x00WAVEfmt " + bytes(200))
    return folder


def test_the_summary_is_the_class_that_holds_most_of_the_time(material):
    result, rows = summary_of(material / "drums_then_silence.wav")
    assert result.returncode == 0, result.stderr
    row = rows[0]
    # silence holds more time than the drums, and the mean of the windows is silence's ...
    assert float(row["silence"]) > float(row["drums"]) > 0.3
    assert float(row["mean_silence"]) > float(row["mean_drums"])
    # ... but silence is the label only when no other class holds any time
    assert row["label"] == "drums" and row["share"] == row["drums"]
    assert row["duration_s"] == "5.000" and sum(float(row[c]) for c in ("silence", "drums")) <= 1.0 + 1e-3


def test_silence_is_the_label_when_nothing_else_holds_any_time(material):
    result, rows = summary_of(material / "silence.wav")
    assert result.returncode == 0, result.stderr
    assert rows[0]["label"] == "silence" and float(rows[0]["share"]) > 0.9


def test_a_short_file_is_held_by_its_window_s_class_or_by_none(material):
    result, rows = summary_of(material / "drums_0.1s.wav", material / "noise_0.1s.wav")
    assert result.returncode == 0, result.stderr
    drums, noise = rows
    assert (drums["label"], drums["share"], drums["drums"], drums["duration_s"], drums["windows"]) == ("drums", "1.000", "1.000", "0.100", "1")
    windows = parse_csv(sonotype("classify", material / "noise_0.1s.wav").stdout)
    assert 0.3 <= float(windows[1][4]) < 0.9  # the default threshold (30 %) is reached, 90 % is not
    assert (noise["label"], noise["share"], noise["duration_s"]) == (windows[1][3], "1.000", "0.100")
    _, (strict,) = summary_of("--threshold", "90", material / "noise_0.1s.wav")
    assert (strict["label"], strict["share"], strict["duration_s"]) == ("", "0.000", "0.100")  # nothing holds the file
    objects = json.loads(sonotype("classify", "--summary", "--threshold", "90", "--format", "json", material / "noise_0.1s.wav").stdout)
    assert objects[0]["label"] is None and objects[0]["share"] == 0 and objects[0]["duration_s"] == 0.1


def test_a_0_1_s_file_ends_at_its_true_end(material):
    result = sonotype("classify", material / "drums_0.1s.wav")
    assert result.returncode == 0, result.stderr
    header, row = parse_csv(result.stdout)
    assert row[1:4] == ["0.000", "0.100", "drums"] and dict(zip(header, row))["padded"] == "1"
    objects = json.loads(sonotype("classify", "--format", "json", material / "drums_0.1s.wav").stdout)
    assert (objects[0]["end_s"], objects[0]["padded"], objects[0]["tail"]) == (0.1, True, False)


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_failed_files_are_rows_with_their_error_and_totals(material, fmt):
    paths = [material / "drums_0.1s.wav", material / "corrupt.wav", material / "truncated.wav", material / "missing.wav"]
    result = sonotype("classify", "--summary", "--format", fmt, *paths)
    assert result.returncode == 1
    if fmt == "csv":
        header, *rows = parse_csv(result.stdout)
        assert header[-1] == "error" and all(len(row) == len(header) for row in rows)
        rows = [dict(zip(header, row)) for row in rows]
    else:
        rows = json.loads(result.stdout)
    errors = {row["file"]: row["error"] for row in rows if row.get("error")}
    assert set(errors) == {str(material / "corrupt.wav"), str(material / "missing.wav")}
    assert errors[str(material / "missing.wav")] == "no such file or folder"
    assert errors[str(material / "corrupt.wav")].startswith("not a readable audio file")
    classified = [row for row in rows if not row.get("error")]
    assert [row["label"] for row in classified] == ["drums", "speech"]
    assert result.stderr.splitlines()[-1] == "total: 2 classified (1 with warnings), 2 failed, 0 skipped"


def test_warnings_alone_exit_0(material):
    result = sonotype("classify", material / "truncated.wav", material / "drums_0.1s.wav")
    assert result.returncode == 0, result.stderr
    assert f"warning: {material / 'truncated.wav'}: the header claims" in result.stderr
    assert result.stderr.splitlines()[-1] == "total: 2 classified (1 with warnings), 0 failed, 0 skipped"
    rows = parse_csv(result.stdout)[1:]
    assert rows and all(row[-1] == "" for row in rows)  # no error row: the truncated file is classified as far as it goes


def test_a_folder_with_a_mix(material):
    result = sonotype("classify", "--summary", material)
    assert result.returncode == 1
    rows = {row[0].rsplit("/", 1)[-1]: (row[1], row[-1][:25]) for row in parse_csv(result.stdout)[1:]}
    assert rows == {"corrupt.wav": ("", "not a readable audio file"), "drums_0.1s.wav": ("drums", ""), "drums_then_silence.wav": ("drums", ""),
                    "noise_0.1s.wav": ("noise", ""), "silence.wav": ("silence", ""), "truncated.wav": ("speech", "")}
    assert result.stderr.splitlines()[-1] == "total: 5 classified (1 with warnings), 1 failed, 0 skipped"


def test_the_rule_is_in_the_help():
    help_text = sonotype("classify", "--help").stdout
    assert "labelled by time" in help_text and "Silence is the label only when no other" in help_text
    assert "--grid" in help_text and "total: 3 classified (1 with warnings), 1 failed, 2 skipped" in help_text
