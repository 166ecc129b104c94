#include "gui/TeachPanel.h"

#include "gui/Theme.h"

namespace sonotype::gui
{
namespace
{
    constexpr int kClassHeight = 30, kExampleHeight = 22;

    juce::String seconds (double s)
    {
        return juce::String (s, s < 10.0 ? 1 : 0) + " s";
    }
} // namespace

/** The classes and their examples: one header row per class (name, count, check, Record, Add
    files, remove), one line per example (source, length, check, remove). */
class TeachPanel::ClassList final : public juce::Component
{
public:
    explicit ClassList (TeachPanel& owner) : owner_ (owner) {}

    void setView (const plugin::TeachSession::View& view)
    {
        view_ = view;
        buttons_.clear();
        for (int c = 0; c < static_cast<int> (view.classes.size()); ++c)
        {
            addButton ("Record", "Record the input for the chosen length as an example of " + view.classes[static_cast<std::size_t> (c)].name,
                       [this, c] { owner_.startRecording (c, owner_.recordLength_.getSelectedId() / 10.0); });
            addButton ("Add files...", "Audio files or folders as examples (or drop them on the class)", [this, c] { owner_.chooseFiles (c); });
            addButton ("Remove", "Remove the class and its examples", [this, c] { owner_.processor_.teaching().removeClass (c); });
            for (int e = 0; e < static_cast<int> (view.classes[static_cast<std::size_t> (c)].examples.size()); ++e)
                addButton ("x", "Remove this example", [this, c, e] { owner_.processor_.teaching().removeExample (c, e); });
        }
        setSize (getWidth(), preferredHeight());
        resized();
        repaint();
    }

    int preferredHeight() const
    {
        int h = 0;
        for (const auto& c : view_.classes)
            h += kClassHeight + std::max<int> (1, static_cast<int> (c.examples.size())) * kExampleHeight + 6;
        return std::max (h, 40);
    }

    /** The class whose rows are at y, or -1. */
    int classAt (int y) const
    {
        int top = 0;
        for (int c = 0; c < static_cast<int> (view_.classes.size()); ++c)
        {
            const int h = kClassHeight + std::max<int> (1, static_cast<int> (view_.classes[static_cast<std::size_t> (c)].examples.size())) * kExampleHeight + 6;
            if (y >= top && y < top + h)
                return c;
            top += h;
        }
        return -1;
    }

    void resized() override
    {
        int top = 0, b = 0;
        const int w = getWidth();
        for (const auto& c : view_.classes)
        {
            buttons_[static_cast<std::size_t> (b++)]->setBounds (w - 262, top + 4, 70, kClassHeight - 8);
            buttons_[static_cast<std::size_t> (b++)]->setBounds (w - 186, top + 4, 100, kClassHeight - 8);
            buttons_[static_cast<std::size_t> (b++)]->setBounds (w - 80, top + 4, 76, kClassHeight - 8);
            int y = top + kClassHeight;
            for (std::size_t e = 0; e < c.examples.size(); ++e, y += kExampleHeight)
                buttons_[static_cast<std::size_t> (b++)]->setBounds (w - 28, y + 2, 24, kExampleHeight - 4);
            top += kClassHeight + std::max<int> (1, static_cast<int> (c.examples.size())) * kExampleHeight + 6;
        }
    }

    void paint (juce::Graphics& g) override
    {
        int top = 0;
        const int w = getWidth();
        for (int c = 0; c < static_cast<int> (view_.classes.size()); ++c)
        {
            const auto& taught = view_.classes[static_cast<std::size_t> (c)];
            const int h = kClassHeight + std::max<int> (1, static_cast<int> (taught.examples.size())) * kExampleHeight;
            g.setColour (c == owner_.dropTarget_ ? Colours::accent.withAlpha (0.25f) : Colours::panelEdge.withAlpha (0.5f));
            g.fillRoundedRectangle (juce::Rectangle<float> (0.0f, static_cast<float> (top), static_cast<float> (w), static_cast<float> (h)), 4.0f);
            g.setColour (classColour (c));
            g.fillRect (0, top, 4, h);
            g.setColour (Colours::text);
            g.setFont (juce::Font (15.0f, juce::Font::bold));
            g.drawText (taught.name, 10, top, 110, kClassHeight, juce::Justification::centredLeft, true);
            const int count = static_cast<int> (taught.examples.size());
            juce::String summary = count == 0 ? juce::String ("no examples yet: record, add or drop some")
                                              : juce::String (count) + (count == 1 ? " example" : " examples");
            if (count > 1 && taught.examples.front().checked)
                summary = juce::String (taught.recognised) + "/" + juce::String (count) + " recognised";
            if (taught.baseClass)
                summary += " (the model's own)";
            g.setColour (Colours::dimText);
            g.setFont (13.0f);
            g.drawFittedText (summary, 120, top, w - 120 - 266, kClassHeight, juce::Justification::centredLeft, 1, 0.8f);
            int y = top + kClassHeight;
            for (const auto& example : taught.examples)
            {
                g.setColour (Colours::text);
                g.drawText (example.source, 16, y, w / 2 - 16, kExampleHeight, juce::Justification::centredLeft, true);
                g.setColour (Colours::dimText);
                g.drawText (seconds (example.seconds), w / 2, y, 60, kExampleHeight, juce::Justification::centredLeft, true);
                if (example.checked && count > 1)
                {
                    const bool right = example.heardAs >= 0 && example.heardAs < view_.labels.size() && view_.labels[example.heardAs] == taught.name;
                    g.setColour (right ? Colours::accent : Colours::warning);
                    const auto heard = example.heardAs >= 0 && example.heardAs < view_.labels.size() ? view_.labels[example.heardAs] : juce::String ("?");
                    g.drawText (right ? juce::String ("recognised") : "heard as " + heard, w / 2 + 60, y, w / 2 - 92, kExampleHeight,
                                juce::Justification::centredLeft, true);
                }
                y += kExampleHeight;
            }
            top += h + 6;
        }
    }

private:
    void addButton (const juce::String& text, const juce::String& tooltip, std::function<void()> onClick)
    {
        auto button = std::make_unique<juce::TextButton> (text);
        button->setTooltip (tooltip);
        button->onClick = std::move (onClick);
        addAndMakeVisible (*button);
        buttons_.push_back (std::move (button));
    }

    TeachPanel& owner_;
    plugin::TeachSession::View view_;
    std::vector<std::unique_ptr<juce::TextButton>> buttons_;
};

TeachPanel::TeachPanel (plugin::SonotypeProcessor& processor) : processor_ (processor), list_ (std::make_unique<ClassList> (*this))
{
    name_.setTextToShowWhenEmpty ("new class (kick) or the model's (piano)", Colours::dimText);
    name_.setTooltip ("A new class, or one of the model's own classes to adapt it to your sounds");
    name_.onReturnKey = [this] { addClassFromField(); };
    addButton_.onClick = [this] { addClassFromField(); };
    for (const auto& [id, text] : { std::pair { 10, "1 s" }, { 20, "2 s" }, { 30, "3 s" }, { 50, "5 s" }, { 100, "10 s" } })
        recordLength_.addItem (text, id);
    recordLength_.setSelectedId (30, juce::dontSendNotification);
    recordLength_.setTooltip ("How long Record listens");
    enabledToggle_.setTooltip ("On: the taught classes answer (bars, history, MIDI, files). Off: the model's own classes; the examples stay");
    enabledToggle_.onClick = [this] { processor_.teaching().setEnabled (enabledToggle_.getToggleState()); };
    exportButton_.setTooltip ("Save the taught classes as one model file (with their examples) for sonotype classify, another instance or computer");
    importButton_.setTooltip ("Take the classes and examples of a model file exported here");
    exportButton_.onClick = [this] { chooseExport(); };
    importButton_.onClick = [this] { chooseImport(); };
    viewport_.setViewedComponent (list_.get(), false);
    viewport_.setScrollBarsShown (true, false);
    for (auto* c : std::initializer_list<juce::Component*> { &name_, &addButton_, &recordLength_, &enabledToggle_, &exportButton_, &importButton_, &viewport_ })
        addAndMakeVisible (c);
    refresh();
}

TeachPanel::~TeachPanel() = default;

void TeachPanel::refresh()
{
    auto& recorder = processor_.recorder();
    if (recordingClass_ >= 0)
    {
        if (auto samples = recorder.take(); ! samples.empty())
        {
            report (processor_.teaching().addSound (recordingClass_, samples, recorder.sampleRate(), "input " + juce::String (++recordings_)));
            recordingClass_ = -1;
        }
        repaint();
    }
    auto view = processor_.teaching().view();
    enabledToggle_.setToggleState (view.enabled, juce::dontSendNotification);
    if (view.version != view_.version || view.busy != view_.busy)
    {
        view_ = std::move (view);
        rebuild();
    }
}

void TeachPanel::rebuild()
{
    list_->setView (view_);
    exportButton_.setEnabled (! view_.labels.isEmpty());
    resized();
    repaint();
}

juce::String TeachPanel::statusText() const
{
    if (recordingClass_ >= 0 && recordingClass_ < static_cast<int> (view_.classes.size()))
    {
        const auto share = juce::roundToInt (100.0 * processor_.recorder().progress());
        return "Recording " + view_.classes[static_cast<std::size_t> (recordingClass_)].name + ": " + juce::String (share) + "%"
               + (share == 0 && processor_.wrapperType == juce::AudioProcessor::wrapperType_Standalone ? " (tick Input, or play a file)" : "");
    }
    if (view_.error.isNotEmpty())
        return view_.error;
    if (view_.classes.empty())
        return "Teach it your sounds: name a class, then record, add or drop a few seconds of it";
    if (view_.pendingFiles > 0)
        return "Reading " + juce::String (view_.pendingFiles) + " files...";
    if (view_.busy)
        return "Learning...";
    int examples = 0, recognised = 0, checked = 0;
    for (const auto& c : view_.classes)
    {
        examples += static_cast<int> (c.examples.size());
        if (c.examples.size() > 1)
        {
            recognised += c.recognised;
            checked += static_cast<int> (c.examples.size());
        }
    }
    if (examples == 0)
        return "Give each class an example";
    juce::String text = "Learned " + juce::String (view_.labels.size() - (view_.labels.contains ("unknown") ? 1 : 0)) + " classes from "
                        + juce::String (examples) + " examples (" + seconds (view_.storedSeconds) + ") on " + view_.baseName + " in "
                        + juce::String (juce::roundToInt (view_.learnMilliseconds)) + " ms";
    if (checked > 0)
        text += "; leave one out: " + juce::String (recognised) + " of " + juce::String (checked) + " recognised";
    return text + (view_.runningTaught ? "" : ". Off: the model's own classes answer");
}

void TeachPanel::paint (juce::Graphics& g)
{
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (getLocalBounds().toFloat(), 6.0f);
    const auto status = statusText();
    const bool isError = view_.error.isNotEmpty() && recordingClass_ < 0;
    g.setColour (isError ? Colours::error : Colours::dimText);
    g.setFont (13.0f);
    g.drawFittedText (status, getLocalBounds().reduced (8, 0).withTrimmedTop (66).withHeight (30), juce::Justification::centredLeft, 2);
}

void TeachPanel::resized()
{
    auto area = getLocalBounds().reduced (8, 6);
    auto row = area.removeFromTop (26);
    name_.setBounds (row.removeFromLeft (std::max (150, row.getWidth() - 380)));
    row.removeFromLeft (6);
    addButton_.setBounds (row.removeFromLeft (84));
    row.removeFromLeft (6);
    exportButton_.setBounds (row.removeFromRight (84));
    row.removeFromRight (6);
    importButton_.setBounds (row.removeFromRight (84));
    row.removeFromRight (6);
    recordLength_.setBounds (row);
    area.removeFromTop (6);
    enabledToggle_.setBounds (area.removeFromTop (24).removeFromLeft (240));
    area.removeFromTop (34); // the status line (painted)
    viewport_.setBounds (area);
    list_->setSize (std::max (300, viewport_.getWidth() - viewport_.getScrollBarThickness()), list_->preferredHeight());
}

bool TeachPanel::isInterestedInFileDrag (const juce::StringArray&)
{
    return ! view_.classes.empty();
}

void TeachPanel::filesDropped (const juce::StringArray& files, int x, int y)
{
    const auto inList = list_->getLocalPoint (this, juce::Point<int> (x, y));
    int target = list_->classAt (inList.y);
    if (target < 0)
        target = static_cast<int> (view_.classes.size()) - 1; // below the list: the last class
    juce::Array<juce::File> paths;
    for (const auto& f : files)
        paths.add (juce::File (f));
    report (processor_.teaching().addFiles (target, paths));
}

void TeachPanel::startRecording (int classIndex, double length)
{
    const double rate = processor_.getSampleRate() > 0.0 ? processor_.getSampleRate() : 48000.0;
    processor_.recorder().start (length, rate);
    recordingClass_ = classIndex;
    repaint();
}

void TeachPanel::addClassFromField()
{
    const auto error = processor_.teaching().addClass (name_.getText());
    report (error);
    if (error.isEmpty())
        name_.clear();
}

void TeachPanel::report (const juce::String& error)
{
    if (error.isNotEmpty())
        processor_.setStatus (error, true);
}

void TeachPanel::chooseFiles (int classIndex)
{
    chooser_ = std::make_unique<juce::FileChooser> ("Examples for " + view_.classes[static_cast<std::size_t> (classIndex)].name, juce::File(),
                                                    "*.wav;*.aif;*.aiff;*.flac;*.ogg;*.mp3;*.opus");
    chooser_->launchAsync (juce::FileBrowserComponent::openMode | juce::FileBrowserComponent::canSelectFiles
                               | juce::FileBrowserComponent::canSelectDirectories | juce::FileBrowserComponent::canSelectMultipleItems,
                           [this, classIndex] (const juce::FileChooser& chooser) {
                               if (! chooser.getResults().isEmpty())
                                   report (processor_.teaching().addFiles (classIndex, chooser.getResults()));
                           });
}

void TeachPanel::chooseExport()
{
    chooser_ = std::make_unique<juce::FileChooser> ("Export the taught model",
                                                    juce::File::getSpecialLocation (juce::File::userDocumentsDirectory).getChildFile ("taught.safetensors"),
                                                    "*.safetensors");
    chooser_->launchAsync (juce::FileBrowserComponent::saveMode | juce::FileBrowserComponent::canSelectFiles | juce::FileBrowserComponent::warnAboutOverwriting,
                           [this] (const juce::FileChooser& chooser) {
                               const auto file = chooser.getResult();
                               if (file == juce::File())
                                   return;
                               if (const auto error = processor_.teaching().exportModel (file); error.isNotEmpty())
                                   processor_.setStatus (error, true);
                               else
                                   processor_.setStatus ("Exported the taught classes to " + file.getFileName()
                                                             + ": run it with sonotype classify --model, or import it in another instance",
                                                         false);
                           });
}

void TeachPanel::chooseImport()
{
    chooser_ = std::make_unique<juce::FileChooser> ("Import taught classes", juce::File(), "*.safetensors");
    chooser_->launchAsync (juce::FileBrowserComponent::openMode | juce::FileBrowserComponent::canSelectFiles, [this] (const juce::FileChooser& chooser) {
        if (chooser.getResult() != juce::File())
            report (processor_.teaching().importModel (chooser.getResult()));
    });
}

} // namespace sonotype::gui
