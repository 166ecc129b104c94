// The file choosers, written once. Each chooser is for a purpose (audio files to analyse, examples
// to teach, model files, exports) and starts in the folder last used for that purpose, or else in a
// default that exists (Music or the home folder for audio; Documents, when it exists, or the home
// folder for models and exports). The folders are remembered in a small settings file of their own,
// "Sonotype Places.settings", beside the app's settings (~/.config on Linux, Application Support on
// macOS, AppData/Sonotype on Windows), shared by the plugin and the app; SONOTYPE_SETTINGS_FOLDER
// moves it (the tests point it at a temporary folder).
//
// The platform's own dialog is used where there is one (macOS, Windows; Linux with zenity or
// kdialog): producers know it, it has the system's places and bookmarks, and on macOS it is what
// grants a sandboxed host access to the folder chosen. It starts in the remembered folder. Where
// there is none, JUCE's dialog opens with the places beside the list (home, Music, Desktop,
// Documents when they exist, then the recent folders) and in its folder menu. Either way the
// choice is asynchronous: no modal loop (a plugin runs inside a host's).
//
// Threading contract
// - Message thread only: everything here. The settings file is read at each use and written at each
//   choice, so that the app and every plugin instance (in one process or several) see the folders
//   any of them chose last.
#pragma once

#include <juce_gui_basics/juce_gui_basics.h>

#include <functional>
#include <memory>
#include <vector>

namespace sonotype::gui
{

/** What a chooser is for: each purpose remembers its own folder. */
enum class ChooserPurpose
{
    audio,    // audio files to analyse (the transport's Open)
    examples, // examples to teach (the Teach view's Add files)
    models,   // model files (Load model, the Teach view's Import)
    exports   // what the app writes (timeline exports, the taught model)
};

/** A folder the choosers offer to start from. */
struct ChooserPlace
{
    juce::String name;
    juce::File folder;
    bool recent = false; // one of the folders chosen lately (else one of the user's own folders)
};

namespace places
{
    /** The settings file the folders are kept in. */
    juce::File settingsFile();
    /** The folder last used for `purpose`; none (File()) when none was, or it is gone. */
    juce::File rememberedFolder (ChooserPurpose purpose);
    /** Where a chooser for `purpose` starts when nothing is remembered: a folder that exists. */
    juce::File defaultFolder (ChooserPurpose purpose);
    /** The remembered folder, else `preferred` when it exists, else the default. */
    juce::File startFolder (ChooserPurpose purpose, const juce::File& preferred = {});
    /** Remembers `folder` for `purpose` and as the most recent folder. */
    void remember (ChooserPurpose purpose, const juce::File& folder);
    /** The folders chosen lately, the latest first, those that still exist. */
    juce::Array<juce::File> recentFolders();
    /** The places a chooser offers: home, Music, Desktop and Documents (those that exist), then
        the recent folders not among them. */
    std::vector<ChooserPlace> all();
} // namespace places

/** One file chooser for a purpose (see the top of this file). Destroying it closes its dialog. */
class PurposeChooser
{
public:
    // What the choosers do, as juce::FileBrowserComponent's flags.
    static constexpr int openFile = juce::FileBrowserComponent::openMode | juce::FileBrowserComponent::canSelectFiles;
    static constexpr int openFiles = openFile | juce::FileBrowserComponent::canSelectMultipleItems;
    static constexpr int openFilesOrFolders = openFiles | juce::FileBrowserComponent::canSelectDirectories;
    static constexpr int saveFile = juce::FileBrowserComponent::saveMode | juce::FileBrowserComponent::canSelectFiles
                                    | juce::FileBrowserComponent::warnAboutOverwriting;

    /** A chooser titled `title` of the files `patterns` match ("*.wav;*.mp3"; empty: any) that
        does what `flags` say. To save, `proposedName` is the name proposed; `preferredFolder` is
        where to start when nothing is remembered for the purpose (a file's export: its folder). */
    PurposeChooser (ChooserPurpose purpose, juce::String title, juce::String patterns, int flags, juce::String proposedName = {},
                    const juce::File& preferredFolder = {});
    ~PurposeChooser();

    /** What the chooser's user does with the files chosen; returns whether it worked (an export
        that could not be written did not), and only then is their folder remembered. */
    using OnChosen = std::function<bool (const juce::Array<juce::File>&)>;

    /** Opens the dialog; `onChosen` gets what the user chose, once (never when cancelled). It may
        destroy this chooser. The folder of the choice is remembered after it, if it worked and
        the folder exists (an export may have made it). */
    void launch (OnChosen onChosen);

    /** The folder (or, to save, the file) the dialog starts at. */
    juce::File startingFile() const { return startingFile_; }
    ChooserPurpose purpose() const noexcept { return purpose_; }

    // ----- tests -------------------------------------------------------------------------------
    /** The chooser whose dialog is open now (the one launched last); nullptr when none is. */
    static PurposeChooser* showing() noexcept;
    /** Whether the platform's dialog may be used where there is one (true); the tests drive JUCE's. */
    static void allowPlatformDialogs (bool allow) noexcept;
    /** JUCE's dialog's browser (pick a file with setRoot and setFileName) and window; nullptr while
        the platform's dialog is used. */
    juce::FileBrowserComponent* browser() noexcept;
    juce::Component* window() noexcept;
    /** The places JUCE's dialog lists beside its files (empty while the platform's is used). */
    std::vector<ChooserPlace> listedPlaces() const;
    /** Presses JUCE's dialog's Open/Save button (as a click does: nothing while it is disabled);
        the choice arrives with the next messages. */
    void pressAccept();

private:
    class OwnDialog;
    void finish (const juce::Array<juce::File>& chosen);

    ChooserPurpose purpose_;
    juce::String title_, patterns_;
    int flags_;
    juce::File startingFile_;
    OnChosen onChosen_;
    std::unique_ptr<juce::FileChooser> platform_;
    std::unique_ptr<OwnDialog> own_;
    std::shared_ptr<int> alive_ = std::make_shared<int> (0); // the dialogs' callbacks hold a weak_ptr to it
};

} // namespace sonotype::gui
