#include "gui/TeachPanel.h"

#include "formats/AudioFormats.h"
#include "gui/Theme.h"
#include "plugin/PluginParameters.h"
#include "timeline/NoteMap.h"

namespace sonotype::gui
{
namespace
{
    juce::String seconds (double s)
    {
        return (s < 10.0 ? juce::String (s, 1) : juce::String (juce::roundToInt (s))) + " s";
    }

    juce::String count (int n, const char* one, const char* many)
    {
        return juce::String (n) + " " + (n == 1 ? one : many);
    }

    /** The editor's scale (its width over the design width), from the look-and-feel it set. */
    float scaleOf (const juce::Component& component)
    {
        const auto* look = dynamic_cast<const SonotypeLookAndFeel*> (&component.getLookAndFeel());
        return look != nullptr ? look->scale() : 1.0f;
    }
} // namespace

/** The classes and their examples: one header row per class (name, count, check, Record, Add
    files, remove), one line per example (source, length, check, remove). */
class TeachPanel::ClassList final : public juce::Component
{
public:
    explicit ClassList (TeachPanel& owner) : owner_ (owner) {}

    /** Sizes at the editor's scale. */
    int px (float v) const { return juce::roundToInt (v * owner_.scale_); }
    int classHeight() const { return px (30.0f); }
    int summaryHeight() const { return px (18.0f); } // the class's line under its name and note: its examples and checks
    int exampleHeight() const { return px (22.0f); }
    int rowsHeight (const plugin::Teaching::ClassView& c) const
    {
        return classHeight() + summaryHeight() + std::max<int> (1, static_cast<int> (c.examples.size())) * exampleHeight();
    }

    void setView (const plugin::Teaching::View& view, int baseNote)
    {
        view_ = view;
        recordButtons_.clear();
        buttons_.clear();
        notes_.clear();
        const auto played = plugin::Teaching::playedNotes (view, baseNote);
        for (int c = 0; c < static_cast<int> (view.classes.size()); ++c)
        {
            addNoteMenu (c, view.classes[static_cast<std::size_t> (c)].note, played[static_cast<std::size_t> (c)]);
            addButton ("Record", {}, [this, c] {
                if (owner_.recordingClass_ == c)
                    owner_.stopRecording();
                else
                    owner_.startRecording (c, owner_.recordLength_.getSelectedId() / 10.0);
            });
            recordButtons_.push_back (buttons_.back().get());
            addButton ("Add files...", "Audio files or folders as examples (or drop them on the class)", [this, c] { owner_.chooseFiles (c); });
            addButton ("Remove", "Remove the class and its examples", [this, c] { owner_.processor_.teaching().removeClass (c); });
            for (int e = 0; e < static_cast<int> (view.classes[static_cast<std::size_t> (c)].examples.size()); ++e)
                addButton ("x", "Remove this example", [this, c, e] { owner_.processor_.teaching().removeExample (c, e); });
        }
        setSize (getWidth(), preferredHeight());
        resized();
        repaint();
    }

    /** The Record buttons as a recording and the device say: Stop on the class recording (always
        clickable, audio or not), Record elsewhere, disabled with the reason while nothing can be
        recorded. */
    void updateRecordButtons (int recordingClass, bool canRecord)
    {
        for (int c = 0; c < static_cast<int> (recordButtons_.size()); ++c)
        {
            auto& button = *recordButtons_[static_cast<std::size_t> (c)];
            const bool recording = c == recordingClass;
            button.setButtonText (recording ? "Stop" : "Record");
            button.setEnabled (recording || canRecord);
            const auto& name = view_.classes[static_cast<std::size_t> (c)].name;
            button.setTooltip (recording   ? "Stop recording: what was heard so far becomes an example of " + name
                               : canRecord ? "Record the input for the chosen length as an example of " + name
                                           : juce::String (kNoInputReason));
        }
    }

    juce::Button* recordButton (int classIndex) const noexcept
    {
        return classIndex >= 0 && classIndex < static_cast<int> (recordButtons_.size()) ? recordButtons_[static_cast<std::size_t> (classIndex)] : nullptr;
    }

    int preferredHeight() const
    {
        int h = 0;
        for (const auto& c : view_.classes)
            h += rowsHeight (c) + px (6.0f);
        return std::max (h, px (40.0f));
    }

    juce::ComboBox* noteMenu (int classIndex) const
    {
        return classIndex >= 0 && classIndex < static_cast<int> (notes_.size()) ? notes_[static_cast<std::size_t> (classIndex)].get() : nullptr;
    }

    /** The class whose rows are at y, or -1. */
    int classAt (int y) const
    {
        int top = 0;
        for (int c = 0; c < static_cast<int> (view_.classes.size()); ++c)
        {
            const int h = rowsHeight (view_.classes[static_cast<std::size_t> (c)]) + px (6.0f);
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
        for (std::size_t n = 0; n < notes_.size(); ++n)
        {
            const int buttonTop = top + px (4.0f), buttonHeight = classHeight() - px (8.0f);
            notes_[n]->setBounds (px (120.0f), buttonTop, px (112.0f), buttonHeight);
            top += rowsHeight (view_.classes[n]) + px (6.0f);
        }
        top = 0;
        for (const auto& c : view_.classes)
        {
            const int buttonTop = top + px (4.0f), buttonHeight = classHeight() - px (8.0f);
            buttons_[static_cast<std::size_t> (b++)]->setBounds (w - px (262.0f), buttonTop, px (70.0f), buttonHeight);
            buttons_[static_cast<std::size_t> (b++)]->setBounds (w - px (186.0f), buttonTop, px (100.0f), buttonHeight);
            buttons_[static_cast<std::size_t> (b++)]->setBounds (w - px (80.0f), buttonTop, px (76.0f), buttonHeight);
            int y = top + classHeight() + summaryHeight();
            for (std::size_t e = 0; e < c.examples.size(); ++e, y += exampleHeight())
                buttons_[static_cast<std::size_t> (b++)]->setBounds (w - px (28.0f), y + px (2.0f), px (24.0f), exampleHeight() - px (4.0f));
            top += rowsHeight (c) + px (6.0f);
        }
    }

    void paint (juce::Graphics& g) override
    {
        int top = 0;
        const int w = getWidth(), ch = classHeight(), eh = exampleHeight();
        const float scale = owner_.scale_;
        for (int c = 0; c < static_cast<int> (view_.classes.size()); ++c)
        {
            const auto& taught = view_.classes[static_cast<std::size_t> (c)];
            const int h = rowsHeight (taught);
            g.setColour (c == owner_.dropTarget_ ? Colours::accent.withAlpha (0.25f) : Colours::panelEdge.withAlpha (0.5f));
            g.fillRoundedRectangle (juce::Rectangle<float> (0.0f, static_cast<float> (top), static_cast<float> (w), static_cast<float> (h)), 4.0f * scale);
            g.setColour (classColour (c, taught.name));
            g.fillRect (0, top, px (4.0f), h);
            g.setColour (Colours::text);
            g.setFont (juce::Font (15.0f * scale, juce::Font::bold));
            g.drawText (taught.name, px (10.0f), top, px (110.0f), ch, juce::Justification::centredLeft, true);
            g.setColour (Colours::dimText);
            g.setFont (13.0f * scale);
            g.drawFittedText (summary (taught), px (14.0f), top + ch - px (4.0f), w - px (20.0f), summaryHeight(), juce::Justification::centredLeft, 1, 0.8f);
            int y = top + ch + summaryHeight();
            for (const auto& example : taught.examples)
            {
                g.setColour (Colours::text);
                g.drawText (example.source, px (16.0f), y, w / 2 - px (16.0f), eh, juce::Justification::centredLeft, true);
                g.setColour (Colours::dimText);
                g.drawText (seconds (example.seconds), w / 2, y, px (60.0f), eh, juce::Justification::centredLeft, true);
                const auto [check, right] = checkText (taught, example);
                g.setColour (right ? Colours::accent : Colours::warning);
                g.drawText (check, w / 2 + px (60.0f), y, w / 2 - px (92.0f), eh, juce::Justification::centredLeft, true);
                y += eh;
            }
            top += h + px (6.0f);
        }
    }

private:
    /** The class's header line: how many examples (hits), how many the others recognise. */
    juce::String summary (const plugin::Teaching::ClassView& taught) const
    {
        const int examples = static_cast<int> (taught.examples.size());
        juce::String text = examples == 0 ? juce::String ("no examples yet: record, add or drop some") : count (examples, "example", "examples");
        const bool checked = examples > 0 && taught.examples.front().checked;
        if (view_.hits && checked)
            text = taught.hits > 1 ? juce::String (taught.recognised) + "/" + juce::String (taught.hits) + " hits recognised" : count (taught.hits, "hit", "hits");
        else if (examples > 1 && checked)
            text = juce::String (taught.recognised) + "/" + juce::String (examples) + " recognised";
        if (taught.baseClass)
            text += " (the model's own)";
        return text;
    }

    /** An example's leave-one-out check, and whether it is all right. */
    std::pair<juce::String, bool> checkText (const plugin::Teaching::ClassView& taught, const plugin::Teaching::ExampleView& example) const
    {
        if (! example.checked)
            return { {}, true };
        if (view_.hits)
        {
            if (example.hits == 0)
                return { "no hit found in it", false };
            if (taught.hits < 2)
                return { count (example.hits, "hit", "hits"), true };
            return { count (example.hits, "hit", "hits") + ", " + juce::String (example.hitsRecognised) + " recognised", example.hitsRecognised == example.hits };
        }
        if (taught.examples.size() < 2)
            return { {}, true };
        const bool known = example.heardAs >= 0 && example.heardAs < view_.labels.size();
        const bool right = known && view_.labels[example.heardAs] == taught.name;
        return { right ? juce::String ("recognised") : "heard as " + (known ? view_.labels[example.heardAs] : juce::String ("?")), right };
    }

    /** The class's note: "By name" (id 1) or one of 0-127 (id note + 2), "36 C1 Bass Drum 1" in
        the menu; the row shows the note chosen ("40 E1"), or with none the note the class plays and
        "auto". */
    void addNoteMenu (int classIndex, int chosen, int played)
    {
        auto menu = std::make_unique<juce::ComboBox>();
        menu->addItem ("By name (auto)", 1);
        for (int note = 0; note < 128; ++note)
        {
            const auto drum = timeline::generalMidiDrumName (note);
            menu->addItem (juce::String (timeline::describeNote (note)) + (drum.empty() ? "" : " " + juce::String (std::string (drum))), note + 2);
        }
        // The row shows the number and name only ("40 E1"), which fits beside the class's name at any size.
        if (chosen >= 0)
            menu->setText (timeline::describeNote (chosen), juce::dontSendNotification);
        else
            menu->setText (played >= 0 ? juce::String (timeline::describeNote (played)) + " auto" : juce::String ("no note"), juce::dontSendNotification);
        menu->setTooltip ("The MIDI note " + view_.classes[static_cast<std::size_t> (classIndex)].name
                          + " plays (MIDI out, per-hit MIDI, exported MIDI files and the taught model file). Auto: the General MIDI drum its "
                            "name says (kick 36, snare 38, hat 42, ...), else Base note + its index");
        menu->onChange = [this, classIndex, box = menu.get()] {
            const int id = box->getSelectedId();
            if (id > 0)
                owner_.processor_.teaching().setNote (classIndex, id == 1 ? -1 : id - 2);
        };
        addAndMakeVisible (*menu);
        notes_.push_back (std::move (menu));
    }

    void addButton (const juce::String& text, const juce::String& tooltip, std::function<void()> onClick)
    {
        auto button = std::make_unique<juce::TextButton> (text);
        button->setTooltip (tooltip);
        button->onClick = std::move (onClick);
        addAndMakeVisible (*button);
        buttons_.push_back (std::move (button));
    }

    TeachPanel& owner_;
    plugin::Teaching::View view_;
    std::vector<std::unique_ptr<juce::TextButton>> buttons_;
    std::vector<juce::TextButton*> recordButtons_;       // one per class, among buttons_
    std::vector<std::unique_ptr<juce::ComboBox>> notes_; // one per class
};

TeachPanel::TeachPanel (plugin::SonotypeProcessor& processor) : processor_ (processor), list_ (std::make_unique<ClassList> (*this))
{
    name_.setTextToShowWhenEmpty ("class name: kick, or piano", Colours::dimText);
    name_.setTooltip ("A new class, or one of the model's own classes to adapt it to your sounds");
    name_.onReturnKey = [this] { addClassFromField(); };
    addButton_.onClick = [this] { addClassFromField(); };
    for (const auto& [id, text] : { std::pair { 10, "1 s" }, { 20, "2 s" }, { 30, "3 s" }, { 50, "5 s" }, { 100, "10 s" } })
        recordLength_.addItem (text, id);
    recordLength_.setSelectedId (30, juce::dontSendNotification);
    recordLength_.setTooltip ("How long Record listens");
    enabledToggle_.setTooltip ("On: the taught classes answer (bars, history, MIDI, files). Off: the model's own classes; the examples stay");
    enabledToggle_.onClick = [this] { processor_.teaching().setEnabled (enabledToggle_.getToggleState()); };
    hitsToggle_.setTooltip ("On: each hit found in an example teaches (kick, snare, hat from your kit), for Per-hit MIDI. Off: each example as a whole");
    hitsToggle_.onClick = [this] { processor_.teaching().setHits (hitsToggle_.getToggleState()); };
    exportButton_.setTooltip ("Save the taught classes as one model file (with their examples) for sonotype classify, another instance or computer");
    importButton_.setTooltip ("Take the classes and examples of a model file exported here");
    exportButton_.onClick = [this] { chooseExport(); };
    importButton_.onClick = [this] { chooseImport(); };
    viewport_.setViewedComponent (list_.get(), false);
    viewport_.setScrollBarsShown (true, false);
    for (auto* c : std::initializer_list<juce::Component*> { &name_, &addButton_, &recordLength_, &enabledToggle_, &hitsToggle_, &exportButton_, &importButton_, &viewport_ })
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
    hitsToggle_.setToggleState (view.hits, juce::dontSendNotification);
    const int baseNote = juce::roundToInt (processor_.parameters.getRawParameterValue (plugin::ParameterIds::baseNote)->load());
    if (view.version != view_.version || view.busy != view_.busy || baseNote != shownBaseNote_)
    {
        view_ = std::move (view);
        shownBaseNote_ = baseNote;
        rebuild();
    }
    if (recordingClass_ >= static_cast<int> (view_.classes.size()))
        stopRecording(); // its class is gone
    const bool device = canRecord();
    list_->updateRecordButtons (recordingClass_, device);
    if (device != couldRecord_ || showsReason_ != (! device && ! view_.classes.empty()))
    {
        couldRecord_ = device;
        resized(); // a line under the status says why Record is off, or no longer
        repaint();
    }
}

bool TeachPanel::canRecord() const noexcept
{
    return processor_.isAudioDeviceAvailable();
}

juce::Button* TeachPanel::recordButton (int classIndex) const noexcept
{
    return list_->recordButton (classIndex);
}

juce::ComboBox* TeachPanel::noteMenu (int classIndex) noexcept
{
    return list_->noteMenu (classIndex);
}

void TeachPanel::rebuild()
{
    list_->setView (view_, shownBaseNote_);
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
               + (share == 0 ? (processor_.wrapperType == juce::AudioProcessor::wrapperType_Standalone ? " (tick Input, or play a file; Stop ends it)"
                                                                                                       : " (Stop ends it)")
                             : "");
    }
    const auto text = idleStatusText();
    return canRecord() || view_.classes.empty() ? text : text + "\n" + kNoInputReason;
}

juce::String TeachPanel::idleStatusText() const
{
    if (view_.error.isNotEmpty())
        return view_.error;
    if (view_.classes.empty())
        return "Teach it your sounds: name a class, then record, add or drop a few seconds of it";
    if (view_.pendingFiles > 0)
        return "Reading " + juce::String (view_.pendingFiles) + " files...";
    if (view_.busy)
        return "Learning...";
    int examples = 0, hits = 0, recognised = 0, checked = 0;
    for (const auto& c : view_.classes)
    {
        examples += static_cast<int> (c.examples.size());
        hits += c.hits;
        const int taught = view_.hits ? c.hits : static_cast<int> (c.examples.size());
        if (taught > 1)
        {
            recognised += c.recognised;
            checked += taught;
        }
    }
    if (examples == 0)
        return "Give each class an example";
    const int numClasses = view_.labels.size() - (view_.labels.contains ("unknown") ? 1 : 0);
    juce::String text = "Learned " + count (numClasses, "class", "classes") + " from "
                        + (view_.hits ? count (hits, "hit", "hits") + " in " : juce::String()) + count (examples, "example", "examples") + " ("
                        + seconds (view_.storedSeconds) + ") on " + view_.baseName + " in " + juce::String (juce::roundToInt (view_.learnMilliseconds))
                        + " ms";
    if (checked > 0)
        text += "; leave one out: " + juce::String (recognised) + " of " + juce::String (checked) + (view_.hits ? " hits" : "") + " recognised";
    if (numClasses == 1) // nothing to choose between: what is unlike its examples is "unknown"
        text += "; one class: all else is unknown (add a second class to choose between sounds)";
    return text + (view_.runningTaught ? "" : ". Off: the model's own classes answer");
}

void TeachPanel::paint (juce::Graphics& g)
{
    g.setColour (Colours::panel);
    g.fillRoundedRectangle (getLocalBounds().toFloat(), 6.0f);
    // The status line, and below it, while nothing can be recorded, why (its own line: the status
    // may take two).
    const auto status = recordingClass_ >= 0 ? statusText() : idleStatusText();
    const bool isError = view_.error.isNotEmpty() && recordingClass_ < 0;
    g.setColour (isError ? Colours::error : Colours::dimText);
    g.setFont (13.0f * scale_);
    g.drawFittedText (status, statusArea_, juce::Justification::centredLeft, 2);
    if (showsReason_)
    {
        g.setColour (Colours::warning);
        g.drawFittedText (kNoInputReason, reasonArea_, juce::Justification::centredLeft, 1);
    }
}

void TeachPanel::resized()
{
    scale_ = scaleOf (*this);
    auto px = [this] (float v) { return juce::roundToInt (v * scale_); };
    name_.applyFontToAllText (juce::Font (14.0f * scale_));
    auto area = getLocalBounds().reduced (px (8.0f), px (6.0f));
    auto row = area.removeFromTop (px (26.0f));
    name_.setBounds (row.removeFromLeft (std::max (px (150.0f), row.getWidth() - px (380.0f))));
    row.removeFromLeft (px (6.0f));
    addButton_.setBounds (row.removeFromLeft (px (84.0f)));
    row.removeFromLeft (px (6.0f));
    exportButton_.setBounds (row.removeFromRight (px (84.0f)));
    row.removeFromRight (px (6.0f));
    importButton_.setBounds (row.removeFromRight (px (84.0f)));
    row.removeFromRight (px (6.0f));
    recordLength_.setBounds (row);
    area.removeFromTop (px (6.0f));
    auto toggles = area.removeFromTop (px (24.0f));
    enabledToggle_.setBounds (toggles.removeFromLeft (px (230.0f)));
    toggles.removeFromLeft (px (12.0f));
    hitsToggle_.setBounds (toggles.removeFromLeft (px (330.0f)));
    statusArea_ = area.removeFromTop (px (34.0f)); // the status line (painted)
    showsReason_ = ! couldRecord_ && ! view_.classes.empty();
    reasonArea_ = showsReason_ ? area.removeFromTop (px (18.0f)) : juce::Rectangle<int>();
    viewport_.setBounds (area);
    viewport_.setScrollBarThickness (px (10.0f));
    list_->setSize (std::max (px (300.0f), viewport_.getWidth() - viewport_.getScrollBarThickness()), list_->preferredHeight());
    list_->resized();
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
    if (! canRecord())
    {
        report (kNoInputReason); // (the button is disabled; this is for a caller that did not look)
        return;
    }
    const double rate = processor_.getSampleRate() > 0.0 ? processor_.getSampleRate() : 48000.0;
    processor_.recorder().start (length, rate);
    recordingClass_ = classIndex;
    list_->updateRecordButtons (recordingClass_, canRecord());
    repaint();
}

void TeachPanel::stopRecording()
{
    if (recordingClass_ < 0)
        return;
    const int classIndex = std::exchange (recordingClass_, -1);
    auto samples = processor_.recorder().stop();
    if (samples.empty())
        processor_.setStatus (plugin::StatusCause::teaching, "Recording stopped: no audio arrived, so nothing was taught", plugin::StatusKind::notice);
    else
        report (processor_.teaching().addSound (classIndex, samples, processor_.recorder().sampleRate(), "input " + juce::String (++recordings_)));
    list_->updateRecordButtons (recordingClass_, canRecord());
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
        processor_.setStatus (plugin::StatusCause::teaching, error, plugin::StatusKind::error);
}

void TeachPanel::chooseFiles (int classIndex)
{
    const auto title = "Examples for " + view_.classes[static_cast<std::size_t> (classIndex)].name;
    chooser_ = std::make_unique<PurposeChooser> (ChooserPurpose::examples, title, formats::audioFilePatterns(), PurposeChooser::openFilesOrFolders);
    chooser_->launch ([this, classIndex] (const juce::Array<juce::File>& files) {
        report (processor_.teaching().addFiles (classIndex, files));
        return true;
    });
}

void TeachPanel::chooseExport()
{
    chooser_ = std::make_unique<PurposeChooser> (ChooserPurpose::exports, "Export the taught model", "*.safetensors", PurposeChooser::saveFile,
                                                 "taught.safetensors");
    chooser_->launch ([this] (const juce::Array<juce::File>& files) {
        const auto file = files.getFirst();
        const auto error = processor_.teaching().exportModel (file);
        if (error.isNotEmpty())
            processor_.setStatus (plugin::StatusCause::exports, error, plugin::StatusKind::error);
        else
            processor_.setStatus (plugin::StatusCause::exports,
                                  "Exported the taught classes to " + file.getFileName() + ": run it with sonotype classify --model, or import it in another instance",
                                  plugin::StatusKind::info);
        return error.isEmpty();
    });
}

void TeachPanel::chooseImport()
{
    chooser_ = std::make_unique<PurposeChooser> (ChooserPurpose::models, "Import taught classes", "*.safetensors", PurposeChooser::openFile);
    chooser_->launch ([this] (const juce::Array<juce::File>& files) {
        report (processor_.teaching().importModel (files.getFirst()));
        return true;
    });
}

} // namespace sonotype::gui
