#include "engine/file/FrontendSettings.h"

#include "engine/file/Json.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelFile.h"

#include <cmath>
#include <cstdio>

namespace sonotype::engine
{
namespace
{
    std::string show (double value)
    {
        char text[32];
        std::snprintf (text, sizeof text, "%.9g", value);
        return text;
    }

    [[noreturn]] void outOfRange (const std::string& setting, double value, const std::string& range)
    {
        throw ModelError ("frontend setting '" + setting + "' = " + show (value) + " is outside its range " + range);
    }

    /** A number setting (the fallback where absent or null: a default that follows from other
        settings, which must be in range too), within [low, high]. */
    double number (const JsonValue& settings, const char* key, double fallback, double low, double high, const std::string& prefix = "")
    {
        const auto* value = settings.find (key);
        if (value != nullptr && ! value->isNull() && ! value->isNumber())
            throw ModelError ("frontend setting '" + prefix + key + "' must be a number");
        const double x = value == nullptr || value->isNull() ? fallback : value->asNumber();
        if (! (x >= low && x <= high))
            outOfRange (prefix + key, x, "[" + show (low) + ", " + show (high) + "]");
        return x;
    }

    int integer (const JsonValue& settings, const char* key, int fallback, int minimum, int maximum)
    {
        const double value = number (settings, key, fallback, minimum, maximum);
        if (value != std::floor (value))
            throw ModelError (std::string ("frontend setting '") + key + "' = " + show (value) + " must be a whole number from "
                              + std::to_string (minimum) + " to " + std::to_string (maximum));
        return static_cast<int> (value);
    }

    std::string text (const JsonValue& settings, const char* key, const std::string& fallback)
    {
        const auto* value = settings.find (key);
        if (value == nullptr || value->isNull())
            return fallback;
        if (! value->isString())
            throw ModelError (std::string ("frontend setting '") + key + "' must be a string");
        return value->asString();
    }

    /** One number, or one per mel band, each within [low, high] (as floats: the front end's arithmetic). */
    std::vector<float> numbers (const JsonValue& settings, const char* key, float fallback, int numMels, double low, double high)
    {
        const auto* value = settings.find (key);
        if (value == nullptr || value->isNull())
            return { fallback };
        std::vector<double> items;
        if (value->isNumber())
            items.push_back (value->asNumber());
        else if (value->isArray() && static_cast<int> (value->asArray().size()) == numMels)
            for (const auto& item : value->asArray())
            {
                if (! item.isNumber())
                    throw ModelError (std::string ("frontend setting '") + key + "' must hold numbers");
                items.push_back (item.asNumber());
            }
        else
            throw ModelError (std::string ("frontend setting '") + key + "' must be a number or a list of n_mels numbers");
        std::vector<float> result;
        for (std::size_t i = 0; i < items.size(); ++i)
        {
            if (! (items[i] >= low && items[i] <= high))
                outOfRange (std::string (key) + (items.size() > 1 ? "[" + std::to_string (i) + "]" : ""), items[i],
                            "[" + show (low) + ", " + show (high) + "]");
            result.push_back (static_cast<float> (items[i]));
        }
        return result;
    }

    /** {"type": "waveform", "sample_rate": SR, "window_samples": N}: the model computes its features. */
    FrontendSettings waveformSettings (const JsonValue& settings)
    {
        for (const auto& [key, value] : settings.asObject())
            if (key != "type" && key != "sample_rate" && key != "window_samples")
                throw ModelError ("frontend setting " + quote (key) + " does not apply to a waveform front end (it takes type, sample_rate and window_samples)");
        FrontendSettings s;
        s.type = FrontendSettings::Type::waveform;
        if (settings.find ("sample_rate") == nullptr || settings.find ("window_samples") == nullptr)
            throw ModelError ("a waveform front end needs sample_rate and window_samples");
        s.sampleRate = number (settings, "sample_rate", 16000.0, FrontendSettings::kMinSampleRate, FrontendSettings::kMaxSampleRate);
        s.windowSamples = integer (settings, "window_samples", 0, 1, FrontendSettings::kMaxWindowSamples);
        return s;
    }

    /** Every value of a stored front-end tensor finite and within [low, high]. */
    std::span<const float> storedTensor (const ModelFile& file, const char* name, const Shape& expected, double low, double high)
    {
        const auto* tensor = file.find (name);
        if (tensor == nullptr)
            return {};
        if (tensor->shape != expected)
            throw ModelError (std::string ("stored ") + name + " is " + tensor->shape.toString() + ", expected " + expected.toString());
        const std::span<const float> values (file.data (*tensor), static_cast<std::size_t> (expected.numElements()));
        for (std::size_t i = 0; i < values.size(); ++i)
            if (! (values[i] >= low && values[i] <= high)) // NaN fails too
                throw ModelError (std::string ("stored ") + name + " holds " + show (values[i]) + " at " + std::to_string (i) + ", outside its range ["
                                  + show (low) + ", " + show (high) + "]");
        return values;
    }

    int64_t largestPrimeFactor (int64_t n) noexcept
    {
        int64_t largest = 1;
        for (int64_t p = 2; p * p <= n; ++p)
            while (n % p == 0)
            {
                largest = p;
                n /= p;
            }
        return n > 1 ? n : largest;
    }

    /** The JSON text as an object, or a ModelError naming `what`. */
    JsonValue parseObject (const std::string& json, const char* what)
    {
        JsonValue settings;
        try
        {
            settings = parseJson (json);
        }
        catch (const JsonError& e)
        {
            throw ModelError (std::string (what) + ": " + e.what());
        }
        if (! settings.isObject())
            throw ModelError (std::string (what) + " must be a JSON object");
        return settings;
    }
} // namespace

FrontendSettings FrontendSettings::fromJson (const std::string& json, std::optional<int> modelFrames)
{
    return fromObject (parseObject (json, "frontend settings"), modelFrames);
}

FrontendSettings FrontendSettings::fromObject (const JsonValue& settings, std::optional<int> modelFrames)
{
    if (const auto type = text (settings, "type", "log_mel"); type == "waveform")
        return waveformSettings (settings);
    else if (type != "log_mel")
        throw ModelError ("frontend setting 'type' must be \"log_mel\" or \"waveform\", not " + quote (type));
    if (settings.find ("sample_rate") == nullptr || settings.find ("n_mels") == nullptr)
        throw ModelError ("the front-end settings lack sample_rate and n_mels, which a log-mel front end needs: export the model with "
                          "export_model(..., frontend=...)");

    FrontendSettings s;
    s.sampleRate = number (settings, "sample_rate", 16000.0, kMinSampleRate, kMaxSampleRate);
    s.nFft = integer (settings, "n_fft", 400, kMinFft, kMaxFft);
    s.winLength = integer (settings, "win_length", s.nFft, 1, s.nFft);
    s.hopLength = integer (settings, "hop_length", s.winLength / 2, 1, kMaxHop);
    s.nMels = integer (settings, "n_mels", 64, 1, kMaxMels);
    const double nyquist = s.sampleRate / 2.0;
    s.fMin = number (settings, "f_min", 0.0, 0.0, nyquist);
    s.fMax = number (settings, "f_max", std::floor (nyquist), 0.0, nyquist + 1e-9);
    if (! (s.fMin < s.fMax))
        throw ModelError ("frontend settings need f_min < f_max, not f_min = " + show (s.fMin) + ", f_max = " + show (s.fMax));
    if (text (settings, "window", "hann") != "hann")
        throw ModelError ("frontend setting 'window' must be \"hann\"");
    const auto* center = settings.find ("center");
    if (center != nullptr && ! center->isNull())
    {
        if (! center->isBool())
            throw ModelError ("frontend setting 'center' must be true or false");
        s.center = center->asBool();
    }
    const auto padMode = text (settings, "pad_mode", "reflect");
    if (padMode != "reflect" && padMode != "constant")
        throw ModelError ("frontend setting 'pad_mode' must be \"reflect\" or \"constant\", not " + quote (padMode));
    s.padMode = padMode == "reflect" ? PadMode::reflect : PadMode::constant;
    s.power = number (settings, "power", 2.0, 0.0, kMaxPower);
    if (! (s.power > 0.0))
        outOfRange ("power", s.power, "(0, " + show (kMaxPower) + "]");
    const auto melScale = text (settings, "mel_scale", "htk");
    if (melScale != "htk" && melScale != "slaney")
        throw ModelError ("frontend setting 'mel_scale' must be \"htk\" or \"slaney\", not " + quote (melScale));
    s.melScale = melScale == "htk" ? MelScale::htk : MelScale::slaney;
    const auto norm = text (settings, "norm", "");
    if (! norm.empty() && norm != "slaney")
        throw ModelError ("frontend setting 'norm' must be null or \"slaney\", not " + quote (norm));
    s.slaneyNorm = norm == "slaney";

    s.dbMultiplier = s.power == 2.0 ? 10.0 : 20.0;
    if (const auto* log = settings.find ("log"); log != nullptr && ! log->isNull())
    {
        if (! log->isObject())
            throw ModelError ("frontend setting 'log' must be an object");
        const auto type = text (*log, "type", "db");
        if (type == "db")
        {
            s.logType = LogType::db;
            if (const auto* topDb = log->find ("top_db"); topDb != nullptr && ! topDb->isNull())
                s.topDb = number (*log, "top_db", 80.0, 0.0, kMaxTopDb, "log.");
            s.dbMultiplier = number (*log, "multiplier", s.dbMultiplier, kMinDbMultiplier, kMaxDbMultiplier, "log.");
        }
        else if (type == "log")
        {
            s.logType = LogType::log;
            s.logOffset = number (*log, "offset", 1e-6, kMinLogOffset, kMaxLogOffset, "log.");
        }
        else if (type == "none")
            s.logType = LogType::none;
        else
            throw ModelError ("frontend setting 'log.type' must be \"db\", \"log\" or \"none\", not " + quote (type));
    }
    else
        s.logType = LogType::none;
    s.mean = numbers (settings, "mean", 0.0f, s.nMels, -kMaxAbsMean, kMaxAbsMean);
    s.std = numbers (settings, "std", 1.0f, s.nMels, kMinStd, kMaxStd);

    if (settings.find ("window_samples") != nullptr)
        s.windowSamples = integer (settings, "window_samples", 0, 1, kMaxWindowSamples);
    else if (modelFrames.has_value())
    {
        const auto samples = static_cast<int64_t> (*modelFrames - 1) * s.hopLength + (s.center ? 0 : s.nFft);
        if (samples > kMaxWindowSamples)
            throw ModelError (std::to_string (*modelFrames) + " frames need a window of " + std::to_string (samples) + " samples, more than 2^26");
        s.windowSamples = s.samplesForFrames (*modelFrames);
    }
    if (modelFrames.has_value() && s.windowSamples < 1)
        throw ModelError ("the model's input of " + std::to_string (*modelFrames) + " frame" + (*modelFrames == 1 ? "" : "s") + " (hop_length "
                          + std::to_string (s.hopLength) + ") gives a window of no samples: set window_samples");
    if (s.windowSamples > 0 && modelFrames.has_value() && s.numFrames (s.windowSamples) != *modelFrames)
        throw ModelError ("window_samples " + std::to_string (s.windowSamples) + " gives " + std::to_string (s.numFrames (s.windowSamples))
                          + " frames but the model takes " + std::to_string (*modelFrames));
    if (s.center && s.padMode == PadMode::reflect && s.windowSamples > 0 && s.windowSamples <= s.nFft / 2)
        throw ModelError ("reflect padding needs windows longer than n_fft / 2 samples");
    if (! s.center && s.windowSamples > 0 && s.windowSamples < s.nFft)
        throw ModelError ("window_samples " + std::to_string (s.windowSamples) + " is shorter than n_fft = " + std::to_string (s.nFft)
                          + ": no frame without centring");
    return s;
}

std::optional<FrontendSettings> FrontendSettings::forModel (const std::string& json, const Shape& input, const ModelFile& file)
{
    const auto settings = parseObject (json, "frontend metadata");
    if (settings.asObject().empty())
        return std::nullopt; // exported without a front end: the runtime cannot feed it audio

    const auto* type = settings.find ("type");
    if (type != nullptr && type->isString() && type->asString() == "waveform")
    {
        auto s = fromObject (settings, std::nullopt);
        // One mono window: [N], [1, N] or [1, 1, N].
        if (input.rank() < 1 || input.rank() > 3 || input[input.rank() - 1] != s.windowSamples || input.numElements() != s.windowSamples)
            throw ModelError ("the model's input " + input.toString() + " is not one mono waveform of window_samples = "
                              + std::to_string (s.windowSamples) + " samples");
        return s;
    }
    if (input.rank() < 2)
        throw ModelError ("the model's input " + input.toString() + " is not [..., n_mels, frames]");
    const int64_t frames = input[input.rank() - 1];
    if (frames < 1 || frames > kMaxFrames)
        throw ModelError ("the model's input " + input.toString() + " asks for " + std::to_string (frames) + " frames (the front end makes 1 to 2^20)");
    auto s = fromObject (settings, static_cast<int> (frames));
    if (input[input.rank() - 2] != s.nMels)
        throw ModelError ("the model's input " + input.toString() + " does not have n_mels = " + std::to_string (s.nMels) + " rows");
    // The front end writes one window, n_mels x frames floats: every axis before them must be 1.
    if (input.numElements() != input.product (input.rank() - 2, input.rank()))
        throw ModelError ("the model's input " + input.toString() + " holds more than one window of [n_mels, frames]: its leading axes must be 1");
    s.window = storedTensor (file, "frontend.window", Shape { s.winLength }, -kMaxAbsWindow, kMaxAbsWindow);
    s.melFilterbank = storedTensor (file, "frontend.mel_fbanks", Shape { s.numFreqs(), s.nMels }, 0.0, kMaxFilterbankWeight);
    return s;
}

int FrontendSettings::numFrames (int numSamples) const noexcept
{
    if (center)
        return 1 + numSamples / hopLength;
    return numSamples < nFft ? 0 : 1 + (numSamples - nFft) / hopLength;
}

int FrontendSettings::samplesForFrames (int frames) const noexcept
{
    if (frames < 1)
        return 0;
    return center ? (frames - 1) * hopLength : (frames - 1) * hopLength + nFft;
}

int FrontendSettings::framesPerWindow() const noexcept
{
    return std::max (1, numFrames (std::max (windowSamples, nFft)));
}

FrontendSettings::Cost FrontendSettings::cost() const
{
    Cost cost;
    const auto windowFloats = static_cast<double> (windowSamples);
    // The analyzer's stream: a window and what arrives until the next one is analyzed (at most 5
    // windows, a 64 Ki-sample block and a backlog of up to kMaxBacklogSeconds pushed before the
    // windows in it are analyzed: runtime::WindowAnalyzer::push), a zero-padded copy of a stream
    // shorter than a window, and the resampler (libsoxr's VHQ state: 0.3 to 0.5 MiB measured for
    // any rates from 1 to 768 kHz).
    const auto backlog = static_cast<std::size_t> (std::ceil (kMaxBacklogSeconds * sampleRate));
    cost.bytes = sizeof (float) * (6 * static_cast<std::size_t> (windowSamples) + 65536 + backlog) + (std::size_t { 1 } << 20);
    cost.perWindow.streamed = 2.0 * windowFloats;
    if (isWaveform())
        return cost;

    const auto n = static_cast<std::size_t> (nFft), freqs = static_cast<std::size_t> (numFreqs()), mels = static_cast<std::size_t> (nMels);
    const auto frames = static_cast<std::size_t> (framesPerWindow());
    // The mel filterbank's non-zero weights: each band's span of the stored one, or at most two
    // bands over every bin of the computed one (triangles overlap only their neighbours).
    std::size_t weights = 2 * freqs + mels;
    if (! melFilterbank.empty())
    {
        weights = 0;
        for (std::size_t m = 0; m < mels; ++m)
        {
            std::size_t first = freqs, last = 0;
            for (std::size_t f = 0; f < freqs; ++f)
                if (melFilterbank[f * mels + m] != 0.0f)
                    first = std::min (first, f), last = f;
            weights += first <= last ? last - first + 1 : 0;
        }
    }
    // dsp::LogMelSpectrogram: the window and the FFT's input (doubles), its output (complex), FFTW's
    // plan (about as much again), the spectrum and one frame's mel bands (doubles), a window's mel
    // bands (floats) and the cache of frames shared with the next windows (floats, their keys and
    // largest values), the filterbank's weights (doubles) and bands.
    cost.bytes += 8 * n + 8 * n + 16 * (n / 2 + 1) + 16 * n + 8 * freqs + 8 * mels + 4 * mels * frames + (frames + 8) * (12 + 4 * mels)
                  + 8 * weights + 32 * mels;

    // One window, every frame computed: the padded, windowed frame in double, FFTW's transform
    // (about 0.15 ns per n log2 n for sizes of small factors, 2.5 ns per n log2 p over the part
    // of size p, a prime above 13, measured: docs/ENGINE.md; in units of the engine's FFT steps,
    // 0.37 ns), the power of each bin (a C library pow unless the power is 1 or 2), the filterbank
    // (a multiply-add in double per weight) and the frame's column of the window's mel bands.
    const double nd = static_cast<double> (n);
    const int64_t prime = largestPrimeFactor (nFft % 2 == 0 ? nFft / 2 : nFft);
    Work frame;
    frame.scalar = nd + 2.0 * static_cast<double> (freqs) + static_cast<double> (weights);
    frame.fftSteps = nd * std::log2 (nd) * 0.15 / 0.37;
    if (prime > 13)
        frame.fftSteps += static_cast<double> (nFft % 2 == 0 ? nFft / 2 : nFft) * std::log2 (static_cast<double> (prime)) * 2.5 / 0.37;
    frame.libm = power == 1.0 || power == 2.0 ? 0.0 : 2.5 * static_cast<double> (freqs); // pow in double
    frame.gatheredNear = static_cast<double> (mels);
    frame.calls = 3.0;
    cost.perWindow += static_cast<double> (frames) * frame;
    // Then per feature the log (the engine's vector log or log10), the dB floor and the normalisation.
    const double features = static_cast<double> (frames * mels);
    cost.perWindow.vectorMath += features * (logType == LogType::db ? 1.2 : logType == LogType::log ? 1.0
                                                                                                    : 0.0);
    cost.perWindow.scalar += 3.0 * features;
    return cost;
}

} // namespace sonotype::engine
