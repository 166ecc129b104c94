"""`sonotype classify --segments` and the exports built on it (Audacity labels, REAPER regions, a
MIDI file), read back as those programs would; exit codes for warnings, failures and bad usage."""

import csv
import io
import json
import os
import pty
import subprocess
from pathlib import Path

import mido
import numpy as np
import pytest

from sonotype.engine_cli import cli_path
from test_classify import sonotype, tone, write_wav

EXAMPLES = Path(__file__).resolve().parents[2] / "Resources" / "examples"


def parse_csv(text):
    return list(csv.reader(io.StringIO(text)))


@pytest.fixture(scope="module")
def three_sounds(tmp_path_factory):
    """Speech, drums, noise: 2 s each, one after the other (the built-in model's examples)."""
    path = tmp_path_factory.mktemp("segments") / "three.wav"
    subprocess.run(["sox", *(str(EXAMPLES / f"{name}.wav") for name in ("speech", "drums", "noise")), str(path)], check=True)
    return path


@pytest.fixture(scope="module")
def labels():
    header = parse_csv(sonotype("classify", EXAMPLES / "speech.wav").stdout)[0]
    return header[5:header.index("padded")]


def segments_of(path, *args):
    result = sonotype("classify", "--segments", *args, path)
    assert result.returncode == 0, result.stderr
    rows = parse_csv(result.stdout)
    assert rows[0] == ["file", "start_s", "end_s", "label", "confidence", "error"]
    return [(float(r[1]), float(r[2]), r[3], float(r[4])) for r in rows[1:]]


def test_segments_follow_the_sounds(three_sounds):
    segments = segments_of(three_sounds)
    assert [s[2] for s in segments] == ["speech", "drums", "noise"]
    assert segments[0][0] == 0.0 and segments[-1][1] == 6.0
    for (_, end, _, _), (start, _, _, _) in zip(segments, segments[1:]):
        assert end == start  # one moment, one class: the earlier segment ends where the next starts
    # The edges sit where the sound changes (2 s and 4 s), not on the 0.25 s window grid.
    assert abs(segments[0][1] - 2.0) <= 0.05 and abs(segments[1][1] - 4.0) <= 0.05
    assert all(0.5 <= s[3] <= 1.0 for s in segments)


def test_segments_as_json(three_sounds):
    result = sonotype("classify", "--segments", "--format", "json", three_sounds)
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [set(row) for row in rows] == [{"file", "start_s", "end_s", "label", "confidence"}] * 3
    assert [(r["start_s"], r["end_s"], r["label"]) for r in rows] == [s[:3] for s in segments_of(three_sounds)]


def test_threshold_decides_what_is_a_segment():
    # The piano clip's windows: piano 88 %, bass 34 %, 51 %, 53 %, piano 77 %. Each moment's class is the
    # mean of the windows covering it: piano leads throughout (from 0 to 0.25 s it has one window, 88 %;
    # the quarter seconds in the middle have piano near 50 %), but reaches 90 % nowhere.
    piano = EXAMPLES / "piano.wav"
    assert segments_of(piano, "--threshold", "90") == []
    assert [(s[0], s[1], s[2]) for s in segments_of(piano)] == [(0.0, 2.0, "piano")]  # the default, 30 %
    strict = segments_of(piano, "--threshold", "50")
    assert [s[2] for s in strict] == ["piano"] and strict[0][0] == 0.0 and strict[0][1] < 2.0
    # Only the classes in play: piano throughout.
    assert [(s[0], s[1], s[2]) for s in segments_of(piano, "--classes", "piano,guitar,drums")] == [(0.0, 2.0, "piano")]
    assert sonotype("classify", "--segments", "--threshold", "101", piano).returncode == 2


def test_audacity_labels(three_sounds, tmp_path):
    out = tmp_path / "labels.txt"
    result = sonotype("classify", "--format", "audacity", "--output", out, three_sounds)
    assert result.returncode == 0 and result.stdout == "", result.stderr
    lines = out.read_text().splitlines()
    fields = [line.split("\t") for line in lines]
    assert all(len(f) == 3 and len(f[0].split(".")[1]) == 6 for f in fields)
    assert [(float(a), float(b), c) for a, b, c in fields] == [s[:3] for s in segments_of(three_sounds)]
    # the same on stdout
    assert sonotype("classify", "--format", "audacity", three_sounds).stdout == out.read_text()


def test_reaper_regions(three_sounds):
    result = sonotype("classify", "--format", "reaper", three_sounds)
    assert result.returncode == 0, result.stderr
    rows = parse_csv(result.stdout)
    assert rows[0] == ["#", "Name", "Start", "End", "Length"]
    assert [r[0] for r in rows[1:]] == ["R1", "R2", "R3"]
    assert [(float(r[2]), float(r[3]), r[1]) for r in rows[1:]] == [s[:3] for s in segments_of(three_sounds)]
    assert all(float(r[4]) == pytest.approx(float(r[3]) - float(r[2])) for r in rows[1:])


def test_midi_file_has_one_note_per_segment(three_sounds, labels, tmp_path):
    out = tmp_path / "notes.mid"
    result = sonotype("classify", "--format", "midi", "--output", out, three_sounds)
    assert result.returncode == 0, result.stderr
    midi = mido.MidiFile(str(out))
    assert midi.ticks_per_beat == 960
    tempo = next(m.tempo for m in midi.tracks[0] if m.type == "set_tempo")
    assert tempo == 500000
    notes, now, on = [], 0, {}
    for message in mido.merge_tracks(midi.tracks):
        now += message.time
        if message.type == "note_on" and message.velocity > 0:
            on[message.note] = (now, message.velocity)
        elif message.type in ("note_off", "note_on"):
            start, velocity = on.pop(message.note)
            notes.append((mido.tick2second(start, 960, tempo), mido.tick2second(now, 960, tempo), message.note, velocity))
    segments = segments_of(three_sounds)
    assert len(notes) == len(segments)
    for (start, end, note, velocity), (s_start, s_end, label, confidence) in zip(notes, segments):
        assert start == pytest.approx(s_start, abs=1 / 1920) and end == pytest.approx(s_end, abs=1 / 1920)
        assert note == 36 + labels.index(label)  # the plugin's default base note + class index
        assert velocity == max(1, min(127, round(confidence * 127)))
    shifted = tmp_path / "shifted.mid"
    assert sonotype("classify", "--format", "midi", "--base-note", "60", "--output", shifted, three_sounds).returncode == 0
    assert [m.note for m in mido.MidiFile(str(shifted)).tracks[0] if m.type == "note_on"] == [n[2] + 24 for n in notes]


def test_midi_is_not_written_to_a_terminal(three_sounds):
    leader, follower = pty.openpty()
    result = subprocess.run([cli_path(), "classify", "--format", "midi", str(three_sounds)], stdout=follower, stderr=subprocess.PIPE,
                            text=True)
    os.close(follower)
    os.close(leader)
    assert result.returncode == 2 and "--output" in result.stderr


def test_usage_errors_for_segments(three_sounds, tmp_path):
    cases = [
        (["--format", "audacity", three_sounds, EXAMPLES / "drums.wav"], "one audio file at a time"),
        (["--format", "reaper", EXAMPLES], "one audio file at a time"),
        (["--summary", "--segments", three_sounds], "--summary"),
        (["--summary", "--format", "midi", "--output", tmp_path / "x.mid", three_sounds], "--summary"),
        (["--format", "mp4", three_sounds], "--format"),
        (["--base-note", "128", three_sounds], "--base-note"),
    ]
    for args, message in cases:
        result = sonotype("classify", *args)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr and result.stdout == ""


def test_exit_codes_warnings_are_not_failures(tmp_path):
    nans = np.asarray(tone(16000, 1.2), dtype=np.float32)
    nans[100] = np.nan
    nan_wav = write_wav(tmp_path / "nan.wav", nans, 16000, float32=True)
    result = sonotype("classify", nan_wav)
    assert result.returncode == 0 and "1 NaN or infinite samples were replaced by 0" in result.stderr
    good = write_wav(tmp_path / "good.wav", tone(16000, 1.2), 16000)
    truncated = tmp_path / "truncated.wav"
    truncated.write_bytes(good.read_bytes()[:44 + 2 * 8000])
    result = sonotype("classify", truncated)
    assert result.returncode == 0 and "the header claims" in result.stderr and len(parse_csv(result.stdout)) == 2
    fake = tmp_path / "fake.wav"
    fake.write_text("not audio")
    result = sonotype("classify", good, fake)
    assert result.returncode == 1 and "not a readable audio file" in result.stderr
    assert {(row[0], bool(row[-1])) for row in parse_csv(result.stdout)[1:]} == {(str(good), False), (str(fake), True)}
    help_text = sonotype("classify", "--help").stdout
    assert "Exit codes: 0" in help_text and "2 bad" in help_text


def test_output_file_for_csv_and_an_unwritable_output(three_sounds, tmp_path):
    out = tmp_path / "rows.csv"
    result = sonotype("classify", "--output", out, three_sounds)
    assert result.returncode == 0 and result.stdout == ""
    assert out.read_text() == sonotype("classify", three_sounds).stdout
    result = sonotype("classify", "--output", tmp_path / "no" / "such" / "folder.csv", three_sounds)
    assert result.returncode == 1 and "cannot write" in result.stderr
