// What the app writes where the user chose (plugin::writeFile: the timeline exports, the taught
// model): the missing folders are made, an old file is replaced whole, and a failure says why, in
// the system's words where it has them. The tests may run as root, where permissions stop nothing:
// the failures come from a file where a folder should be, and from /sys, which refuses new files
// to root too.
#include "engine/Model.h"
#include "plugin/FileWriting.h"
#include "plugin/ProcessorDriver.h"
#include "support/ExampleClips.h"

#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
/** A fresh folder of this test's under /tmp, removed at the end. */
struct ScratchFolder
{
    juce::File folder = juce::File::getSpecialLocation (juce::File::tempDirectory).getNonexistentChildFile ("sonotype-write-test", {});
    ScratchFolder() { REQUIRE (folder.createDirectory().wasOk()); }
    ~ScratchFolder() { folder.deleteRecursively(); }
};

juce::String written (const juce::File& file)
{
    return file.loadFileAsString();
}
} // namespace

TEST_CASE ("writeFile makes the missing folders and replaces an old file whole, leaving nothing else behind", "[plugin][export]")
{
    ScratchFolder scratch;
    const auto file = scratch.folder.getChildFile ("not yet/made either/take 1.mid");
    REQUIRE_FALSE (file.getParentDirectory().exists());
    const std::string first = "first version", second = "second";
    CHECK (plugin::writeFile (file, first.data(), first.size()) == juce::String());
    CHECK (written (file) == "first version");
    CHECK (plugin::writeFile (file, second.data(), second.size()) == juce::String());
    CHECK (written (file) == "second"); // replaced, not appended to or overlaid
    // The hidden file the bytes went to first took the old file's place: the folder holds one file.
    CHECK (file.getParentDirectory().getNumberOfChildFiles (juce::File::findFilesAndDirectories | juce::File::ignoreHiddenFiles) == 1);
    CHECK (file.getParentDirectory().getNumberOfChildFiles (juce::File::findFilesAndDirectories) == 1);
    CHECK (plugin::writeFile (scratch.folder.getChildFile ("empty.csv"), nullptr, 0) == juce::String());
    CHECK (scratch.folder.getChildFile ("empty.csv").existsAsFile());
}

TEST_CASE ("writeFile says why it cannot write: a file where a folder should be, a folder as the file", "[plugin][export]")
{
    ScratchFolder scratch;
    const auto notAFolder = scratch.folder.getChildFile ("notes.txt");
    REQUIRE (notAFolder.replaceWithText ("a file, not a folder"));
    const std::string bytes = "x";

    const auto inside = notAFolder.getChildFile ("take.mid");
    CHECK (plugin::writeFile (inside, bytes.data(), bytes.size())
           == "Could not write " + inside.getFullPathName() + ": " + notAFolder.getFullPathName() + " is a file, not a folder");
    const auto deeper = notAFolder.getChildFile ("exports/take.mid");
    CHECK (plugin::writeFile (deeper, bytes.data(), bytes.size())
           == "Could not write " + deeper.getFullPathName() + ": " + notAFolder.getFullPathName() + " is a file, not a folder");
    CHECK (written (notAFolder) == "a file, not a folder");

    CHECK (plugin::writeFile (scratch.folder, bytes.data(), bytes.size()) == "Could not write " + scratch.folder.getFullPathName() + ": it is a folder");
}

#if defined(__linux__)
TEST_CASE ("writeFile gives the system's reason when the system refuses: a new file in /sys, refused to root too", "[plugin][export]")
{
    if (! juce::File ("/sys").isDirectory())
    {
        WARN ("no /sys here: nothing to try");
        return;
    }
    // What the system says to anyone who tries to make a file there (root included).
    const int probe = ::open ("/sys/.sonotype-probe", O_WRONLY | O_CREAT | O_EXCL, 0644);
    REQUIRE (probe < 0);
    const juce::String reason (std::strerror (errno));
    const auto file = juce::File ("/sys/sonotype-export.csv");
    const std::string bytes = "file,start_s\n";
    CHECK (plugin::writeFile (file, bytes.data(), bytes.size()) == "Could not write /sys/sonotype-export.csv: " + reason);
    const auto nested = juce::File ("/sys/sonotype-exports/take.csv");
    const auto error = plugin::writeFile (nested, bytes.data(), bytes.size());
    CHECK (error.startsWith ("Could not write /sys/sonotype-exports/take.csv: could not make the folder /sys/sonotype-exports: "));
    CHECK (error.fromLastOccurrenceOf (": ", false, false).isNotEmpty());
    CHECK_FALSE (file.exists());
}
#endif

TEST_CASE ("the taught model is exported into a folder made for it, and says why when it cannot be", "[plugin][teach][export]")
{
    ScratchFolder scratch;
    TestProcessor processor;
    auto& teach = processor.teaching();
    REQUIRE (teach.addClass ("beat").isEmpty());
    REQUIRE (teach.addFiles (0, { exampleFile ("drums") }).isEmpty());
    REQUIRE (teach.waitUntilIdle (10000));

    // As a new user's ~/Documents, which may not exist yet.
    const auto model = scratch.folder.getChildFile ("Documents/taught.safetensors");
    REQUIRE (teach.exportModel (model) == juce::String());
    CHECK (engine::Model::load (model.getFullPathName().toStdString()) != nullptr);

    const auto blocker = scratch.folder.getChildFile ("Music");
    REQUIRE (blocker.replaceWithText ("a file named like a folder"));
    const auto refused = blocker.getChildFile ("taught.safetensors");
    CHECK (teach.exportModel (refused) == "Could not write " + refused.getFullPathName() + ": " + blocker.getFullPathName() + " is a file, not a folder");
}
