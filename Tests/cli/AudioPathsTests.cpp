// The files `sonotype classify` and `learn` take from a folder: the readable extensions
// (formats/AudioFormats.h), .wave among them, in any case; the rest skipped with the reason.
#include "cli/AudioPaths.h"
#include "formats/AudioFormats.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace sonotype;

TEST_CASE ("a folder scan takes every readable extension, .wave too, and skips the rest saying why", "[classify][formats]")
{
    namespace fs = std::filesystem;
    const fs::path folder = "/tmp/sonotype-audio-paths-test-" + std::to_string (::getpid());
    fs::remove_all (folder);
    fs::create_directories (folder / "more");
    std::vector<std::string> expected;
    for (const auto& extension : formats::readableExtensions())
    {
        std::ofstream (folder / ("take." + extension)) << "audio";
        expected.push_back ((folder / ("take." + extension)).string());
    }
    std::ofstream (folder / "more" / "LOUD.WAVE") << "audio";
    expected.push_back ((folder / "more" / "LOUD.WAVE").string());
    std::ofstream (folder / "notes.txt") << "text";
    std::ofstream (folder / "README") << "text";
    std::sort (expected.begin(), expected.end());

    std::vector<cli::PathProblem> errors, skipped;
    const auto files = cli::collectFiles ({ folder.string() }, errors, skipped);
    CHECK (files == expected);
    CHECK (std::find (files.begin(), files.end(), (folder / "take.wave").string()) != files.end());
    CHECK (errors.empty());
    REQUIRE (skipped.size() == 2);
    CHECK (skipped[0].message == "no file extension");
    CHECK (skipped[1].message == "unsupported extension (.txt)");

    // A folder with none: the message lists what would have been taken.
    fs::create_directories (folder / "empty");
    errors.clear();
    cli::collectFiles ({ (folder / "empty").string() }, errors, skipped);
    REQUIRE (errors.size() == 1);
    CHECK (errors[0].message == "no audio files (.wav .wave .aif .aiff .flac .ogg .mp3 .opus) in this folder");
    fs::remove_all (folder);
}
