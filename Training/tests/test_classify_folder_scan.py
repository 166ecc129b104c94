"""`sonotype classify` on folders: each skipped file named with its reason, totals on stderr, and the
files that could not be classified as rows with an error, by default (--error-rows changes nothing)."""

import csv
import io
import json
import shutil

import pytest

from test_classify import sonotype
from test_classify_segments import EXAMPLES


def parse_csv(text):
    return list(csv.reader(io.StringIO(text)))


@pytest.fixture
def library(tmp_path):
    (tmp_path / "sub").mkdir()
    shutil.copy(EXAMPLES / "speech.wav", tmp_path / "sub" / "speech.wav")
    shutil.copy(EXAMPLES / "drums.wav", tmp_path / "drums.wav")
    (tmp_path / "notes.txt").write_text("not audio")
    (tmp_path / "sub" / "README").write_text("no extension")
    (tmp_path / "broken.wav").write_text("not audio either")
    return tmp_path


def test_skipped_files_and_totals(library):
    result = sonotype("classify", "--summary", library)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert f"skipped: {library / 'notes.txt'}: unsupported extension (.txt)" in lines
    assert f"skipped: {library / 'sub' / 'README'}: no file extension" in lines
    assert any(line.startswith(f"error: {library / 'broken.wav'}: not a readable audio file") for line in lines)
    assert lines[-1] == "total: 2 classified (0 with warnings), 1 failed, 2 skipped"
    rows = parse_csv(result.stdout)[1:]
    assert [(row[0], row[-1][:25]) for row in rows] == [(str(library / "broken.wav"), "not a readable audio file"),
                                                        (str(library / "drums.wav"), ""), (str(library / "sub" / "speech.wav"), "")]


def test_a_single_file_s_totals(library):
    result = sonotype("classify", "--summary", library / "drums.wav")
    assert result.returncode == 0 and result.stderr == "total: 1 classified (0 with warnings), 0 failed, 0 skipped\n"


def test_error_rows_in_csv(library):
    result = sonotype("classify", "--summary", library, library / "missing.wav")
    assert result.returncode == 1
    assert result.stdout == sonotype("classify", "--summary", "--error-rows", library, library / "missing.wav").stdout
    header, *rows = parse_csv(result.stdout)
    assert header[-1] == "error" and all(len(row) == len(header) for row in rows)
    errors = {row[0]: row[-1] for row in rows if row[-1]}
    assert errors[str(library / "missing.wav")] == "no such file or folder"
    assert errors[str(library / "broken.wav")].startswith("not a readable audio file")
    good = [row for row in rows if not row[-1]]
    assert [row[1] for row in good] == ["drums", "speech"] and all(row[1:-1] for row in good)


def test_error_rows_in_json_windows_and_segments(library):
    for extra in ([], ["--segments"]):
        rows = json.loads(sonotype("classify", "--format", "json", *extra, library).stdout)
        errors = [row for row in rows if "error" in row]
        assert errors == [{"file": str(library / "broken.wav"), "error": errors[0]["error"]}]
        assert all("label" in row for row in rows if "error" not in row)


def test_error_rows_in_csv_segments(library):
    header, *rows = parse_csv(sonotype("classify", "--segments", library).stdout)
    assert header == ["file", "start_s", "end_s", "label", "confidence", "error"]
    assert [(row[3], row[5][:25]) for row in rows] == [("", "not a readable audio file"), ("drums", ""), ("speech", "")]
