"""Where the reserved sound sources live, and reading them: every path here belongs to a package that
training never uses (see the issue's reserved list). Recordings are decoded by sox at their own rate and
brought to 16 kHz mono by the product's resampler."""

import glob
import os
import subprocess
import tempfile

from ..data.sources import read_wav

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

TIMGM6MB = "/usr/share/sounds/sf2/TimGM6mb.sf2"
MUSESCORE = "/usr/share/sounds/sf3/MuseScore_General_Lite.sf3"
FLITE_VOICES = ["kal", "kal16", "awb", "rms", "slt"]
FESTIVAL_VOICES = {"kal_diphone": "/usr/share/festival/voices/english/kal_diphone",
                   "cmu_us_slt_arctic_hts": "/usr/share/festival/voices/us/cmu_us_slt_arctic_hts"}
SONIC_PI = "/usr/share/sonic-pi/samples"
HYDROGEN_KITS = "/usr/share/hydrogen/data/drumkits"
KTUBERLING = "/usr/share/ktuberling/sounds"
ALSA = "/usr/share/sounds/alsa"
SUPERCOLLIDER = "/usr/share/SuperCollider/sounds"
SCRATCH = "/usr/share/scratch/Media/Sounds"
HEDGEWARS = "/usr/share/games/hedgewars/Data/Sounds"


def salamander_folder():
    """The Salamander Grand Piano samples installed by scripts/install-eval-sources.sh (npm)."""
    root = os.environ.get("SONOTYPE_EVAL_SOURCES") or os.path.join(_REPO, "build", "eval-sources")
    return os.path.join(root, "node_modules", "@audio-samples", "piano-velocity10", "audio")


def decode(path):
    """Any recording sox reads (WAV, FLAC, Ogg, MP3, AIFF) -> float32 mono at 16 kHz."""
    with tempfile.TemporaryDirectory() as tmp:
        wav = os.path.join(tmp, "decoded.wav")
        subprocess.run(["sox", "-V1", path, "-e", "floating-point", "-b", "32", "-c", "1", wav], check=True,
                       capture_output=True)
        return read_wav(wav)


def existing(paths):
    return [p for p in paths if os.path.isfile(p)]


def sonic_pi(*names):
    return existing([os.path.join(SONIC_PI, f"{n}.flac") for n in names])


def scratch(*names):
    found = []
    for name in names:
        found += sorted(glob.glob(os.path.join(SCRATCH, name + ".*")))
    return found


def hedgewars(*names):
    return existing([os.path.join(HEDGEWARS, f"{n}.ogg") for n in names])
