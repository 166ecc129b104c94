#include "gui/SonotypeEditor.h"

#include "formats/AudioFormats.h"

#include "plugin/FileWriting.h"
#include "plugin/PluginParameters.h"
#include "timeline/TimelineExport.h"

#include <algorithm>

namespace sonotype::gui
{

namespace
{
    bool isAudioFile (const juce::File& file)
    {
        return formats::isReadableAudioFile (file.getFullPathName().toStdString());
    }

    bool allAudioFiles (const juce::StringArray& files)
    {
        return ! files.isEmpty() && std::all_of (files.begin(), files.end(), [] (const juce::String& f) { return isAudioFile (juce::File (f)); });
    }

    struct ExportKind
    {
        timeline::ExportFormat format;
        const char* menuText;
        const char* suffix; // of the file name offered
        const char* pattern;
        const char* hitsMenuText; // the same format for a file's hits (per-hit MIDI)
        const char* hitsSuffix;
    };
    constexpr ExportKind kExportKinds[] = {
        { timeline::ExportFormat::audacity, "Audacity labels (.txt)", ".labels.txt", "*.txt", "Audacity point labels, one per hit (.txt)", ".labels.txt" },
        { timeline::ExportFormat::reaper, "REAPER regions (.csv)", ".regions.csv", "*.csv", "REAPER markers, one per hit (.csv)", ".markers.csv" },
        { timeline::ExportFormat::midi, "MIDI file, a note per segment (.mid)", ".mid", "*.mid", "MIDI file, a note per hit (.mid)", ".mid" },
        { timeline::ExportFormat::csv, "Segments as CSV, as sonotype classify --segments (.csv)", ".segments.csv", "*.csv",
          "Hits as CSV, as sonotype classify --onsets (.csv)", ".hits.csv" },
    };
} // namespace

SonotypeEditor::SonotypeEditor (plugin::SonotypeProcessor& owner, std::optional<bool> withFilePlayer)
    : juce::AudioProcessorEditor (owner), processor_ (owner), teach_ (owner), controls_ (owner)
{
    if (withFilePlayer.value_or (owner.wrapperType == juce::AudioProcessor::wrapperType_Standalone))
    {
        transport_ = std::make_unique<TransportBar> (owner);
        transport_->onOpenFiles = [this] (const juce::Array<juce::File>& files) { openAudioFiles (files); };
        transport_->onAddFiles = [this] (const juce::Array<juce::File>& files) { addAudioFiles (files); };
        addAndMakeVisible (*transport_);
    }
    setLookAndFeel (&lookAndFeel_);
    for (auto* component : std::initializer_list<juce::Component*> { &topClass_, &bars_, &history_, &meter_, &info_, &controls_, &loadButton_,
                                                                     &builtinButton_, &liveButton_, &filesButton_, &teachButton_, &exportButton_, &version_ })
        addAndMakeVisible (component);
    addChildComponent (timeline_);
    addChildComponent (teach_);
    addChildComponent (fileList_);
    addAndMakeVisible (messages_);

    for (auto* button : { &liveButton_, &filesButton_, &teachButton_ })
    {
        button->setClickingTogglesState (true);
        button->setRadioGroupId (1);
    }
    liveButton_.setToggleState (true, juce::dontSendNotification);
    liveButton_.setTooltip ("The last 30 s of what the plugin hears");
    filesButton_.setTooltip ("Whole audio files: open or drop them to analyze them");
    // A radio button's onClick also runs when another tab turns it off (JUCE sends the click with
    // the state change): only the tab turned on may switch views, or the old tab turns itself on
    // again and two tabs are lit.
    liveButton_.onClick = [this] {
        if (liveButton_.getToggleState())
            showFiles (false);
    };
    filesButton_.onClick = [this] {
        if (filesButton_.getToggleState())
            showFiles (true);
    };
    teachButton_.setTooltip ("Your own classes: teach them from a few seconds of sound each");
    teachButton_.onClick = [this] {
        if (teachButton_.getToggleState())
            showTeach (true);
    };
    timeline_.onContextMenu = [this] (double seconds) {
        teachMenu (seconds).showMenuAsync (juce::PopupMenu::Options().withTargetComponent (&timeline_).withMousePosition());
    };
    fileList_.onChange = [this] {
        if (fileList_.getSelectedItemIndex() >= 0)
            selectFile (static_cast<std::size_t> (fileList_.getSelectedItemIndex()));
    };
    exportButton_.onClick = [this] { chooseExport(); };
    exportButton_.setTooltip ("Save the segments (or, with Per-hit MIDI, the hits) on show for Audacity, REAPER or any DAW (MIDI), or as CSV");
    timeline_.onSeek = [this] (double seconds) {
        if (transport_ != nullptr && processor_.filePlayer().file() == timeline_.status().file)
            processor_.filePlayer().seek (seconds);
    };

    bars_.setTooltip ("Click a class to take it out of play (or back): it gets 0, and the answer is shared among the classes in play");
    bars_.onToggle = [this] (const juce::String& label, bool enabled) {
        processor_.setClassEnabled (label, enabled);
        refresh();
    };
    messages_.onDismiss = [this] (plugin::StatusCause cause, uint64_t serial) {
        processor_.dismissStatus (cause, serial);
        refresh();
    };
    controls_.onOscResult = [this] (const juce::String& error) { processor_.setStatus (plugin::StatusCause::osc, error, plugin::StatusKind::error); };
    loadButton_.onClick = [this] { chooseModelFile(); };
    loadButton_.setTooltip ("Load a .safetensors model exported with sonotype.export (or drop one here)");
    version_.onClick = [this] { showAbout (true); };
    builtinButton_.onClick = [this] {
        processor_.useBuiltinModel();
        refresh();
    };

    setResizable (true, true);
    setResizeLimits (600, 400, 3840, 2560);
    getConstrainer()->setFixedAspectRatio (static_cast<double> (kBaseWidth) / kBaseHeight);
    setSize (kBaseWidth, kBaseHeight);
    refresh();
    startTimerHz (30);
}

SonotypeEditor::~SonotypeEditor()
{
    stopTimer();
    setLookAndFeel (nullptr);
}

void SonotypeEditor::refresh()
{
    const auto snapshot = processor_.snapshot();
    const auto& info = *snapshot.info;
    DisplayState live;
    live.generation = info.generation;
    for (const auto& label : info.labels)
    {
        live.labels.emplace_back (label);
        live.enabled.push_back (processor_.isClassEnabled (label));
    }
    if (snapshot.hasResult)
    {
        live.probabilities = snapshot.result.probabilities;
        live.topClass = snapshot.topClass;
        live.stale = snapshot.stale;
        if (const auto* threshold = processor_.parameters.getRawParameterValue (plugin::ParameterIds::threshold))
            live.threshold = threshold->load() / 100.0f;
    }

    const auto newest = processor_.analysis().history (static_cast<std::size_t> (std::ceil (HistoryView::kSpanSeconds / info.hopSeconds)) + 2);
    history_.update (newest, live, info.hopSeconds);
    meter_.push (processor_.takeInputPeak(), 1.0 / 30.0);
    info_.update (processor_.modelDescription(), snapshot);
    if (transport_ != nullptr)
        transport_->refresh();
    updateFileList();
    if (showingTeach_)
        teach_.refresh();
    if (showingFiles_)
    {
        const auto& player = processor_.filePlayer();
        const bool playing = transport_ != nullptr && player.hasFile() && player.file() == timeline_.status().file;
        timeline_.update (processor_.fileTimelines(), shownFile_, playing ? player.positionSeconds() : -1.0, live.enabled);
    }
    // The top panel and the bars: the file on show at the timeline's time in the Files view, else the live input.
    state_ = showingFiles_ && ! showingTeach_ && timeline_.status().file != juce::File() ? fileState (live) : std::move (live);
    topClass_.update (state_);
    bars_.update (state_);

    const auto& shown = timeline_.status();
    exportButton_.setEnabled (! showingTeach_ && (! showingFiles_ || shown.state == plugin::FileState::done));
    exportButton_.setVisible (! showingTeach_);
    if (messages_.show (processor_.messages().current()))
        resized(); // the strip takes another number of lines
}

DisplayState SonotypeEditor::fileState (const DisplayState& live) const
{
    // The file on show at the timeline's focus: the pointer's time, the player's, or the last click's.
    const auto& status = timeline_.status();
    DisplayState state;
    state.generation = live.generation;
    for (const auto& label : status.labels)
    {
        state.labels.push_back (juce::String::fromUTF8 (label.c_str()));
        state.enabled.push_back (processor_.isClassEnabled (state.labels.back()));
    }
    if (state.labels.empty()) // (queued: the file's classes are known once its analysis starts)
    {
        state.labels = live.labels;
        state.enabled = live.enabled;
    }
    const double at = timeline_.focusSeconds();
    state.sourceFile = status.file.getFileName();
    state.sourceWhen = "at " + timeText (at, 1);
    state.threshold = timeline_.uncertainBelow();
    if (const auto moment = timeline_.momentAt (at))
    {
        state.probabilities = moment->probabilities;
        state.topClass = moment->classIndex;
        if (moment->hit.has_value())
            state.sourceWhen = ": the hit at " + timeText (moment->hit->seconds, 2);
        return state;
    }
    switch (status.state)
    {
        case plugin::FileState::queued:
            state.idleLabel = "waiting...";
            state.idleText = "not analyzed yet";
            break;
        case plugin::FileState::analyzing:
            state.idleLabel = "analyzing...";
            state.idleText = "analyzed to " + juce::String (juce::roundToInt (status.progress * 100.0)) + "% so far";
            break;
        case plugin::FileState::failed:
            state.idleLabel = "cannot analyze";
            state.idleText = status.error;
            break;
        case plugin::FileState::done:
            state.idleLabel = "no hit";
            state.idleText = "no hit at or before this time";
            break;
    }
    return state;
}

void SonotypeEditor::paint (juce::Graphics& g)
{
    g.fillAll (Colours::background);
    const float scale = static_cast<float> (getWidth()) / kBaseWidth;
    auto header = getLocalBounds().removeFromTop (juce::roundToInt (48 * scale)).reduced (juce::roundToInt (12 * scale), 0);
    g.setColour (Colours::accent);
    g.setFont (juce::Font (26.0f * scale, juce::Font::bold));
    g.drawText ("SONOTYPE", header, juce::Justification::centredLeft);
    g.setColour (Colours::dimText);
    g.setFont (14.0f * scale);
    g.drawText ("what it hears, live", header.withTrimmedLeft (juce::roundToInt (150 * scale)), juce::Justification::centredLeft);
    if (dragging_)
    {
        g.setColour (Colours::accent.withAlpha (0.2f));
        g.fillAll();
        g.setColour (Colours::accent);
        g.setFont (28.0f * scale);
        g.drawText ("Drop a .safetensors model, or audio files to analyze", getLocalBounds(), juce::Justification::centred);
    }
}

void SonotypeEditor::resized()
{
    const float scale = static_cast<float> (getWidth()) / kBaseWidth;
    lookAndFeel_.setScale (scale);
    auto s = [scale] (float v) { return juce::roundToInt (v * scale); };
    auto area = getLocalBounds().reduced (s (12), 0);
    auto header = area.removeFromTop (s (48));
    version_.setBounds (header.getX() + s (285), header.getCentreY() - s (8), s (70), s (16));
    if (about_ != nullptr)
        about_->setBounds (getLocalBounds().withSizeKeepingCentre (s (480), s (264)));
    builtinButton_.setBounds (header.removeFromRight (s (130)).reduced (0, s (9)));
    header.removeFromRight (s (8));
    loadButton_.setBounds (header.removeFromRight (s (130)).reduced (0, s (9)));
    // The messages' own lines, above the views: one kept even when there is none (the layout
    // does not jump at the first message), up to three.
    messages_.setFontHeight (14.0f * scale);
    messages_.setBounds (area.removeFromTop (s (24) * messages_.rows()));
    area.removeFromTop (s (6));
    area.removeFromBottom (s (12));
    auto bottom = area.removeFromBottom (s (144)); // five rows of controls (the per-hit mode's two)
    if (transport_ != nullptr)
    {
        area.removeFromBottom (s (8));
        transport_->setBounds (area.removeFromBottom (s (36)));
    }
    info_.setBounds (bottom.removeFromRight (bottom.getWidth() * 40 / 100));
    bottom.removeFromRight (s (8));
    controls_.setBounds (bottom);
    area.removeFromBottom (s (8));

    meter_.setBounds (area.removeFromRight (s (14)));
    area.removeFromRight (s (8));
    auto right = area.removeFromRight (area.getWidth() * 36 / 100);
    bars_.setBounds (right);
    area.removeFromRight (s (8));
    topClass_.setBounds (area.removeFromTop (area.getHeight() * 26 / 100));
    area.removeFromTop (s (8));
    auto viewBar = area.removeFromTop (s (28));
    liveButton_.setBounds (viewBar.removeFromLeft (s (70)));
    filesButton_.setBounds (viewBar.removeFromLeft (s (70)));
    teachButton_.setBounds (viewBar.removeFromLeft (s (70)));
    exportButton_.setBounds (viewBar.removeFromRight (s (100)));
    viewBar.removeFromRight (s (8));
    viewBar.removeFromLeft (s (8));
    fileList_.setBounds (viewBar);
    area.removeFromTop (s (4));
    history_.setBounds (area);
    timeline_.setBounds (area);
    teach_.setBounds (area);
}

void SonotypeEditor::showAbout (bool shouldShow)
{
    if (! shouldShow)
    {
        about_ = nullptr;
        return;
    }
    if (about_ == nullptr)
    {
        about_ = std::make_unique<AboutBox>();
        // Taken down after the click that asked for it has been handled (not inside it).
        about_->onDismiss = [this] { juce::MessageManager::callAsync ([safe = juce::Component::SafePointer<SonotypeEditor> (this)] {
                                         if (safe != nullptr)
                                             safe->showAbout (false);
                                     }); };
        addAndMakeVisible (*about_);
        resized();
    }
    about_->toFront (true);
}

bool SonotypeEditor::isInterestedInFileDrag (const juce::StringArray& files)
{
    const bool interested = (files.size() == 1 && juce::File (files[0]).hasFileExtension ("safetensors")) || allAudioFiles (files);
    if (interested != dragging_)
    {
        dragging_ = interested;
        repaint();
    }
    return interested;
}

void SonotypeEditor::filesDropped (const juce::StringArray& files, int, int)
{
    dragging_ = false;
    repaint();
    if (allAudioFiles (files))
    {
        juce::Array<juce::File> audio;
        for (const auto& file : files)
            audio.add (juce::File (file));
        openAudioFiles (audio);
    }
    else if (files.size() == 1)
        processor_.loadModelFile (juce::File (files[0]));
    refresh();
}

void SonotypeEditor::openAudioFiles (const juce::Array<juce::File>& files)
{
    if (files.isEmpty())
        return;
    processor_.analyzeFiles (files);
    shownFile_ = 0;
    listedFiles_.clear(); // the list is rebuilt from the analyzer's
    showFiles (true);
    if (transport_ != nullptr)
        loadIntoPlayer (files[0]);
    refresh();
}

void SonotypeEditor::addAudioFiles (const juce::Array<juce::File>& files)
{
    if (files.isEmpty())
        return;
    processor_.addFilesToAnalyze (files);
    updateFileList();
    showFiles (true);
    selectFile (static_cast<std::size_t> (std::max (0, listedFiles_.indexOf (files[0]))));
}

void SonotypeEditor::loadIntoPlayer (const juce::File& file)
{
    // A file that plays takes down the message of one that could not (the analysis' own message,
    // if it fails too, is another cause's).
    const auto error = transport_->load (file);
    processor_.setStatus (plugin::StatusCause::playback, error, plugin::StatusKind::error);
}

void SonotypeEditor::showFiles (bool shouldShowFiles)
{
    showingFiles_ = shouldShowFiles;
    showingTeach_ = false;
    (shouldShowFiles ? filesButton_ : liveButton_).setToggleState (true, juce::dontSendNotification);
    history_.setVisible (! shouldShowFiles);
    timeline_.setVisible (shouldShowFiles);
    teach_.setVisible (false);
    fileList_.setVisible (shouldShowFiles && fileList_.getNumItems() > 1);
    refresh();
}

void SonotypeEditor::showTeach (bool shouldShowTeach)
{
    if (! shouldShowTeach)
    {
        showFiles (showingFiles_);
        return;
    }
    showingTeach_ = true;
    teachButton_.setToggleState (true, juce::dontSendNotification);
    history_.setVisible (false);
    timeline_.setVisible (false);
    fileList_.setVisible (false);
    teach_.setVisible (true);
    refresh();
}

juce::PopupMenu SonotypeEditor::teachMenu (double seconds)
{
    juce::PopupMenu menu;
    const auto item = [] (juce::PopupMenu& to, int id, const juce::String& text, std::function<void()> action) {
        juce::PopupMenu::Item entry (text);
        entry.itemID = id;
        entry.action = std::move (action);
        to.addItem (std::move (entry));
    };
    const auto status = timeline_.status();
    const auto view = processor_.teaching().view();
    if (status.file == juce::File())
        return menu;
    const runtime::Segment* segment = nullptr;
    for (const auto& s : status.segments)
        if (seconds >= s.startSeconds && seconds < s.endSeconds)
            segment = &s;
    if (view.classes.empty())
    {
        item (menu, 1, "Teach: add a class in the Teach view first", [this] { showTeach (true); });
        return menu;
    }
    const auto file = status.file;
    const auto addTo = [this, file] (int classIndex, double start, double end) {
        if (const auto error = processor_.teaching().addFiles (classIndex, { file }, start, end); error.isNotEmpty())
            processor_.setStatus (plugin::StatusCause::teaching, error, plugin::StatusKind::error);
    };
    int id = 1;
    if (segment != nullptr)
    {
        juce::PopupMenu classes;
        const double start = segment->startSeconds, end = segment->endSeconds;
        for (int c = 0; c < static_cast<int> (view.classes.size()); ++c)
            item (classes, id++, view.classes[static_cast<std::size_t> (c)].name, [addTo, c, start, end] { addTo (c, start, end); });
        menu.addSubMenu ("Teach this segment (" + juce::String (start, 2) + "-" + juce::String (end, 2) + " s) as", classes);
    }
    juce::PopupMenu whole;
    for (int c = 0; c < static_cast<int> (view.classes.size()); ++c)
        item (whole, id++, view.classes[static_cast<std::size_t> (c)].name, [addTo, c] { addTo (c, 0.0, 0.0); });
    menu.addSubMenu ("Teach the whole file (its first 10 s) as", whole);
    return menu;
}

void SonotypeEditor::selectFile (std::size_t index)
{
    if (index >= static_cast<std::size_t> (listedFiles_.size()))
        return;
    shownFile_ = index;
    fileList_.setSelectedItemIndex (static_cast<int> (index), juce::dontSendNotification);
    if (transport_ != nullptr && processor_.filePlayer().file() != listedFiles_[static_cast<int> (index)])
        loadIntoPlayer (listedFiles_[static_cast<int> (index)]);
    refresh();
}

void SonotypeEditor::updateFileList()
{
    const auto files = processor_.fileTimelines().files();
    if (files == listedFiles_)
        return;
    listedFiles_ = files;
    fileList_.clear (juce::dontSendNotification);
    for (int i = 0; i < files.size(); ++i)
        fileList_.addItem (files[i].getFileName(), i + 1);
    shownFile_ = std::min<std::size_t> (shownFile_, static_cast<std::size_t> (std::max (files.size() - 1, 0)));
    fileList_.setSelectedItemIndex (static_cast<int> (shownFile_), juce::dontSendNotification);
    fileList_.setVisible (showingFiles_ && files.size() > 1);
}

void SonotypeEditor::chooseExport()
{
    juce::PopupMenu menu;
    const bool hits = showingFiles_ && timeline_.status().perHit;
    for (std::size_t i = 0; i < std::size (kExportKinds); ++i)
        menu.addItem (static_cast<int> (i) + 1, hits ? kExportKinds[i].hitsMenuText : kExportKinds[i].menuText);
    menu.showMenuAsync (juce::PopupMenu::Options().withTargetComponent (&exportButton_), [this] (int chosen) {
        if (chosen > 0)
            chooseExportFile (kExportKinds[static_cast<std::size_t> (chosen - 1)].format);
    });
}

void SonotypeEditor::chooseExportFile (timeline::ExportFormat format)
{
    const auto* kind = std::find_if (std::begin (kExportKinds), std::end (kExportKinds), [format] (const ExportKind& k) { return k.format == format; });
    if (kind == std::end (kExportKinds))
        return;
    const bool hits = showingFiles_ && timeline_.status().perHit;
    const auto shown = showingFiles_ ? timeline_.status().file : juce::File();
    const auto stem = shown != juce::File() ? shown.getFileNameWithoutExtension() : juce::String ("Sonotype session");
    // The folder exports went to last; before any, the shown file's own folder.
    chooser_ = std::make_unique<PurposeChooser> (ChooserPurpose::exports, "Export the timeline", kind->pattern, PurposeChooser::saveFile,
                                                 stem + (hits ? kind->hitsSuffix : kind->suffix), shown.getParentDirectory());
    chooser_->launch ([this, format] (const juce::Array<juce::File>& files) {
        const bool written = exportTimeline (format, files.getFirst()).isEmpty();
        refresh();
        return written;
    });
}

juce::String SonotypeEditor::exportTimeline (timeline::ExportFormat format, const juce::File& destination)
{
    std::vector<std::string> labels;
    std::vector<runtime::Segment> segments;
    std::optional<std::vector<timeline::Hit>> hits; // a file analysed hit by hit: these instead of segments
    std::string source;
    if (showingFiles_)
    {
        const auto status = processor_.fileTimelines().status (shownFile_);
        if (status.state != plugin::FileState::done)
        {
            const juce::String error = "Nothing to export yet: " + status.file.getFileName() + " is not analyzed";
            processor_.setStatus (plugin::StatusCause::exports, error, plugin::StatusKind::error);
            return error;
        }
        labels = status.labels;
        segments = status.segments;
        if (status.perHit)
            hits = status.hits;
        source = status.file.getFullPathName().toStdString();
    }
    else
    {
        const auto history = processor_.liveHistory();
        if (history.segments.empty())
        {
            const juce::String error = "Nothing to export yet: the live analysis has detected nothing this session";
            processor_.setStatus (plugin::StatusCause::exports, error, plugin::StatusKind::error);
            return error;
        }
        labels = history.labels;
        segments = history.segments;
        source = "live session";
    }
    std::string text;
    try
    {
        const auto settings = processor_.exportSettings (source, labels);
        text = hits.has_value() ? timeline::exportHits (format, *hits, labels, settings) : timeline::exportSegments (format, segments, labels, settings);
    }
    catch (const std::exception& e)
    {
        const auto error = "Could not export: " + juce::String::fromUTF8 (e.what());
        processor_.setStatus (plugin::StatusCause::exports, error, plugin::StatusKind::error);
        return error;
    }
    if (auto error = plugin::writeFile (destination, text.data(), text.size()); error.isNotEmpty())
    {
        processor_.setStatus (plugin::StatusCause::exports, error, plugin::StatusKind::error);
        return error;
    }
    const auto count = hits.has_value() ? juce::String (static_cast<int> (hits->size())) + " hits" : juce::String (static_cast<int> (segments.size())) + " segments";
    processor_.setStatus (plugin::StatusCause::exports, "Exported " + count + " to " + destination.getFileName(), plugin::StatusKind::info);
    return {};
}

void SonotypeEditor::fileDragExit (const juce::StringArray&)
{
    dragging_ = false;
    repaint();
}

void SonotypeEditor::chooseModelFile()
{
    chooser_ = std::make_unique<PurposeChooser> (ChooserPurpose::models, "Load a Sonotype model", "*.safetensors", PurposeChooser::openFile);
    chooser_->launch ([this] (const juce::Array<juce::File>& files) {
        processor_.loadModelFile (files.getFirst());
        refresh();
        return true;
    });
}

} // namespace sonotype::gui
