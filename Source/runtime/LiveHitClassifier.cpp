#include "runtime/LiveHitClassifier.h"

#include "engine/Model.h"
#include "engine/file/Json.h"
#include "engine/file/ModelFileKeys.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace sonotype::runtime
{
namespace
{
    constexpr int kSize = dsp::HitSignature::kSize;

    bool allFinite (std::span<const float> values)
    {
        return std::all_of (values.begin(), values.end(), [] (float v) { return std::isfinite (v); });
    }

    std::string tensorName (const engine::JsonValue& record, const char* key)
    {
        const auto* name = record.find (key);
        if (name == nullptr || ! name->isString())
            throw std::invalid_argument (std::string ("the live hits record has no tensor name for \"") + key + "\"");
        return name->asString();
    }

    /** The stored tensor the record's `key` names, of `elements` floats; throws naming the key. */
    std::span<const float> namedTensor (const engine::Model& model, const engine::JsonValue& record, const char* key, int64_t elements)
    {
        const auto name = tensorName (record, key);
        const auto* tensor = model.storedTensor (name);
        if (tensor == nullptr)
            throw std::invalid_argument ("the live hits record names a tensor the file does not have: " + name);
        if (tensor->shape.numElements() != elements)
            throw std::invalid_argument ("the live hits tensor " + name + " holds " + std::to_string (tensor->shape.numElements())
                                         + " values, not " + std::to_string (elements));
        return { model.storedData (*tensor), static_cast<std::size_t> (elements) };
    }

    double numberIn (const engine::JsonValue& record, const char* key)
    {
        const auto* value = record.find (key);
        if (value == nullptr || ! value->isNumber())
            throw std::invalid_argument (std::string ("the live hits record has no number \"") + key + "\"");
        return value->asNumber();
    }
} // namespace

void LiveHitKit::check (int numLabels) const
{
    const auto n = labels.size();
    if (n == 0 || n > static_cast<std::size_t> (kMaxExamples))
        throw std::invalid_argument ("a live hit kit holds 1 to " + std::to_string (kMaxExamples) + " examples, not " + std::to_string (n));
    if (signatures.size() != n * kSize)
        throw std::invalid_argument ("a live hit kit's signatures do not match its examples (" + std::to_string (signatures.size()) + " values for "
                                     + std::to_string (n) + " examples of " + std::to_string (kSize) + ")");
    if (scales.size() != static_cast<std::size_t> (kSize) || ! allFinite (scales)
        || std::any_of (scales.begin(), scales.end(), [] (float s) { return ! (s > 0.0f); }))
        throw std::invalid_argument ("a live hit kit needs " + std::to_string (kSize) + " finite positive scales");
    if (! (std::isfinite (gate) && gate > 0.0f))
        throw std::invalid_argument ("a live hit kit's gate must be finite and positive");
    if (! (afterSeconds > 0.001 && afterSeconds <= 0.1))
        throw std::invalid_argument ("a live hit kit's span after the onset must be over 1 ms and at most 0.1 s");
    if (! allFinite (signatures))
        throw std::invalid_argument ("a live hit kit's signatures must be finite");
    for (const int label : labels)
        if (label < 0 || label >= numLabels)
            throw std::invalid_argument ("a live hit kit's example has label " + std::to_string (label) + ", outside the model's "
                                         + std::to_string (numLabels));
}

std::optional<LiveHitKit> liveHitKitOf (const engine::Model& model)
{
    const auto& metadata = model.info().metadata;
    const auto taught = metadata.find (engine::keys::taught);
    if (taught == metadata.end())
        return std::nullopt;
    engine::JsonValue json;
    try
    {
        json = engine::parseJson (taught->second);
    }
    catch (const engine::JsonError&)
    {
        return std::nullopt; // (the taught record is not ours to judge here: inspect says what is wrong with it)
    }
    const auto* record = json.isObject() ? json.find (engine::keys::taughtLiveHits) : nullptr;
    if (record == nullptr)
        return std::nullopt;
    if (! record->isObject())
        throw std::invalid_argument ("the live hits record is not an object");
    const auto* labelTensor = model.storedTensor (tensorName (*record, engine::keys::liveHitLabels));
    if (labelTensor == nullptr)
        throw std::invalid_argument ("the live hits record names no stored tensor of labels");
    const auto n = labelTensor->shape.numElements();
    if (n < 1 || n > LiveHitKit::kMaxExamples)
        throw std::invalid_argument ("a live hit kit holds 1 to " + std::to_string (LiveHitKit::kMaxExamples) + " examples, not " + std::to_string (n));
    LiveHitKit kit;
    const auto signatures = namedTensor (model, *record, engine::keys::liveHitSignatures, n * kSize);
    const auto labels = namedTensor (model, *record, engine::keys::liveHitLabels, n);
    const auto scales = namedTensor (model, *record, engine::keys::liveHitScales, kSize);
    kit.signatures.assign (signatures.begin(), signatures.end());
    kit.scales.assign (scales.begin(), scales.end());
    for (const float label : labels)
    {
        if (! (label >= 0.0f && label < 1e6f) || label != std::floor (label))
            throw std::invalid_argument ("a live hit kit's labels must be whole numbers");
        kit.labels.push_back (static_cast<int> (label));
    }
    kit.gate = static_cast<float> (numberIn (*record, engine::keys::liveHitGate));
    kit.afterSeconds = numberIn (*record, engine::keys::liveHitAfter);
    kit.check (static_cast<int> (model.info().labels.size()));
    return kit;
}

std::shared_ptr<const LiveHitClassifier> liveHitClassifierFor (const engine::Model& model)
{
    auto kit = liveHitKitOf (model);
    if (! kit.has_value())
        return nullptr;
    const auto& labels = model.info().labels;
    const auto unknown = std::find (labels.begin(), labels.end(), "unknown");
    return std::make_shared<const LiveHitClassifier> (std::move (*kit), static_cast<int> (labels.size()),
                                                      unknown == labels.end() ? -1 : static_cast<int> (unknown - labels.begin()));
}

LiveHitClassifier::LiveHitClassifier (LiveHitKit kit, int numLabels, int unknownLabel)
    : kit_ (std::move (kit)), numLabels_ (numLabels), unknownLabel_ (unknownLabel)
{
    kit_.check (numLabels);
    if (unknownLabel < -1 || unknownLabel >= numLabels)
        throw std::invalid_argument ("the live hit classifier's unknown label is outside the model's labels");
    scaled_.resize (kit_.signatures.size());
    for (std::size_t i = 0; i < scaled_.size(); ++i)
        scaled_[i] = kit_.signatures[i] / kit_.scales[i % kSize];
}

void LiveHitClassifier::distances (const dsp::HitSignature::Values& signature, std::span<float> out) const noexcept
{
    std::array<float, kSize> scaled {};
    std::array<bool, kSize> used {}; // a number the hit has not (its rate cannot hold the air band) counts for nothing
    for (int d = 0; d < kSize; ++d)
    {
        used[static_cast<std::size_t> (d)] = ! std::isnan (signature[static_cast<std::size_t> (d)]);
        scaled[static_cast<std::size_t> (d)] = used[static_cast<std::size_t> (d)] ? signature[static_cast<std::size_t> (d)] / kit_.scales[static_cast<std::size_t> (d)] : 0.0f;
    }
    std::fill (out.begin(), out.end(), std::numeric_limits<float>::infinity());
    for (int e = 0; e < kit_.numExamples(); ++e)
    {
        const float* example = scaled_.data() + static_cast<std::size_t> (e) * kSize;
        float sum = 0.0f;
        for (int d = 0; d < kSize; ++d)
        {
            const float difference = used[static_cast<std::size_t> (d)] ? scaled[static_cast<std::size_t> (d)] - example[d] : 0.0f;
            sum += difference * difference;
        }
        auto& nearest = out[static_cast<std::size_t> (kit_.labels[static_cast<std::size_t> (e)])];
        nearest = std::min (nearest, std::sqrt (sum / kSize));
    }
}

int LiveHitClassifier::classify (const dsp::HitSignature::Values& signature, std::span<float> probabilities) const noexcept
{
    distances (signature, probabilities);
    int best = -1;
    for (int c = 0; c < numLabels_; ++c)
        if (std::isfinite (probabilities[static_cast<std::size_t> (c)])
            && (best < 0 || probabilities[static_cast<std::size_t> (c)] < probabilities[static_cast<std::size_t> (best)]))
            best = c;
    if (best < 0 || ! std::isfinite (probabilities[static_cast<std::size_t> (best)]))
    {
        std::fill (probabilities.begin(), probabilities.end(), 0.0f);
        if (unknownLabel_ >= 0)
            probabilities[static_cast<std::size_t> (unknownLabel_)] = 1.0f;
        return -1;
    }
    const float nearest = probabilities[static_cast<std::size_t> (best)];
    float sum = 0.0f;
    for (auto& p : probabilities)
    {
        p = std::isfinite (p) ? std::exp (-0.5f * (p * p - nearest * nearest)) : 0.0f;
        sum += p;
    }
    const bool unknown = nearest > kit_.gate;
    for (auto& p : probabilities)
        p /= sum;
    if (unknown && unknownLabel_ >= 0)
    {
        // Beyond the gate: unknown takes the lead (its share the best class's, plus a little).
        const float share = std::min (1.0f, probabilities[static_cast<std::size_t> (best)] + 0.01f);
        for (auto& p : probabilities)
            p *= (1.0f - share);
        probabilities[static_cast<std::size_t> (unknownLabel_)] = share;
    }
    return unknown ? -1 : best;
}

} // namespace sonotype::runtime
