"""`sonotype classify` to each file's true end, by default: a short file's window ends at its true end
(padded), the tail after the last full window gets a window aligned to the file's end (tail),
summaries carry the duration and the number of windows; --to-end is accepted and changes nothing,
--grid gives the windows of the hop's grid alone."""

import csv
import io
import json
import subprocess

import numpy as np
import pytest

from test_classify import sonotype, tone, write_wav
from test_classify_segments import EXAMPLES


def parse_csv(text):
    return list(csv.reader(io.StringIO(text)))


@pytest.fixture(scope="module")
def speech_then_drums(tmp_path_factory):
    """2.6 s: windows of 1 s every 0.25 s end at 2.5 s; the last 0.1 s is a tail."""
    path = tmp_path_factory.mktemp("to_end") / "tail.wav"
    subprocess.run(["sox", str(EXAMPLES / "speech.wav"), str(EXAMPLES / "drums.wav"), str(path), "trim", "0", "2.6"], check=True)
    return path


def test_short_file_ends_at_its_true_end(tmp_path):
    wav = write_wav(tmp_path / "short.wav", tone(16000, 0.1), 16000)
    result = sonotype("classify", wav)
    assert result.returncode == 0, result.stderr
    header, *rows = parse_csv(result.stdout)
    assert header[:5] == ["file", "start_s", "end_s", "label", "confidence"] and header[-3:] == ["padded", "tail", "error"]
    assert len(rows) == 1 and rows[0][1:3] == ["0.000", "0.100"] and rows[0][-3:] == ["1", "0", ""]
    assert parse_csv(sonotype("classify", "--to-end", wav).stdout) == [header, *rows]  # --to-end: the default
    # the probabilities are those of the padded window, as on the grid
    grid = parse_csv(sonotype("classify", "--grid", wav).stdout)[1]
    assert grid[1:3] == ["0.000", "1.000"] and rows[0][3:-3] == grid[3:-1]
    # its summary: the true duration, one window
    header, summary = parse_csv(sonotype("classify", "--summary", wav).stdout)
    assert summary[header.index("duration_s")] == "0.100" and summary[header.index("windows")] == "1"


def test_tail_gets_a_window_aligned_to_the_end(speech_then_drums, tmp_path):
    result = sonotype("classify", speech_then_drums)
    assert result.returncode == 0, result.stderr
    rows = parse_csv(result.stdout)[1:]
    grid = parse_csv(sonotype("classify", "--grid", speech_then_drums).stdout)[1:]
    assert len(rows) == len(grid) + 1 == 8
    assert [r[:-3] for r in rows[:-1]] == [r[:-1] for r in grid] and all(r[-3:] == ["0", "0", ""] for r in rows[:-1])
    assert rows[-1][1:4] == ["1.600", "2.600", "drums"] and rows[-1][-3:] == ["0", "1", ""]
    # the tail window is the file's last second classified by itself
    clip = tmp_path / "last_second.wav"
    subprocess.run(["sox", str(speech_then_drums), str(clip), "trim", "1.6"], check=True)
    alone = parse_csv(sonotype("classify", clip).stdout)[1]
    assert np.abs(np.array(rows[-1][5:-3], float) - np.array(alone[5:-3], float)).max() < 0.02


def test_json_rows_and_segments_reach_the_end(speech_then_drums):
    rows = json.loads(sonotype("classify", "--format", "json", speech_then_drums).stdout)
    assert [(r["padded"], r["tail"]) for r in rows[-2:]] == [(False, False), (False, True)]
    assert rows[-1]["end_s"] == 2.6
    segments = parse_csv(sonotype("classify", "--segments", speech_then_drums).stdout)[1:]
    assert segments[-1][2:4] == ["2.600", "drums"]
    assert parse_csv(sonotype("classify", "--segments", "--grid", speech_then_drums).stdout)[-1][2] == "2.500"


def test_summary_has_duration_and_windows(speech_then_drums, tmp_path):
    short = write_wav(tmp_path / "short.wav", tone(16000, 0.3), 16000)
    result = sonotype("classify", "--summary", short, speech_then_drums)
    header, *rows = parse_csv(result.stdout)
    at = header.index("duration_s")
    assert header[at:at + 2] == ["duration_s", "windows"]
    assert {r[0].split("/")[-1]: r[at:at + 2] for r in rows} == {"short.wav": ["0.300", "1"], "tail.wav": ["2.600", "8"]}
    summary = json.loads(sonotype("classify", "--summary", "--format", "json", speech_then_drums).stdout)[0]
    assert summary["duration_s"] == 2.6 and summary["windows"] == 8
    grid = json.loads(sonotype("classify", "--summary", "--grid", "--format", "json", speech_then_drums).stdout)[0]
    assert grid["duration_s"] == 2.6 and grid["windows"] == 7


def test_grid_and_to_end_do_not_go_together(speech_then_drums):
    result = sonotype("classify", "--grid", "--to-end", speech_then_drums)
    assert result.returncode == 2 and "--grid and --to-end" in result.stderr and result.stdout == ""
