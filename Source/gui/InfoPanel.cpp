#include "gui/InfoPanel.h"

#include "gui/Theme.h"

namespace sonotype::gui
{

void InfoPanel::update (const plugin::ModelDescription& model, const plugin::LiveSnapshot& snapshot)
{
    juce::StringArray modelLines, statsLines;
    const auto& info = *snapshot.info;
    modelLines.add ("Model: " + model.name);
    modelLines.add (juce::String (info.labels.size()) + " classes, " + juce::String (info.modelSampleRate / 1000.0, 1) + " kHz, window "
                    + juce::String (info.windowSeconds, 2) + " s, hop " + juce::String (info.hopSeconds, 2) + " s");
    const auto& stats = snapshot.stats;
    statsLines.add ("Inference " + juce::String (stats.lastInferenceMs, 2) + " ms (mean " + juce::String (stats.meanInferenceMs, 2) + ", max "
                    + juce::String (stats.maxInferenceMs, 1) + ")");
    statsLines.add ("Worker load " + juce::String (stats.workerLoad * 100.0, 1) + "%, windows " + juce::String (stats.windowsRun) + ", skipped "
                    + juce::String (stats.windowsSkipped) + (stats.fifoOverruns > 0 ? ", dropped " + juce::String (stats.fifoOverruns) + " samples" : juce::String()));
    if (const auto& hits = snapshot.hits; hits.on)
    {
        const auto ms = [] (double seconds) { return juce::String (juce::roundToInt (seconds * 1000.0)) + " ms"; };
        if (hits.live)
            statsLines.add ("Per hit: live (first " + ms (hits.liveSpanSeconds) + "), latency " + ms (hits.latencySeconds));
        else if (hits.liveWanted && hits.kit) // (no audio yet: the live path starts with the stream)
            statsLines.add ("Per hit: live, waiting for audio");
        else if (hits.liveWanted) // Live chosen, but the model has no kit taught from hits
            statsLines.add ("Per hit: exact (no kit), clip " + juce::String (hits.clipSeconds, 2) + " s, " + ms (hits.latencySeconds));
        else
            statsLines.add ("Per hit: exact, clip " + juce::String (hits.clipSeconds, 2) + " s" + (hits.taughtClip ? " (taught)" : "") + ", latency "
                            + ms (hits.latencySeconds));
        statsLines.add ("Hits " + juce::String (hits.hits) + ", notes " + juce::String (hits.notes)
                        + (hits.lastDelaySeconds >= 0.0 ? ", last " + ms (hits.lastDelaySeconds) + " after its hit" : juce::String()));
    }
    if (modelLines != modelLines_ || statsLines != statsLines_)
    {
        modelLines_ = modelLines;
        statsLines_ = statsLines;
        repaint();
    }
}

void InfoPanel::paint (juce::Graphics& g)
{
    auto area = getLocalBounds().toFloat();
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (area, 6.0f);
    area = area.reduced (8.0f, 4.0f);
    // Room for five and a half lines; in per-hit mode its two lines make six.
    const float lineHeight = area.getHeight() / std::max (5.5f, static_cast<float> (modelLines_.size() + statsLines_.size()));
    g.setFont (lineHeight * 0.8f);
    for (const auto* lines : { &modelLines_, &statsLines_ })
        for (const auto& line : *lines)
        {
            g.setColour (lines == &modelLines_ ? Colours::text : Colours::dimText);
            g.drawFittedText (line, area.removeFromTop (lineHeight).toNearestInt(), juce::Justification::centredLeft, 1, 0.7f);
        }
}

} // namespace sonotype::gui
