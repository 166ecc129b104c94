// The audio front end's settings, as a model file carries them (its "frontend" metadata).
// Field meanings follow torchaudio's MelSpectrogram and AmplitudeToDB; see Training/sonotype/frontend.py.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sonotype::engine
{
class Model;
}

namespace sonotype::dsp
{

struct FrontendError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

struct FrontendSettings
{
    /** logMel: the runtime computes log-mel features and the model takes [..., n_mels, frames];
        waveform: the model computes its own features and takes windowSamples raw mono samples at
        sampleRate ([N], [1, N] or [1, 1, N]); only sampleRate and windowSamples apply. */
    enum class Type { logMel, waveform };
    enum class PadMode { reflect, constant };
    enum class MelScale { htk, slaney };
    enum class LogType { db, log, none };

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
    int windowSamples = 0;                            // samples per analysis window at sampleRate
    // As torchaudio computed them at export (the model file's "frontend.window" [win_length] and
    // "frontend.mel_fbanks" [n_fft / 2 + 1, n_mels]); empty: computed here from the fields above.
    std::vector<float> window;
    std::vector<float> melFilterbank;

    /** Parses and validates the JSON object; `modelFrames`, if given, sets windowSamples when the
        JSON does not. Throws FrontendError naming the bad field. */
    static FrontendSettings fromJson (const std::string& json, std::optional<int> modelFrames = std::nullopt);

    /** The settings of a model: its frontend metadata, stored window and filterbank, and the
        window length that gives the model's input frames. */
    static FrontendSettings fromModel (const engine::Model& model);
    /** Takes the model file's stored window and filterbank, where it has them. */
    void useStoredTensors (const engine::Model& model);

    bool isWaveform() const noexcept { return type == Type::waveform; }
    int numFreqs() const noexcept { return nFft / 2 + 1; }
    /** STFT frames torchaudio produces for numSamples samples. */
    int numFrames (int numSamples) const noexcept;
    /** The fewest samples that give numFrames frames. */
    int samplesForFrames (int numFrames) const noexcept;
};

} // namespace sonotype::dsp
