#include "plugin/FileWriting.h"

namespace sonotype::plugin
{
namespace
{
    /** The nearest of `folder` and the folders above it that exists (a file or a folder). */
    juce::File nearestExisting (juce::File folder)
    {
        while (! folder.exists() && folder.getParentDirectory() != folder)
            folder = folder.getParentDirectory();
        return folder;
    }

    /** Makes `folder` and the folders above it; returns why that failed, empty when it exists now.
        A file in the way is named, because the system's reason for it ("File exists" from mkdir)
        does not say which of the folders is the file. */
    juce::String makeFolder (const juce::File& folder)
    {
        if (folder.isDirectory())
            return {};
        if (const auto blocker = nearestExisting (folder); blocker.existsAsFile())
            return blocker.getFullPathName() + " is a file, not a folder";
        if (const auto made = folder.createDirectory(); made.failed())
            return "could not make the folder " + folder.getFullPathName() + ": " + made.getErrorMessage();
        return {};
    }

    /** Writes the bytes to `file` (a new file); returns the system's reason for a failure. */
    juce::String writeNew (const juce::File& file, const void* data, std::size_t size)
    {
        juce::FileOutputStream stream (file);
        if (stream.failedToOpen())
            return stream.getStatus().getErrorMessage();
        if (size > 0)
            stream.write (data, size);
        stream.flush(); // the buffer's last bytes reach the disk here: a full disk fails here
        return stream.getStatus().failed() ? stream.getStatus().getErrorMessage() : juce::String();
    }
} // namespace

juce::String writeFile (const juce::File& destination, const void* data, std::size_t size)
{
    const auto failed = [&destination] (const juce::String& reason) {
        return "Could not write " + destination.getFullPathName() + ": " + (reason.isNotEmpty() ? reason : juce::String ("the system gave no reason"));
    };
    if (destination.isDirectory())
        return failed ("it is a folder");
    if (const auto error = makeFolder (destination.getParentDirectory()); error.isNotEmpty())
        return failed (error);
    juce::TemporaryFile temporary (destination, juce::TemporaryFile::useHiddenFile);
    if (const auto error = writeNew (temporary.getFile(), data, size); error.isNotEmpty())
        return failed (error);
    if (! temporary.overwriteTargetFileWithTemporary())
        return failed ("the finished file could not take the old one's place");
    return {};
}

} // namespace sonotype::plugin
