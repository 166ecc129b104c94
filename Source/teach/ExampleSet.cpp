#include "teach/ExampleSet.h"

#include "engine/file/Json.h"
#include "engine/file/JsonWriter.h"
#include "engine/file/ModelError.h"
#include "engine/file/Text.h"

#include <juce_core/juce_core.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace sonotype::teach
{

int64_t ExampleSet::totalSamples() const noexcept
{
    int64_t total = 0;
    for (const auto& taught : classes)
        for (const auto& example : taught.examples)
            total += static_cast<int64_t> (example.samples.size());
    return total;
}

std::string encodeExampleSet (const ExampleSet& set)
{
    using engine::JsonValue;
    JsonValue::Array classes;
    for (const auto& taught : set.classes)
    {
        JsonValue::Array examples;
        for (const auto& example : taught.examples)
        {
            juce::MemoryBlock pcm (example.samples.size() * 2);
            auto* bytes = static_cast<std::uint8_t*> (pcm.getData());
            for (std::size_t i = 0; i < example.samples.size(); ++i)
            {
                const float x = std::isfinite (example.samples[i]) ? std::clamp (example.samples[i], -1.0f, 1.0f) : 0.0f;
                const auto v = static_cast<std::uint16_t> (static_cast<int16_t> (std::lround (x * 32767.0f)));
                bytes[2 * i] = static_cast<std::uint8_t> (v & 0xff);
                bytes[2 * i + 1] = static_cast<std::uint8_t> (v >> 8);
            }
            examples.push_back (JsonValue::object ({ { "source", JsonValue::string (example.source) },
                                                     { "pcm16", JsonValue::string (juce::Base64::toBase64 (pcm.getData(), pcm.getSize()).toStdString()) } }));
        }
        auto item = JsonValue::object ({ { "name", JsonValue::string (taught.name) }, { "examples", JsonValue::array (std::move (examples)) } });
        if (taught.note >= 0 && taught.note <= 127) // absent: none chosen
            item.set ("note", JsonValue::integer (taught.note));
        classes.push_back (std::move (item));
    }
    auto json = JsonValue::object ({ { "sample_rate", JsonValue::number (set.sampleRate) },
                                     { "learned_on", JsonValue::string (set.learnedOn) },
                                     { "classes", JsonValue::array (std::move (classes)) } });
    if (set.hitsChosen) // absent: chosen by the examples' lengths
        json.set ("hits", JsonValue::boolean (set.hits));
    if (! std::isnan (set.unknownBelow)) // absent: calibrated
        json.set ("unknown_below", JsonValue::number (set.unknownBelow));
    // Names and sources that are not UTF-8 (a file name may not be) are written with U+FFFD in their place.
    return engine::writeJson (json, engine::InvalidUtf8::replace);
}

ExampleSet decodeExampleSet (std::string_view text)
{
    // The samples' text alone may take 4/3 x 2 bytes per sample; anything much longer is not a set.
    const auto maxSamples = static_cast<std::size_t> (ExampleSet::kMaxTotalSeconds * ExampleSet::kMaxSampleRate);
    const std::size_t maxText = maxSamples * 3 + (std::size_t { 1 } << 20);
    if (text.size() > maxText)
        throw std::invalid_argument ("the taught examples take " + std::to_string (text.size()) + " bytes, more than any set of examples ("
                                     + std::to_string (maxText) + ")");
    engine::JsonValue json;
    try
    {
        json = engine::parseJson (text);
    }
    catch (const engine::JsonError& e)
    {
        throw std::invalid_argument (std::string ("the taught examples are not valid JSON: ") + e.what());
    }
    try
    {
        ExampleSet set;
        set.sampleRate = json.at ("sample_rate").asNumber();
        if (! (set.sampleRate >= ExampleSet::kMinSampleRate && set.sampleRate <= ExampleSet::kMaxSampleRate))
            throw std::invalid_argument ("the taught examples' sample rate " + std::to_string (set.sampleRate) + " is outside 8000-48000 Hz");
        // Absent: each class's gate calibrated. Sets written before the gates all hold 0.5, the
        // default nothing could change then: they are calibrated too.
        if (const auto* below = json.find ("unknown_below"); below != nullptr && below->asNumber() != 0.5)
        {
            set.unknownBelow = below->asNumber();
            if (! (set.unknownBelow >= -1.0 && set.unknownBelow <= 1.0))
                throw std::invalid_argument ("the taught examples' unknown threshold is outside -1..1");
        }
        if (const auto* hits = json.find ("hits")) // absent: chosen by the examples' lengths
        {
            set.hits = hits->asBool();
            set.hitsChosen = true;
        }
        set.learnedOn = json.at ("learned_on").asString();
        if (! set.learnedOn.empty())
            engine::checkDisplayText (set.learnedOn, 1024, "base model identity");
        const auto& classes = json.at ("classes").asArray();
        if (classes.size() > static_cast<std::size_t> (ExampleSet::kMaxClasses))
            throw std::invalid_argument ("the taught examples hold " + std::to_string (classes.size()) + " classes, more than "
                                         + std::to_string (ExampleSet::kMaxClasses));
        const auto maxExampleSamples = static_cast<std::size_t> (std::ceil (ExampleSet::kMaxExampleSeconds * set.sampleRate));
        const auto maxTotal = static_cast<std::size_t> (std::ceil (ExampleSet::kMaxTotalSeconds * set.sampleRate));
        std::size_t total = 0;
        for (const auto& item : classes)
        {
            ClassSounds taught;
            taught.name = item.at ("name").asString();
            engine::checkDisplayText (taught.name, 256, "class name");
            if (const auto* note = item.find ("note"))
            {
                if (! note->isExactInteger() || note->asInt() < 0 || note->asInt() > 127)
                    throw std::invalid_argument ("the note of the class " + engine::quote (taught.name) + " is not a MIDI note (0-127)");
                taught.note = static_cast<int> (note->asInt());
            }
            const auto& examples = item.at ("examples").asArray();
            if (examples.size() > static_cast<std::size_t> (ExampleSet::kMaxExamplesPerClass))
                throw std::invalid_argument ("the class " + engine::quote (taught.name) + " holds " + std::to_string (examples.size())
                                             + " examples, more than " + std::to_string (ExampleSet::kMaxExamplesPerClass));
            for (const auto& e : examples)
            {
                ExampleSound example;
                example.source = e.at ("source").asString();
                engine::checkDisplayText (example.source, 1024, "example source");
                const auto& base64 = e.at ("pcm16").asString();
                // Checked before decoding: base64 of n bytes is 4 * ceil(n / 3) characters.
                if (base64.size() / 4 * 3 > 2 * maxExampleSamples + 3)
                    throw std::invalid_argument ("an example of " + engine::quote (taught.name) + " is longer than "
                                                 + std::to_string (static_cast<int> (ExampleSet::kMaxExampleSeconds)) + " s");
                juce::MemoryOutputStream pcm;
                if (! juce::Base64::convertFromBase64 (pcm, juce::StringRef (base64.c_str())) || pcm.getDataSize() % 2 != 0)
                    throw std::invalid_argument ("an example of " + engine::quote (taught.name) + " holds no 16-bit samples in base64");
                const auto count = pcm.getDataSize() / 2;
                total += count;
                if (count > maxExampleSamples || total > maxTotal)
                    throw std::invalid_argument ("the taught examples hold more than "
                                                 + std::to_string (static_cast<int> (ExampleSet::kMaxTotalSeconds)) + " s of sound");
                const auto* bytes = static_cast<const std::uint8_t*> (pcm.getData());
                example.samples.resize (count);
                for (std::size_t i = 0; i < count; ++i)
                    example.samples[i] = static_cast<float> (static_cast<int16_t> (static_cast<std::uint16_t> (bytes[2 * i] | (bytes[2 * i + 1] << 8))))
                                         / 32767.0f;
                taught.examples.push_back (std::move (example));
            }
            set.classes.push_back (std::move (taught));
        }
        return set;
    }
    catch (const engine::JsonError& e)
    {
        throw std::invalid_argument (std::string ("the taught examples are not as Sonotype writes them: ") + e.what());
    }
    catch (const engine::ModelError& e) // a name that is not text to show
    {
        throw std::invalid_argument (std::string ("the taught examples: ") + e.what());
    }
}

std::string modelIdentity (const std::string& name, const std::uint8_t* bytes, std::size_t numBytes)
{
    std::uint64_t hash = 14695981039346656037ull; // FNV-1a, 64 bits: an identity, not a defence
    for (std::size_t i = 0; i < numBytes; ++i)
        hash = (hash ^ bytes[i]) * 1099511628211ull;
    char hex[17];
    std::snprintf (hex, sizeof hex, "%016llx", static_cast<unsigned long long> (hash));
    return name + "#" + hex;
}

} // namespace sonotype::teach
