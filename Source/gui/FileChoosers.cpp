#include "gui/FileChoosers.h"

#include <algorithm>

namespace sonotype::gui
{
namespace
{
    constexpr const char* kSettingsName = "Sonotype Places";
    constexpr const char* kRecentKey = "recent";
    constexpr int kRecentKept = 8;
    constexpr int kDialogWidth = 780, kDialogHeight = 520;

    PurposeChooser* showingNow = nullptr;
    bool platformDialogsAllowed = true;

    const char* keyOf (ChooserPurpose purpose)
    {
        switch (purpose)
        {
            case ChooserPurpose::audio: return "audio";
            case ChooserPurpose::examples: return "examples";
            case ChooserPurpose::models: return "models";
            case ChooserPurpose::exports: return "exports";
        }
        return "audio";
    }

    juce::PropertiesFile::Options settingsOptions()
    {
        juce::PropertiesFile::Options options; // beside the app's own settings (app/StandaloneApp.cpp), in a file of its own
        options.applicationName = kSettingsName;
        options.filenameSuffix = ".settings";
        options.osxLibrarySubFolder = "Application Support";
        options.millisecondsBeforeSaving = -1; // saved at once by remember(), never later by a timer
#if JUCE_LINUX || JUCE_BSD
        options.folderName = "~/.config";
#elif JUCE_WINDOWS
        options.folderName = "Sonotype";
#endif
        return options;
    }

    std::unique_ptr<juce::PropertiesFile> openSettings()
    {
        return std::make_unique<juce::PropertiesFile> (places::settingsFile(), settingsOptions());
    }

    juce::File home()
    {
        const auto folder = juce::File::getSpecialLocation (juce::File::userHomeDirectory);
        return folder.isDirectory() ? folder : juce::File::getCurrentWorkingDirectory();
    }

    /** One of the user's own folders when it exists, else the home folder. */
    juce::File existingOrHome (juce::File::SpecialLocationType type)
    {
        const auto folder = juce::File::getSpecialLocation (type);
        return folder.isDirectory() ? folder : home();
    }

    juce::String nameOf (const juce::File& folder)
    {
        return folder.getFileName().isNotEmpty() ? folder.getFileName() : folder.getFullPathName();
    }
} // namespace

// ----- the places ------------------------------------------------------------------------------

juce::File places::settingsFile()
{
    const auto folder = juce::SystemStats::getEnvironmentVariable ("SONOTYPE_SETTINGS_FOLDER", {});
    if (folder.isNotEmpty() && juce::File::isAbsolutePath (folder))
        return juce::File (folder).getChildFile (juce::String (kSettingsName) + ".settings");
    return settingsOptions().getDefaultFile();
}

juce::File places::rememberedFolder (ChooserPurpose purpose)
{
    const auto path = openSettings()->getValue (keyOf (purpose));
    if (path.isEmpty() || ! juce::File::isAbsolutePath (path))
        return {};
    const juce::File folder (path);
    return folder.isDirectory() ? folder : juce::File();
}

juce::File places::defaultFolder (ChooserPurpose purpose)
{
    switch (purpose)
    {
        case ChooserPurpose::audio:
        case ChooserPurpose::examples: return existingOrHome (juce::File::userMusicDirectory);
        case ChooserPurpose::models:
        case ChooserPurpose::exports: return existingOrHome (juce::File::userDocumentsDirectory);
    }
    return home();
}

juce::File places::startFolder (ChooserPurpose purpose, const juce::File& preferred)
{
    if (const auto remembered = rememberedFolder (purpose); remembered != juce::File())
        return remembered;
    return preferred.isDirectory() ? preferred : defaultFolder (purpose);
}

void places::remember (ChooserPurpose purpose, const juce::File& folder)
{
    if (! folder.isDirectory())
        return;
    auto settings = openSettings();
    settings->setValue (keyOf (purpose), folder.getFullPathName());
    auto recent = juce::StringArray::fromLines (settings->getValue (kRecentKey));
    recent.removeString (folder.getFullPathName());
    recent.removeEmptyStrings();
    recent.insert (0, folder.getFullPathName());
    while (recent.size() > kRecentKept)
        recent.remove (recent.size() - 1);
    settings->setValue (kRecentKey, recent.joinIntoString ("\n"));
    // A settings file that cannot be written costs only the remembered folder: nothing to report.
    settings->saveIfNeeded();
}

juce::Array<juce::File> places::recentFolders()
{
    juce::Array<juce::File> folders;
    for (const auto& path : juce::StringArray::fromLines (openSettings()->getValue (kRecentKey)))
        if (juce::File::isAbsolutePath (path) && juce::File (path).isDirectory())
            folders.addIfNotAlreadyThere (juce::File (path));
    return folders;
}

std::vector<ChooserPlace> places::all()
{
    std::vector<ChooserPlace> listed;
    const auto add = [&listed] (const juce::String& name, const juce::File& folder, bool recent) {
        if (folder.isDirectory() && std::none_of (listed.begin(), listed.end(), [&folder] (const ChooserPlace& p) { return p.folder == folder; }))
            listed.push_back ({ name, folder, recent });
    };
    add ("Home", juce::File::getSpecialLocation (juce::File::userHomeDirectory), false);
    add ("Music", juce::File::getSpecialLocation (juce::File::userMusicDirectory), false);
    add ("Desktop", juce::File::getSpecialLocation (juce::File::userDesktopDirectory), false);
    add ("Documents", juce::File::getSpecialLocation (juce::File::userDocumentsDirectory), false);
    for (const auto& folder : recentFolders())
        add (nameOf (folder), folder, true);
    return listed;
}

// ----- JUCE's dialog, with the places ------------------------------------------------------------

namespace
{
    /** JUCE's file browser with the places: in a list beside the files (one click away, as in the
        platforms' dialogs) and in the folder menu above them. */
    class PlacesBrowser final : public juce::FileBrowserComponent
    {
    public:
        PlacesBrowser (int browserFlags, const juce::File& start, const juce::FileFilter* filter)
            : juce::FileBrowserComponent (browserFlags, start, filter, nullptr), places_ (places::all()), sidebar_ (*this)
        {
            addAndMakeVisible (sidebar_);
            addListener (&sidebar_);
            // The base's constructor filled the folder menu through its own getRoots (a virtual call
            // made while constructing reaches only the base's): fill it again with the places.
            resetRecentPaths();
            setRoot (getRoot());
        }

        ~PlacesBrowser() override { removeListener (&sidebar_); }

        const std::vector<ChooserPlace>& places() const noexcept { return places_; }

        void resized() override
        {
            juce::FileBrowserComponent::resized();
            if (auto* list = dynamic_cast<juce::Component*> (getDisplayComponent()))
            {
                auto area = list->getBounds();
                sidebar_.setBounds (area.removeFromLeft (std::min (170, area.getWidth() / 3)));
                area.removeFromLeft (6);
                list->setBounds (area);
            }
        }

    protected:
        void getRoots (juce::StringArray& names, juce::StringArray& paths) override
        {
            const auto add = [&names, &paths] (const juce::String& name, const juce::String& path) {
                if (path.isEmpty() || ! paths.contains (path))
                {
                    names.add (name);
                    paths.add (path);
                }
            };
            bool recentStarted = false;
            for (const auto& place : places_)
            {
                if (place.recent && ! recentStarted)
                    add ({}, {}); // a separator before the recent folders
                recentStarted = recentStarted || place.recent;
                add (place.name, place.folder.getFullPathName());
            }
            juce::StringArray systemNames, systemPaths; // the file system's roots: "/", the drives, the volumes
            getDefaultRoots (systemNames, systemPaths);
            add ({}, {});
            for (int i = 0; i < systemNames.size(); ++i)
                if (systemPaths[i].isNotEmpty())
                    add (systemNames[i], systemPaths[i]);
        }

    private:
        /** The places beside the files: a click opens one; the folder on show is highlighted. */
        class Sidebar final : public juce::ListBox, private juce::ListBoxModel, public juce::FileBrowserListener
        {
        public:
            explicit Sidebar (PlacesBrowser& owner) : owner_ (owner)
            {
                setModel (this);
                setRowHeight (24);
                setOutlineThickness (1);
            }

            int getNumRows() override { return static_cast<int> (owner_.places_.size()); }

            void paintListBoxItem (int row, juce::Graphics& g, int width, int height, bool) override
            {
                if (row < 0 || row >= getNumRows())
                    return;
                const auto& place = owner_.places_[static_cast<std::size_t> (row)];
                if (place.folder == owner_.getRoot())
                {
                    g.setColour (findColour (juce::DirectoryContentsDisplayComponent::highlightColourId));
                    g.fillRect (0, 0, width, height);
                }
                const auto text = findColour (juce::DirectoryContentsDisplayComponent::textColourId);
                g.setColour (place.recent ? text.withMultipliedAlpha (0.75f) : text);
                g.setFont (static_cast<float> (height) * 0.6f);
                g.drawFittedText ((place.recent ? "Recent: " : "") + place.name, 8, 0, width - 12, height, juce::Justification::centredLeft, 1);
            }

            void listBoxItemClicked (int row, const juce::MouseEvent&) override
            {
                if (row >= 0 && row < getNumRows())
                    owner_.setRoot (owner_.places_[static_cast<std::size_t> (row)].folder);
            }

            juce::String getTooltipForRow (int row) override
            {
                return row >= 0 && row < getNumRows() ? owner_.places_[static_cast<std::size_t> (row)].folder.getFullPathName() : juce::String();
            }

            void browserRootChanged (const juce::File&) override { repaint(); }
            void selectionChanged() override {}
            void fileClicked (const juce::File&, const juce::MouseEvent&) override {}
            void fileDoubleClicked (const juce::File&) override {}

        private:
            PlacesBrowser& owner_;
        };

        std::vector<ChooserPlace> places_;
        Sidebar sidebar_;
    };

    juce::Button* findButton (juce::Component& parent, const juce::String& text)
    {
        for (auto* child : parent.getChildren())
        {
            if (auto* button = dynamic_cast<juce::TextButton*> (child); button != nullptr && button->getButtonText() == text)
                return button;
            if (auto* found = findButton (*child, text))
                return found;
        }
        return nullptr;
    }
} // namespace

class PurposeChooser::OwnDialog
{
public:
    OwnDialog (const juce::String& title, const juce::String& patterns, int flags, const juce::File& start)
        : filter ((flags & juce::FileBrowserComponent::canSelectFiles) != 0 ? patterns : juce::String(),
                  (flags & juce::FileBrowserComponent::canSelectDirectories) != 0 ? "*" : "", {}),
          browser (flags, start, &filter),
          dialog (title, {}, browser, (flags & juce::FileBrowserComponent::warnAboutOverwriting) != 0,
                  browser.findColour (juce::AlertWindow::backgroundColourId), nullptr)
    {
    }

    ~OwnDialog() { dialog.exitModalState (0); }

    juce::WildcardFileFilter filter; // the browser keeps a pointer to it: declared first
    PlacesBrowser browser;
    juce::FileChooserDialogBox dialog;
};

// ----- the chooser -----------------------------------------------------------------------------

PurposeChooser::PurposeChooser (ChooserPurpose purpose, juce::String title, juce::String patterns, int flags, juce::String proposedName,
                                const juce::File& preferredFolder)
    : purpose_ (purpose), title_ (std::move (title)), patterns_ (patterns.trim().isEmpty() ? juce::String ("*") : std::move (patterns)), flags_ (flags)
{
    const auto folder = places::startFolder (purpose_, preferredFolder);
    startingFile_ = proposedName.isNotEmpty() ? folder.getChildFile (proposedName) : folder;
}

PurposeChooser::~PurposeChooser()
{
    if (showingNow == this)
        showingNow = nullptr;
}

void PurposeChooser::launch (OnChosen onChosen)
{
    onChosen_ = std::move (onChosen);
    showingNow = this;
    const std::weak_ptr<int> alive = alive_;
    if (platformDialogsAllowed && juce::FileChooser::isPlatformDialogAvailable())
    {
        platform_ = std::make_unique<juce::FileChooser> (title_, startingFile_, patterns_, true);
        platform_->launchAsync (flags_, [this, alive] (const juce::FileChooser& chooser) {
            if (! alive.expired())
                finish (chooser.getResults());
        });
        return;
    }
    own_ = std::make_unique<OwnDialog> (title_, patterns_, flags_, startingFile_);
    own_->dialog.centreAroundComponent (nullptr, kDialogWidth, kDialogHeight);
    own_->dialog.enterModalState (true, juce::ModalCallbackFunction::create ([this, alive] (int result) {
                                      if (alive.expired() || own_ == nullptr)
                                          return;
                                      juce::Array<juce::File> chosen;
                                      for (int i = 0; result != 0 && i < own_->browser.getNumSelectedFiles(); ++i)
                                          chosen.add (own_->browser.getSelectedFile (i));
                                      own_.reset(); // the dialog closes, as the platform's does
                                      finish (chosen);
                                  }),
                                  false);
}

void PurposeChooser::finish (const juce::Array<juce::File>& chosen)
{
    if (showingNow == this)
        showingNow = nullptr;
    if (chosen.isEmpty())
        return;
    // Remembered after the callback, which may make the folder (an export into a new one); the
    // callback may also destroy this chooser, so nothing of it is used once the callback runs.
    const auto purpose = purpose_;
    const auto folder = chosen.getReference (0).getParentDirectory();
    const auto callback = std::move (onChosen_);
    if (callback == nullptr || callback (chosen))
        places::remember (purpose, folder);
}

PurposeChooser* PurposeChooser::showing() noexcept
{
    return showingNow;
}

void PurposeChooser::allowPlatformDialogs (bool allow) noexcept
{
    platformDialogsAllowed = allow;
}

juce::FileBrowserComponent* PurposeChooser::browser() noexcept
{
    return own_ != nullptr ? &own_->browser : nullptr;
}

juce::Component* PurposeChooser::window() noexcept
{
    return own_ != nullptr ? &own_->dialog : nullptr;
}

std::vector<ChooserPlace> PurposeChooser::listedPlaces() const
{
    return own_ != nullptr ? own_->browser.places() : std::vector<ChooserPlace>();
}

void PurposeChooser::pressAccept()
{
    if (own_ == nullptr)
        return;
    if (auto* button = findButton (own_->dialog, own_->browser.getActionVerb()))
        button->triggerClick();
}

} // namespace sonotype::gui
