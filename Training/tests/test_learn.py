"""`sonotype learn`: classes from example files (and hits), the leave-one-file-out table, and the
taught model file that `classify --model` runs like any model."""

import subprocess
from pathlib import Path

import mido
import pytest

from sonotype.hits.evaluate import per_hit_accuracy
from sonotype.hits.patterns import KITS, f_measure, render_pattern
from test_classify import sonotype
from test_classify_segments import parse_csv

EXAMPLES = Path(__file__).resolve().parents[2] / "Resources" / "examples"


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """FluidR3's kick, snare and hat: 5 hits each to teach, and a pattern of all three."""
    folder = tmp_path_factory.mktemp("kit")
    soundfont, channel = KITS["FluidR3"]
    for piece in ("kick", "snare", "hat"):
        render_pattern(folder / f"{piece}.wav", soundfont, channel, seed=11, seconds=3.0, pieces=(piece,), gaps=(0.5,))
    hits = render_pattern(folder / "mix.wav", soundfont, channel, seed=12, seconds=10.0)
    return folder, hits


def test_hits_taught_from_a_kit_name_the_kit_s_hits(kit, tmp_path):
    folder, hits = kit
    model = tmp_path / "drums.safetensors"
    result = sonotype("learn", "--hits", "--class", "kick", folder / "kick.wav", "--class", "snare",
                      folder / "snare.wav", "--class", "hat", folder / "hat.wav", "-o", model)
    assert result.returncode == 0, result.stderr
    assert "kick: 5 hits from 1 files" in result.stderr
    assert "right: 15 of 15 examples" in result.stdout  # each hit left out in turn
    assert "wrote" in result.stdout and "(kick, snare, hat, unknown)" in result.stdout
    # (the model classifies hits from the clip it was taught with, 0.12 s: no --onset-window needed)
    rows = parse_csv(sonotype("classify", "--onsets", "--model", model, folder / "mix.wav").stdout)
    assert rows[0][5:] == ["kick", "snare", "hat", "unknown", "error"]
    found = [(float(row[1]), row[2]) for row in rows[1:]]
    score, _, _, _ = f_measure([t for t, _ in hits], [t for t, _ in found])
    assert score >= 0.95
    right = sum(1 for t, piece in hits for f, label in found if abs(f - t) <= 0.025 and label == piece)
    assert right >= 0.9 * len(hits), (right, len(hits))
    inspect = sonotype("inspect", model).stdout
    assert "labels:      kick, snare, hat, unknown" in inspect
    assert '"onset_window":0.12' in inspect and '"base":"built-in"' in inspect


def _midi_notes(path):
    """The note-ons of a MIDI file, its track name and its text events."""
    midi = mido.MidiFile(path)
    names = [m.name for m in midi.tracks[0] if m.type == "track_name"]
    texts = [m.text for m in midi.tracks[0] if m.type == "text"]
    return [m.note for m in midi.tracks[0] if m.type == "note_on" and m.velocity > 0], names, texts


def test_a_kit_plays_general_midi_drums_and_the_notes_chosen_for_it(kit, tmp_path):
    folder, hits = kit
    pieces = ["--class", "kick", folder / "kick.wav", "--class", "snare", folder / "snare.wav", "--class", "hat", folder / "hat.wav"]
    # By their names: kick 36, snare 38, hat 42 (General MIDI); unknown is no piece and plays nothing.
    named = tmp_path / "named.safetensors"
    result = sonotype("learn", "--hits", *pieces, "-o", named)
    assert result.returncode == 0, result.stderr
    assert "  kick 36 C1 (General MIDI: Bass Drum 1)" in result.stdout
    assert "  hat 42 F#1 (General MIDI: Closed Hi-Hat)" in result.stdout
    assert "  unknown none (no piece: plays nothing)" in result.stdout
    out = tmp_path / "named.mid"
    assert sonotype("classify", "--onsets", "--format", "midi", "--model", named, "--output", out, folder / "mix.wav").returncode == 0
    notes, names, texts = _midi_notes(out)
    assert names == ["Sonotype - mix.wav"]
    assert texts == ["36 kick", "38 snare", "42 hat"]
    rows = parse_csv(sonotype("classify", "--onsets", "--model", named, folder / "mix.wav").stdout)[1:]
    drums = {"kick": 36, "snare": 38, "hat": 42}
    assert notes == [drums[row[2]] for row in rows if row[2] in drums]

    # Chosen with learn --note (a number or a name, C1 = 36): kept in the file, shown by inspect.
    chosen = tmp_path / "chosen.safetensors"
    result = sonotype("learn", "--hits", *pieces, "--note", "snare=E1", "--note", "hat=44", "-o", chosen)
    assert result.returncode == 0, result.stderr
    assert "  snare 40 E1 (chosen)" in result.stdout
    inspect = sonotype("inspect", chosen).stdout
    assert "             snare 40 E1 (chosen)" in inspect and "             kick 36 C1 (General MIDI: Bass Drum 1)" in inspect
    out = tmp_path / "chosen.mid"
    result = sonotype("classify", "--onsets", "--format", "midi", "--model", chosen, "--output", out, folder / "mix.wav")
    assert result.returncode == 0, result.stderr
    assert "snare 40 E1 (chosen)" in result.stderr
    chosen_notes = {"kick": 36, "snare": 40, "hat": 44}
    assert _midi_notes(out)[0] == [chosen_notes[row[2]] for row in rows if row[2] in chosen_notes]

    # classify --note-map over the file's for one run.
    out = tmp_path / "mapped.mid"
    result = sonotype("classify", "--onsets", "--format", "midi", "--model", chosen, "--note-map", "kick=35,snare=D1", "--output", out,
                      folder / "mix.wav")
    assert result.returncode == 0, result.stderr
    mapped = {"kick": 35, "snare": 38, "hat": 44}
    assert _midi_notes(out)[0] == [mapped[row[2]] for row in rows if row[2] in mapped]
    assert _midi_notes(out)[2] == ["35 kick", "38 snare", "44 hat"]

    # Names that are no class, and notes that are no note, are refused naming what is wrong.
    result = sonotype("classify", "--onsets", "--format", "midi", "--model", chosen, "--note-map", "tom=45", "--output", out, folder / "mix.wav")
    assert result.returncode == 2 and "'tom' is not a class of the model (its classes: kick, snare, hat, unknown)" in result.stderr
    result = sonotype("classify", "--onsets", "--format", "midi", "--note-map", "kick=H9", "--output", out, folder / "mix.wav")
    assert result.returncode == 2 and "'H9' is not a MIDI note" in result.stderr
    result = sonotype("classify", "--onsets", "--note-map", "kick=36", folder / "mix.wav")
    assert result.returncode == 2 and "--note-map sets the notes of a MIDI file" in result.stderr
    result = sonotype("learn", "--hits", *pieces, "--note", "tom=45", "-o", tmp_path / "x.safetensors")
    assert result.returncode == 2 and "'tom' is not a class of the model" in result.stderr


def test_hits_taught_from_one_kit_name_another_kit_s_hits(kit, tmp_path):
    """Across kits, a hit is told by the model's stem tokens (docs/TEACH.md): taught from FluidR3,
    AVL Black Pearl's pattern is named right (0.97 of its 30 hits; 0.77 with the class token's embedding)."""
    folder, _ = kit
    model = tmp_path / "drums.safetensors"
    result = sonotype("learn", "--hits", "--class", "kick", folder / "kick.wav", "--class", "snare",
                      folder / "snare.wav", "--class", "hat", folder / "hat.wav", "-o", model)
    assert result.returncode == 0, result.stderr
    assert "hits: embedded from the model's token sequence" in result.stderr
    assert '"embedding":{' in sonotype("inspect", model).stdout
    soundfont, channel = KITS["AVL Black Pearl"]
    hits = render_pattern(tmp_path / "other.wav", soundfont, channel, seed=12, seconds=10.0)
    rows = parse_csv(sonotype("classify", "--onsets", "--model", model, tmp_path / "other.wav").stdout)
    found = [(float(row[1]), row[2]) for row in rows[1:]]
    assert per_hit_accuracy(hits, found) >= 0.9


def test_files_taught_as_new_classes_and_as_the_model_s_own(tmp_path):
    taught = tmp_path / "taught.safetensors"
    result = sonotype("learn", "--class", "talk", EXAMPLES / "speech.wav", "--class", "beat", EXAMPLES / "drums.wav", "-o", taught)
    assert result.returncode == 0, result.stderr
    header, *rows = parse_csv(sonotype("classify", "--summary", "--model", taught, EXAMPLES / "speech.wav", EXAMPLES / "drums.wav").stdout)
    assert header[3:6] == ["talk", "beat", "unknown"]
    assert {Path(row[0]).name: row[1] for row in rows} == {"speech.wav": "talk", "drums.wav": "beat"}
    adapted = tmp_path / "adapted.safetensors"
    result = sonotype("learn", "--class", "piano", EXAMPLES / "piano.wav", "--class", "guitar", EXAMPLES / "guitar.wav", "-o", adapted)
    assert result.returncode == 0, result.stderr
    assert "the model's head and your examples" in result.stdout
    header, *rows = parse_csv(sonotype("classify", "--summary", "--model", adapted, EXAMPLES / "piano.wav", EXAMPLES / "guitar.wav").stdout)
    assert header[3:6] == ["piano", "guitar", "unknown"]  # the model's own classes, and unknown as for new ones
    assert {Path(row[0]).name: row[1] for row in rows} == {"piano.wav": "piano", "guitar.wav": "guitar"}


def test_one_class_or_one_example_is_said_not_scored_as_wrong(kit, tmp_path):
    """A class of one example has nothing to check it by (not "0 of 1 right"); one class alone
    chooses between nothing: learn says both, and what the model will do."""
    folder, _ = kit
    single = tmp_path / "single.wav"
    subprocess.run(["sox", "-n", "-r", "44100", single, "synth", "0.3", "sine", "150-50", "fade", "0", "0.3", "0.25", "pad", "0.2", "0.2"],
                   check=True)
    model = tmp_path / "one.safetensors"
    result = sonotype("learn", "--hits", "--class", "kick", single, "-o", model)
    assert result.returncode == 0, result.stderr
    assert "kick: 1 hits from 1 files" in result.stderr
    assert "(one example: nothing to check it by)" in result.stdout
    assert "right: 0 of 0 examples (1 class of one example not checked" in result.stdout
    assert "One class: what is close to kick's examples is kick, anything else unknown" in result.stdout
    two = sonotype("learn", "--hits", "--class", "kick", folder / "kick.wav", "--class", "snare", folder / "snare.wav", "-o", model)
    assert "One class" not in two.stdout and "nothing to check it by" not in two.stdout
    assert "right: 10 of 10 examples" in two.stdout


def test_learn_refuses_what_it_cannot_use(tmp_path):
    result = sonotype("learn", "--class", "kick", "-o", tmp_path / "x.safetensors")
    assert result.returncode == 2
    result = sonotype("learn", "--class", "talk", EXAMPLES / "speech.wav")
    assert result.returncode == 2 and "-o FILE" in result.stderr
    result = sonotype("learn", "--class", "talk", tmp_path / "missing.wav", "-o", tmp_path / "x.safetensors")
    assert result.returncode == 1 and "no such file" in result.stderr
    assert not (tmp_path / "x.safetensors").exists()
    result = sonotype("learn", "--class", "talk", EXAMPLES / "speech.wav", "--class", "talk", EXAMPLES / "drums.wav", "-o", tmp_path / "x.safetensors")
    assert result.returncode == 2 and "'talk' is given twice" in result.stderr


def test_one_shots_are_learned_as_hits_unless_told_and_whole_file_models_warn_on_onsets(kit, tmp_path):
    """One-shots (every file shorter than the model's window) are learned as hits without --hits;
    --no-hits learns them whole, and classify --onsets then warns that the model was not taught from hits."""
    import numpy as np
    from scipy.io import wavfile

    folder, hits = kit
    for piece in ("kick", "snare", "hat"):
        rate, samples = wavfile.read(folder / f"{piece}.wav")
        (tmp_path / piece).mkdir()
        for k in range(5):  # the hits are 0.5 s apart from 0.5 s on
            start = int((0.5 + 0.5 * k - 0.01) * rate)
            wavfile.write(tmp_path / piece / f"{piece}{k}.wav", rate, np.asarray(samples[start:start + int(0.4 * rate)]))
    classes = [a for piece in ("kick", "snare", "hat") for a in ("--class", piece, tmp_path / piece)]
    model = tmp_path / "shots.safetensors"
    result = sonotype("learn", *classes, "-o", model)
    assert result.returncode == 0, result.stderr
    assert "every example is shorter than the model's window" in result.stderr and "kick: 5 hits from 5 files" in result.stderr
    assert "Unknown: a window closer to no class than its threshold" in result.stdout
    assert '"onset_window":0.12' in sonotype("inspect", model).stdout
    onsets = sonotype("classify", "--onsets", "--model", model, folder / "mix.wav")
    assert "warning:" not in onsets.stderr
    found = [(float(row[1]), row[2]) for row in parse_csv(onsets.stdout)[1:]]
    assert per_hit_accuracy(hits, found) >= 0.9
    whole = tmp_path / "whole.safetensors"
    result = sonotype("learn", "--no-hits", *classes, "-o", whole)
    assert result.returncode == 0 and "shorter than the model's window" not in result.stderr
    assert '"onset_window"' not in sonotype("inspect", whole).stdout
    onsets = sonotype("classify", "--onsets", "--model", whole, folder / "mix.wav")
    assert onsets.returncode == 0 and "was taught from whole files, not from hits" in onsets.stderr
    assert sonotype("learn", "--hits", "--no-hits", *classes, "-o", whole).returncode == 2
