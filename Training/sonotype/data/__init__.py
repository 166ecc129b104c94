"""Training data for the built-in model, made from Debian-packaged sources and code only.

catalogue.py says which sources make each class: soundfonts and GUS patches played from MIDI phrases
(sources.py, midi.py), voices written in code (synths.py), packaged recordings through a sampler
(samplers.py), espeak-ng and espeak speech, noise and silence by level and structure (noises.py);
augment.py makes them sound recorded. See `python3 -m sonotype.data --help`.
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

# The built-in model's front end: 1 s windows of 64 log-mel bands at 16 kHz, 10 ms hop.
FRONTEND = dict(sample_rate=SAMPLE_RATE, n_fft=400, hop_length=160, n_mels=64, log={"type": "db", "top_db": 80.0},
                mean=-45.0, std=20.0, window_samples=SAMPLE_RATE)
