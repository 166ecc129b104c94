#include "cli/Arguments.h"
#include "cli/ClassifyOptions.h"
#include "cli/Commands.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace sonotype::cli;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace
{
/** Parses `sonotype ARGS...` against an app with one command `test`, as main() does: the exit code of a
    failed parse, -1 after a good one; stdout and stderr in out / err. */
int parse (CLI::App& app, std::vector<std::string> args, std::string& out, std::string& err)
{
    std::ostringstream outStream, errStream;
    int code = -1;
    try
    {
        parseCommandLine (app, args);
    }
    catch (const CLI::ParseError& e)
    {
        code = reportParseError (app, e, outStream, errStream);
    }
    out = outStream.str();
    err = errStream.str();
    return code;
}
} // namespace

TEST_CASE ("Whole-number options take decimal digits in range and nothing else", "[cli]")
{
    std::size_t index = 7;
    unsigned jobs = 3;
    auto app = makeApp();
    auto* command = addCommand (*app, "test", "a test command", "Tests the options.");
    addWholeOption (*command, "--index", index, std::size_t { 0 }, std::size_t { 1000 }, "N", "an index");
    addWholeOption (*command, "--jobs", jobs, 1u, 1024u, "N", "jobs");
    std::string out, err;

    CHECK (parse (*app, { "test", "--index", "010", "--jobs=1024" }, out, err) == -1);
    CHECK (index == 10); // decimal, not octal
    CHECK (jobs == 1024);
    for (const auto& bad : { "-1", "0x10", "1e3", " 5", "5 ", "+5", "", "1001", "99999999999999999999", "18446744073709551615" })
    {
        INFO (bad);
        auto fresh = makeApp();
        auto* test = addCommand (*fresh, "test", "a test command", "");
        addWholeOption (*test, "--index", index, std::size_t { 0 }, std::size_t { 1000 }, "N", "an index");
        CHECK (parse (*fresh, { "test", "--index", bad }, out, err) == 2);
        CHECK_THAT (err, StartsWith ("error: --index: must be a whole number from 0 to 1000, not '" + std::string (bad) + "'"));
        CHECK (out.empty());
    }
}

TEST_CASE ("An option given twice takes its last value", "[cli]")
{
    std::size_t index = 7;
    double hop = 1.0;
    std::vector<std::string> paths;
    auto app = makeApp();
    auto* command = addCommand (*app, "test", "a test command", "");
    addWholeOption (*command, "--index", index, std::size_t { 0 }, std::size_t { 1000 }, "N", "an index");
    addNumberOption (*command, "--hop", hop, 0.0, 10.0, true, "a number of seconds", "SECONDS", "a hop");
    command->add_option ("PATH", paths, "files");
    std::string out, err;
    CHECK (parse (*app, { "test", "a", "--index", "3", "--hop", "0.5", "b", "--index", "4", "--hop=0.25" }, out, err) == -1);
    CHECK (index == 4);
    CHECK (hop == 0.25);
    CHECK (paths == std::vector<std::string> { "a", "b" });
}

TEST_CASE ("Number options are finite and in range", "[cli]")
{
    std::string out, err;
    for (const auto& [text, good] : std::vector<std::pair<std::string, bool>> {
             { "0.5", true }, { "3600", true }, { "1e2", true }, { "0", false }, { "-1", false }, { "nan", false }, { "inf", false }, { "3600.1", false }, { "1s", false } })
    {
        INFO (text);
        double hop = 0.25;
        auto app = makeApp();
        auto* command = addCommand (*app, "test", "a test command", "");
        addNumberOption (*command, "--hop", hop, 0.0, 3600.0, true, "a number of seconds", "SECONDS", "hop");
        CHECK (parse (*app, { "test", "--hop", text }, out, err) == (good ? -1 : 2));
        if (good)
            CHECK (hop == std::stod (text));
        else
            CHECK_THAT (err, StartsWith ("error: --hop: must be a number of seconds greater than 0, at most 3600, not '" + text + "'"));
    }
}

TEST_CASE ("The command line: help, `--`, unknown options and commands", "[cli]")
{
    std::vector<std::string> paths;
    bool summary = false;
    auto app = makeApp();
    auto* command = addCommand (*app, "test", "a test command", "Tests the command line.", "A footer.");
    command->add_flag ("--summary", summary, "a flag");
    command->add_option ("PATH", paths, "paths")->option_text ("PATH...");
    std::string out, err;

    SECTION ("help")
    {
        CHECK (parse (*app, { "test", "--help" }, out, err) == 0);
        CHECK (out == "usage: sonotype test [--summary] PATH...\n\nTests the command line.\n\narguments:\n  PATH                 paths\n\n"
                      "options:\n  -h,--help            show this help\n  --summary            a flag\n\nA footer.\n");
        CHECK (parse (*app, { "--help" }, out, err) == 0);
        CHECK_THAT (out, StartsWith ("usage: sonotype COMMAND [ARGS...]\n"));
        CHECK_THAT (out, Contains ("\ncommands:\n  test                 a test command\n"));
    }
    SECTION ("`--` ends the options")
    {
        CHECK (parse (*app, { "test", "a", "--", "-b", "--summary", "--" }, out, err) == -1);
        CHECK (paths == std::vector<std::string> { "a", "-b", "--summary", "--" });
        CHECK_FALSE (summary);
        paths.clear();
        CHECK (parse (*app, { "test", "--summary", "--", "--help" }, out, err) == -1);
        CHECK (paths == std::vector<std::string> { "--help" });
        CHECK (summary);
    }
    SECTION ("an option's value may be `--`")
    {
        std::string name;
        command->add_option ("--name", name, "a name");
        CHECK (parse (*app, { "test", "--name", "--", "a", "--", "-b" }, out, err) == -1);
        CHECK (name == "--");
        CHECK (paths == std::vector<std::string> { "a", "-b" });
    }
    SECTION ("unknown option")
    {
        CHECK (parse (*app, { "test", "--bogus=1", "a" }, out, err) == 2);
        CHECK (err == "error: unknown option --bogus\n");
    }
    SECTION ("unknown command")
    {
        CHECK (parse (*app, { "frobnicate" }, out, err) == 2);
        CHECK_THAT (err, StartsWith ("error: unknown command 'frobnicate'\n\nusage: sonotype COMMAND"));
    }
    SECTION ("names from the command line are printed without terminal escapes")
    {
        CHECK (parse (*app, { "test", "--\x1b[31m" }, out, err) == 2);
        CHECK (err.find ('\x1b') == std::string::npos);
    }
}

TEST_CASE ("classify's options parsed for a caller other than the command line, with its checks and messages", "[cli]")
{
    const auto options = parseClassifyOptions ({ "--hop", "0.5", "--onsets", "--onset-window", "0.1", "--classes", "a, b", "--", "-x.wav" });
    CHECK (options.analysis.hopSeconds == 0.5);
    CHECK (options.onsets);
    CHECK (options.onsetWindowGiven);
    CHECK (options.hits.clipSeconds == 0.1);
    CHECK (options.classes == std::vector<std::string> { "a", "b" });
    CHECK (options.paths == std::vector<std::string> { "-x.wav" });
    CHECK (options.analysis.toEnd);              // completed: to the true end unless --grid
    CHECK_FALSE (options.analysis.findSegments); // window rows need no segments
    CHECK_FALSE (parseClassifyOptions ({ "x.wav" }).onsetWindowGiven);

    const auto refused = [] (std::vector<std::string> arguments) {
        try
        {
            parseClassifyOptions (arguments);
        }
        catch (const UsageError& e)
        {
            return std::string (e.what());
        }
        return std::string ("accepted");
    };
    CHECK (refused ({ "--hop", "0", "x.wav" }) == "--hop: must be a number of seconds greater than 0, at most 3600, not '0'");
    CHECK (refused ({ "--bogus", "x.wav" }) == "unknown option --bogus");
    CHECK (refused ({ "--summary", "--segments", "x.wav" }) == "--summary and segments (--segments, --format audacity|reaper|midi) do not go together");
    CHECK (refused ({}) == "classify needs at least one file or folder (see sonotype classify --help)");
}
