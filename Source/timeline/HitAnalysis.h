// The per-hit mode over a whole file, exact or live. Exact (the default): runtime::HitClassifier (an onset detector finds each hit, and
// each hit is classified once, from a clip starting at its onset, with the hit's level) over the
// file's mono samples. Live: runtime::LiveHits, the hits the plugin's live mode plays, each named
// from its first milliseconds. `sonotype classify --onsets [--response live]` runs it; one row,
// label or MIDI note per hit. The plugin runs the same classes on the stream it receives.
// One thread per call; memory bounded whatever the file's length (blocks of at most 2 s, and only
// the samples a pending hit still needs are kept).
#pragma once

#include "runtime/HitClassifier.h"

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sonotype::engine
{
class Model;
}

namespace sonotype::timeline
{

struct HitAnalysisSettings
{
    dsp::OnsetSettings onsets;
    double clipSeconds = runtime::kDefaultHitClipSeconds; // of audio from the onset that a hit is classified from
    double preRollSeconds = 0.01;                         // the clip starts this much before the onset (an onset is known to about 5 ms)
    std::vector<std::string> classes;                     // in play (empty: all), as FileAnalysisSettings::classes
    bool live = false;                                    // the live per-hit mode's hits (runtime::LiveHits: the plugin's in "Live"), not the clips'
    bool operator== (const HitAnalysisSettings&) const = default;
};

struct Hit
{
    double seconds = 0.0; // the onset
    int classIndex = -1;
    float confidence = 0.0f;
    float levelDb = -200.0f; // the peak in the 50 ms after the onset, dBFS
    std::vector<float> probabilities;
};

struct HitAnalysisResult
{
    std::vector<std::string> labels;
    double sampleRate = 0.0, durationSeconds = 0.0;
    std::vector<Hit> hits;
    std::string truncationWarning;
    int64_t numNonFiniteSamples = 0;
    int64_t numNonFiniteHits = 0; // the model's output held NaN or infinity
    bool stopped = false;         // onProgress asked to stop: the hits up to there
};

/** Each hit as it is classified, with the model's embedding of its clip (empty for a model without
    one): for teaching from hits. */
using HitListener = std::function<void (const Hit& hit, std::span<const float> embedding)>;

/** What a caller that shows the analysis as it goes (the app's Files view) is told. */
struct HitAnalysisCallbacks
{
    /** Once the file is open: its length in seconds (before anything can fail in the analysis). */
    std::function<void (double lengthSeconds)> onOpen;
    HitListener onHit;
    /** After each block: the fraction of the file read so far (0..1). Return false to stop the
        analysis: the result holds the hits found up to there, and says it stopped. */
    std::function<bool (double fractionDone)> onProgress;
};

/** Throws formats::AudioFileError for a file that is not audio, std::invalid_argument for settings
    out of range (the message names the setting), for `live` with a model that has no live kit
    (one not taught from hits), and the analyzer's errors. With `live`, the clip settings do not
    apply and `onHit` hears no embedding. */
HitAnalysisResult analyzeHits (const std::string& path, const std::shared_ptr<const engine::Model>& model, const HitAnalysisSettings& settings,
                               const HitListener& onHit = {});
HitAnalysisResult analyzeHits (const std::string& path, const std::shared_ptr<const engine::Model>& model, const HitAnalysisSettings& settings,
                               const HitAnalysisCallbacks& callbacks);

} // namespace sonotype::timeline
