// The last ~30 s as a timeline heat map (time x class), with the top class framed in its row.
#pragma once

#include "gui/DisplayState.h"

#include <deque>

namespace sonotype::gui
{

class HistoryView final : public juce::Component
{
public:
    static constexpr double kSpanSeconds = 30.0;

    /** Appends the results newer than the last one seen (a new generation starts afresh). */
    void update (const std::vector<runtime::WindowResult>& newest, const DisplayState& state, double hopSeconds);
    void paint (juce::Graphics&) override;
    std::size_t numColumns() const noexcept { return columns_.size(); }

private:
    struct Column
    {
        double start, end;
        std::vector<float> probabilities;
        int topClass;
    };
    std::deque<Column> columns_;
    DisplayState state_;
    uint64_t generation_ = 0;
    int64_t lastWindow_ = -1;
    double hopSeconds_ = 0.25;
};

} // namespace sonotype::gui
