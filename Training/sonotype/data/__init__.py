"""Training data for the built-in model, synthesised from Debian-packaged sources only.

Instruments: the FluidR3 GM soundfont rendered by fluidsynth from MIDI phrases written here.
Speech: espeak-ng. Noise and silence: generated in code. See `python3 -m sonotype.data --help`.
"""

CLASSES = ["silence", "noise", "speech", "drums", "piano", "organ", "guitar", "bass", "strings", "brass", "woodwind", "synth"]

# General MIDI programs (0-based) per instrument class.
PROGRAMS = {
    "piano": list(range(0, 6)),
    "organ": list(range(16, 21)),
    "guitar": list(range(24, 32)),
    "bass": list(range(32, 40)),
    "strings": [40, 41, 42, 43, 44, 48, 49],
    "brass": list(range(56, 64)),
    "woodwind": list(range(64, 80)),
    "synth": list(range(80, 96)),
}

SAMPLE_RATE = 16000
