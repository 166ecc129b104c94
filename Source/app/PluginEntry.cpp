// The plugin binaries' entry point: the processor with its editor. JUCE's format wrappers (VST3,
// LV2, AU, Standalone) call createPluginFilter().
#include "gui/SonotypeEditor.h"
#include "plugin/SonotypeProcessor.h"

namespace sonotype::app
{

class SonotypePlugin final : public plugin::SonotypeProcessor
{
public:
    juce::AudioProcessorEditor* createEditor() override { return new gui::SonotypeEditor (*this); }
};

} // namespace sonotype::app

juce::AudioProcessor* JUCE_CALLTYPE createPluginFilter()
{
    return new sonotype::app::SonotypePlugin();
}
