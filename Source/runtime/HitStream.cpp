#include "runtime/HitStream.h"

namespace sonotype::runtime
{

void HitStream::request (std::optional<dsp::OnsetSettings> onsets)
{
    {
        const std::lock_guard<std::mutex> lock (requestMutex_);
        request_ = onsets;
    }
    hasRequest_.store (true, std::memory_order_release);
}

bool HitStream::takeRequest()
{
    if (! hasRequest_.load (std::memory_order_acquire))
        return false;
    std::optional<dsp::OnsetSettings> request;
    {
        const std::lock_guard<std::mutex> lock (requestMutex_);
        request = request_;
        hasRequest_.store (false, std::memory_order_release);
    }
    const bool restart = request != onsets_ || analyzer_ == nullptr; // (the same settings: the hits pending go on)
    onsets_ = request;
    return restart;
}

void HitStream::restart (const std::shared_ptr<const engine::Model>& model, double hostSampleRate, int64_t streamSample)
{
    analyzer_.reset();
    if (! onsets_.has_value())
        return;
    startSample_ = streamSample;
    try
    {
        analyzer_ = std::make_unique<HitClassifier> (model, hostSampleRate, hitSettingsFor (*model, *onsets_));
    }
    catch (const std::exception& e)
    {
        reportError_ ("no per-hit analysis: ", e.what());
    }
}

int64_t HitStream::push (const float* samples, std::size_t count, const AnalysisInfo& info, const ClassSelector& classesInPlay)
{
    if (analyzer_ == nullptr)
        return 0;
    int64_t found = 0;
    try
    {
        if (classesInPlay)
            analyzer_->setClassesInPlay (classesInPlay (info));
        analyzer_->push (samples, count, [&] (const HitResult& hit) {
            ++found;
            if (listener_)
                listener_ (hit, startSample_ + hit.onset, info);
        });
    }
    catch (const std::exception& e)
    {
        // The windows go on; the hits stop until the next request, model or rate.
        analyzer_.reset();
        reportError_ ("the per-hit analysis stopped: ", e.what());
    }
    return found;
}

} // namespace sonotype::runtime
