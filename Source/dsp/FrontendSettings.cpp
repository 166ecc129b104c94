#include "dsp/FrontendSettings.h"

#include "engine/Json.h"
#include "engine/Model.h"

#include <cmath>

namespace sonotype::dsp
{
namespace
{
    using engine::JsonValue;

    double number (const JsonValue& settings, const char* key, double fallback)
    {
        const auto* value = settings.find (key);
        if (value == nullptr || value->isNull())
            return fallback;
        if (! value->isNumber())
            throw FrontendError (std::string ("frontend setting '") + key + "' must be a number");
        return value->asNumber();
    }

    int integer (const JsonValue& settings, const char* key, int fallback, int minimum, int maximum)
    {
        const double value = number (settings, key, fallback);
        if (value != std::floor (value) || value < minimum || value > maximum)
            throw FrontendError (std::string ("frontend setting '") + key + "' must be an integer from " + std::to_string (minimum) + " to "
                                 + std::to_string (maximum) + ", got " + std::to_string (value));
        return static_cast<int> (value);
    }

    std::string text (const JsonValue& settings, const char* key, const std::string& fallback)
    {
        const auto* value = settings.find (key);
        if (value == nullptr || value->isNull())
            return fallback;
        if (! value->isString())
            throw FrontendError (std::string ("frontend setting '") + key + "' must be a string");
        return value->asString();
    }

    std::vector<float> numbers (const JsonValue& settings, const char* key, float fallback, int numMels)
    {
        const auto* value = settings.find (key);
        if (value == nullptr || value->isNull())
            return { fallback };
        if (value->isNumber())
            return { static_cast<float> (value->asNumber()) };
        if (! value->isArray() || static_cast<int> (value->asArray().size()) != numMels)
            throw FrontendError (std::string ("frontend setting '") + key + "' must be a number or a list of n_mels numbers");
        std::vector<float> result;
        for (const auto& item : value->asArray())
        {
            if (! item.isNumber())
                throw FrontendError (std::string ("frontend setting '") + key + "' must hold numbers");
            result.push_back (static_cast<float> (item.asNumber()));
        }
        return result;
    }

    /** {"type": "waveform", "sample_rate": SR, "window_samples": N}: the model computes its features. */
    FrontendSettings waveformSettings (const JsonValue& settings)
    {
        for (const auto& [key, value] : settings.asObject())
            if (key != "type" && key != "sample_rate" && key != "window_samples")
                throw FrontendError ("frontend setting '" + key + "' does not apply to a waveform front end (it takes type, sample_rate and window_samples)");
        FrontendSettings s;
        s.type = FrontendSettings::Type::waveform;
        if (settings.find ("sample_rate") == nullptr || settings.find ("window_samples") == nullptr)
            throw FrontendError ("a waveform front end needs sample_rate and window_samples");
        s.sampleRate = number (settings, "sample_rate", 16000.0);
        if (! (s.sampleRate >= 1000.0 && s.sampleRate <= 384000.0))
            throw FrontendError ("frontend setting 'sample_rate' must be between 1000 and 384000 Hz");
        s.windowSamples = integer (settings, "window_samples", 0, 1, 1 << 26);
        return s;
    }

    std::optional<JsonValue> parseObject (const std::string& json)
    {
        try
        {
            auto value = engine::parseJson (json);
            if (value.isObject())
                return value;
        }
        catch (const engine::JsonError&)
        {
        }
        return std::nullopt;
    }

    bool isWaveformJson (const std::string& json)
    {
        const auto settings = parseObject (json);
        if (! settings.has_value())
            return false;
        const auto* type = settings->find ("type");
        return type != nullptr && type->isString() && type->asString() == "waveform";
    }
} // namespace

FrontendSettings FrontendSettings::fromJson (const std::string& json, std::optional<int> modelFrames)
{
    JsonValue settings;
    try
    {
        settings = engine::parseJson (json);
    }
    catch (const engine::JsonError& e)
    {
        throw FrontendError (std::string ("frontend settings: ") + e.what());
    }
    if (! settings.isObject())
        throw FrontendError ("frontend settings must be a JSON object");
    if (const auto type = text (settings, "type", "log_mel"); type == "waveform")
        return waveformSettings (settings);
    else if (type != "log_mel")
        throw FrontendError ("frontend setting 'type' must be \"log_mel\" or \"waveform\", not \"" + type + "\"");
    if (settings.find ("sample_rate") == nullptr || settings.find ("n_mels") == nullptr)
        throw FrontendError ("the model has no front-end settings (sample_rate and n_mels are required): export it with "
                             "export_model(..., frontend=...)");

    FrontendSettings s;
    s.sampleRate = number (settings, "sample_rate", 16000.0);
    if (! (s.sampleRate >= 1000.0 && s.sampleRate <= 384000.0))
        throw FrontendError ("frontend setting 'sample_rate' must be between 1000 and 384000 Hz");
    s.nFft = integer (settings, "n_fft", 400, 16, 1 << 16);
    s.winLength = integer (settings, "win_length", s.nFft, 1, s.nFft);
    s.hopLength = integer (settings, "hop_length", s.winLength / 2, 1, 1 << 16);
    s.nMels = integer (settings, "n_mels", 64, 1, 1024);
    s.fMin = number (settings, "f_min", 0.0);
    s.fMax = number (settings, "f_max", std::floor (s.sampleRate / 2.0));
    if (! (s.fMin >= 0.0 && s.fMin < s.fMax && s.fMax <= s.sampleRate / 2.0 + 1e-9))
        throw FrontendError ("frontend settings need 0 <= f_min < f_max <= sample_rate / 2");
    if (text (settings, "window", "hann") != "hann")
        throw FrontendError ("frontend setting 'window' must be \"hann\"");
    const auto* center = settings.find ("center");
    if (center != nullptr && ! center->isNull())
    {
        if (! center->isBool())
            throw FrontendError ("frontend setting 'center' must be true or false");
        s.center = center->asBool();
    }
    const auto padMode = text (settings, "pad_mode", "reflect");
    if (padMode != "reflect" && padMode != "constant")
        throw FrontendError ("frontend setting 'pad_mode' must be \"reflect\" or \"constant\", not \"" + padMode + "\"");
    s.padMode = padMode == "reflect" ? PadMode::reflect : PadMode::constant;
    s.power = number (settings, "power", 2.0);
    if (! (s.power > 0.0 && s.power <= 4.0))
        throw FrontendError ("frontend setting 'power' must be in (0, 4]");
    const auto melScale = text (settings, "mel_scale", "htk");
    if (melScale != "htk" && melScale != "slaney")
        throw FrontendError ("frontend setting 'mel_scale' must be \"htk\" or \"slaney\"");
    s.melScale = melScale == "htk" ? MelScale::htk : MelScale::slaney;
    const auto norm = text (settings, "norm", "");
    if (! norm.empty() && norm != "slaney")
        throw FrontendError ("frontend setting 'norm' must be null or \"slaney\"");
    s.slaneyNorm = norm == "slaney";

    s.dbMultiplier = s.power == 2.0 ? 10.0 : 20.0;
    if (const auto* log = settings.find ("log"); log != nullptr && ! log->isNull())
    {
        if (! log->isObject())
            throw FrontendError ("frontend setting 'log' must be an object");
        const auto type = text (*log, "type", "db");
        if (type == "db")
        {
            s.logType = LogType::db;
            if (const auto* topDb = log->find ("top_db"); topDb != nullptr && ! topDb->isNull())
            {
                if (! topDb->isNumber() || topDb->asNumber() < 0.0)
                    throw FrontendError ("frontend setting 'log.top_db' must be a non-negative number or null");
                s.topDb = topDb->asNumber();
            }
            s.dbMultiplier = number (*log, "multiplier", s.dbMultiplier);
        }
        else if (type == "log")
        {
            s.logType = LogType::log;
            s.logOffset = number (*log, "offset", 1e-6);
        }
        else if (type == "none")
            s.logType = LogType::none;
        else
            throw FrontendError ("frontend setting 'log.type' must be \"db\", \"log\" or \"none\"");
    }
    else
        s.logType = LogType::none;
    s.mean = numbers (settings, "mean", 0.0f, s.nMels);
    s.std = numbers (settings, "std", 1.0f, s.nMels);
    for (float value : s.std)
        if (! (value > 0.0f))
            throw FrontendError ("frontend setting 'std' must be positive");

    if (settings.find ("window_samples") != nullptr)
        s.windowSamples = integer (settings, "window_samples", 0, 1, 1 << 26);
    else if (modelFrames.has_value())
    {
        const auto samples = static_cast<int64_t> (*modelFrames - 1) * s.hopLength + (s.center ? 0 : s.nFft);
        if (samples > (1 << 26))
            throw FrontendError (std::to_string (*modelFrames) + " frames need a window of " + std::to_string (samples) + " samples, more than 2^26");
        s.windowSamples = s.samplesForFrames (*modelFrames);
    }
    if (s.windowSamples > 0 && modelFrames.has_value() && s.numFrames (s.windowSamples) != *modelFrames)
        throw FrontendError ("window_samples " + std::to_string (s.windowSamples) + " gives " + std::to_string (s.numFrames (s.windowSamples))
                             + " frames but the model takes " + std::to_string (*modelFrames));
    if (s.center && s.padMode == PadMode::reflect && s.windowSamples > 0 && s.windowSamples <= s.nFft / 2)
        throw FrontendError ("reflect padding needs windows longer than n_fft / 2 samples");
    return s;
}

FrontendSettings FrontendSettings::fromModel (const engine::Model& model)
{
    const auto& info = model.info();
    const auto& input = info.inputShapes.front();
    if (isWaveformJson (info.frontendJson))
    {
        auto settings = fromJson (info.frontendJson);
        // One mono window: [N], [1, N] or [1, 1, N].
        if (input.rank() < 1 || input.rank() > 3 || input[input.rank() - 1] != settings.windowSamples
            || input.numElements() != settings.windowSamples)
            throw FrontendError ("the model's input " + input.toString() + " is not one mono waveform of window_samples = "
                                 + std::to_string (settings.windowSamples) + " samples");
        return settings;
    }
    if (input.rank() < 2)
        throw FrontendError ("the model's input " + input.toString() + " is not [..., n_mels, frames]");
    const int64_t frames = input[input.rank() - 1];
    if (frames < 1 || frames > (1 << 20))
        throw FrontendError ("the model's input " + input.toString() + " asks for " + std::to_string (frames) + " frames (the front end makes 1 to 2^20)");
    auto settings = fromJson (info.frontendJson, static_cast<int> (frames));
    if (input[input.rank() - 2] != settings.nMels)
        throw FrontendError ("the model's input " + input.toString() + " does not have n_mels = " + std::to_string (settings.nMels) + " rows");
    // The front end writes one window, n_mels x frames floats: every axis before them must be 1.
    if (input.numElements() != input.product (input.rank() - 2, input.rank()))
        throw FrontendError ("the model's input " + input.toString() + " holds more than one window of [n_mels, frames]: its leading axes must be 1");
    settings.useStoredTensors (model);
    return settings;
}

void FrontendSettings::useStoredTensors (const engine::Model& model)
{
    auto load = [&] (const char* name, engine::Shape expected, std::vector<float>& target) {
        const auto* tensor = model.storedTensor (name);
        if (tensor == nullptr)
            return;
        if (tensor->shape != expected)
            throw FrontendError (std::string ("stored ") + name + " is " + tensor->shape.toString() + ", expected " + expected.toString());
        const float* data = model.storedData (*tensor);
        target.assign (data, data + expected.numElements());
    };
    load ("frontend.window", engine::Shape { winLength }, window);
    load ("frontend.mel_fbanks", engine::Shape { numFreqs(), nMels }, melFilterbank);
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

} // namespace sonotype::dsp
