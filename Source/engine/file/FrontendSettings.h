// The audio front end a model file declares (its "frontend" metadata and the stored
// "frontend.window" and "frontend.mel_fbanks"), validated at load with the rest of the file: every
// setting checked for range, every stored number for finiteness and range, the front end's input
// against the graph's, and its memory and work claimed from the load's budgets (Model::load).
// Field meanings follow torchaudio's MelSpectrogram and AmplitudeToDB; see Training/sonotype/frontend.py.
// The log-mel front end itself is dsp::LogMelSpectrogram; this file is what it is made from.
#pragma once

#include "engine/file/Work.h"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sonotype::engine
{
class JsonValue;
class ModelFile;
class Shape;

struct FrontendSettings
{
    /** logMel: the runtime computes log-mel features and the model takes [..., n_mels, frames];
        waveform: the model computes its own features and takes windowSamples raw mono samples at
        sampleRate ([N], [1, N] or [1, 1, N]); only sampleRate and windowSamples apply. */
    enum class Type
    {
        logMel,
        waveform
    };
    enum class PadMode
    {
        reflect,
        constant
    };
    enum class MelScale
    {
        htk,
        slaney
    };
    enum class LogType
    {
        db,
        log,
        none
    };

    // The documented ranges of the numbers (the message of a refusal names the setting, its value
    // and its range; docs/ENGINE.md lists them).
    static constexpr double kMinSampleRate = 1000.0, kMaxSampleRate = 384000.0;
    static constexpr int kMinFft = 16, kMaxFft = 1 << 16, kMaxHop = 1 << 16, kMaxMels = 1024, kMaxFrames = 1 << 20, kMaxWindowSamples = 1 << 26;
    static constexpr double kMaxPower = 4.0, kMaxTopDb = 200.0, kMinDbMultiplier = 1e-3, kMaxDbMultiplier = 1e3;
    static constexpr double kMinLogOffset = 1e-30, kMaxLogOffset = 10.0;
    static constexpr double kMaxAbsMean = 1e9, kMinStd = 1e-9, kMaxStd = 1e9;
    static constexpr double kMaxAbsWindow = 16.0, kMaxFilterbankWeight = 1e3;
    /** Audio an analyzer may be given before it analyses the windows in it (the runtime's FIFO
        holds 4 s; classify pushes 2 s at a time): its buffer is counted in cost(). */
    static constexpr double kMaxBacklogSeconds = 4.0;

    Type type = Type::logMel;
    double sampleRate = 16000.0;
    int nFft = 400;
    int winLength = 400;
    int hopLength = 200;
    double fMin = 0.0;
    double fMax = 8000.0;
    int nMels = 64;
    bool center = true;
    PadMode padMode = PadMode::reflect;
    double power = 2.0;
    MelScale melScale = MelScale::htk;
    bool slaneyNorm = false;
    LogType logType = LogType::db;
    std::optional<double> topDb;
    double dbMultiplier = 10.0; // 10 for power spectra, 20 for magnitudes
    double logOffset = 1e-6;
    std::vector<float> mean { 0.0f }, std { 1.0f }; // one value, or one per mel band
    int windowSamples = 0;                          // samples per analysis window at sampleRate
    // As torchaudio computed them at export: the model file's "frontend.window" [win_length] and
    // "frontend.mel_fbanks" [n_fft / 2 + 1, n_mels], viewed in the model's memory (valid while the
    // Model lives); empty: computed from the fields above.
    std::span<const float> window;
    std::span<const float> melFilterbank;

    /** Parses and validates a JSON object (a model's "frontend" metadata, or a settings file);
        `modelFrames`, if given, sets windowSamples when the JSON does not. Throws ModelError naming
        the setting, its value and its range. */
    static FrontendSettings fromJson (const std::string& json, std::optional<int> modelFrames = std::nullopt);

    /** The front end a model file declares for the graph input `input`, with its stored window and
        filterbank checked and taken; nullopt when the metadata is an empty object (no front end).
        Throws ModelError. */
    static std::optional<FrontendSettings> forModel (const std::string& json, const Shape& input, const ModelFile& file);

    bool isWaveform() const noexcept { return type == Type::waveform; }
    int numFreqs() const noexcept { return nFft / 2 + 1; }
    /** STFT frames torchaudio produces for numSamples samples. */
    int numFrames (int numSamples) const noexcept;
    /** The fewest samples that give numFrames frames. */
    int samplesForFrames (int numFrames) const noexcept;
    /** Frames one window's features hold (and the log-mel front end keeps per window). */
    int framesPerWindow() const noexcept;

    /** What one analyzer of this front end costs (dsp::LogMelSpectrogram and runtime::WindowAnalyzer
        allocate no more; Tests/runtime/FrontendBudgetTests.cpp checks it): the bytes its buffers take, and
        the steps of one window when every frame is computed (the first window, or hops of a
        window or more; later windows reuse the frames they share). */
    struct Cost
    {
        std::size_t bytes = 0;
        Work perWindow;
    };
    Cost cost() const;

private:
    static FrontendSettings fromObject (const JsonValue& settings, std::optional<int> modelFrames);
};

} // namespace sonotype::engine
