// The sounds classes were taught from, kept so that the classes can be learned again on another
// base model (a new built-in model, another file): mono, at one sample rate, stored as 16-bit
// samples. Written as JSON — the plugin's saved state, and a taught model file's metadata
// "taught_examples" so that the file can be imported back into a Teach panel — and read back from
// text that may come from anyone: within the limits below, every error naming what is wrong.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace sonotype::teach
{

struct ExampleSound
{
    std::string source;         // what it was taken from: "input 3", a file name, "take.wav 1.20-3.40 s"
    std::vector<float> samples; // mono, at ExampleSet::sampleRate
};

struct ClassSounds
{
    std::string name;
    std::vector<ExampleSound> examples;
    int note = -1; // the MIDI note chosen for the class, 0-127; -1: none (the one its name says, or base note + index: timeline/NoteMap.h)
};

struct ExampleSet
{
    /** What one set may hold: bounded, so that a saved session stays a few megabytes and learning
        from all of it stays well under a second. */
    static constexpr int kMaxClasses = 32;
    static constexpr int kMaxExamplesPerClass = 100;
    static constexpr double kMaxExampleSeconds = 10.0;
    static constexpr double kMaxTotalSeconds = 120.0;
    static constexpr double kMinSampleRate = 8000.0, kMaxSampleRate = 48000.0;

    double sampleRate = 16000.0;
    double unknownBelow = std::numeric_limits<double>::quiet_NaN(); // NaN: each class's gate calibrated (teach/Prototypes.h)
    bool hits = false;                                              // each hit in an example is one example (drum pieces, for per-hit MIDI), not the whole sound
    bool hitsChosen = false;                                        // the user chose `hits`; else hits exactly when every example is shorter than the model's window
    std::string learnedOn;                                          // the identity of the base model the classes were last learned on (empty: never learned)
    std::vector<ClassSounds> classes;

    int64_t totalSamples() const noexcept;
    double totalSeconds() const noexcept { return static_cast<double> (totalSamples()) / sampleRate; }
};

/** The set as JSON (samples as base64 of 16-bit little-endian integers). */
std::string encodeExampleSet (const ExampleSet& set);

/** Reads a set back; throws std::invalid_argument naming what is wrong (malformed JSON, a rate,
    name, count or length out of the limits above, samples that are not base64 of 16-bit samples, a
    note that is not 0-127). A set written before notes were chosen has none. */
ExampleSet decodeExampleSet (std::string_view json);

/** A short identity of a model file: its name and a hash of its bytes ("built-in#1a2b3c4d5e6f7a8b"). */
std::string modelIdentity (const std::string& name, const std::uint8_t* bytes, std::size_t numBytes);

} // namespace sonotype::teach
