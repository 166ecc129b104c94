// The `sonotype` command-line tool: classifies audio files, learns classes from examples, and runs
// and inspects model files.
#include "cli/Arguments.h"
#include "cli/Commands.h"
#include "engine/file/ModelError.h"

#include <iostream>
#include <string>
#include <utility>
#include <vector>

int main (int argc, char** argv)
{
    using namespace sonotype::cli;
    auto app = makeApp();
    app->footer ("Run `sonotype COMMAND --help` for a command's options.");
    // The project's version (CMake's, the plugin's too): one source of truth.
    app->set_version_flag ("--version", std::string ("sonotype ") + SONOTYPE_VERSION, "print the version")->group ("options");
    std::vector<std::pair<CLI::App*, CommandRun>> runs;
    for (auto add : { addClassifyCommand, addLearnCommand, addRunModelCommand, addInspectCommand, addFeaturesCommand })
    {
        auto run = add (*app);
        runs.emplace_back (app->get_subcommands ({}).back(), std::move (run));
    }
    const std::vector<std::string> args (argv + 1, argv + argc);
    if (args.empty())
    {
        std::cerr << app->help();
        return 2;
    }
    try
    {
        if (args.size() == 1 && args[0] == "help")
            throw CLI::CallForHelp();
        parseCommandLine (*app, args);
        for (const auto& [command, run] : runs)
            if (command->parsed())
                return run();
        return 2; // (unreachable: require_subcommand (1))
    }
    catch (const CLI::ParseError& e)
    {
        return reportParseError (*app, e, std::cout, std::cerr);
    }
    // Messages may quote names from files: printable() keeps terminal escapes out of stderr.
    catch (const UsageError& e)
    {
        std::cerr << "error: " << sonotype::engine::printable (e.what()) << "\n";
        return 2;
    }
    catch (const std::bad_alloc&)
    {
        std::cerr << "error: out of memory\n";
        return 1;
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << sonotype::engine::printable (e.what()) << "\n";
        return 1;
    }
}
