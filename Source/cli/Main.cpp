// The `sonotype` command-line tool: runs and inspects model files (and, later, classifies audio).
#include "cli/Arguments.h"
#include "cli/Commands.h"
#include "cli/Npy.h"
#include "engine/file/ModelError.h"

#include <iostream>
#include <map>

namespace
{
constexpr const char* kHelp = R"(usage: sonotype COMMAND [ARGS...]

commands:
  classify    classify audio files and folders, window by window
  run-model   run a model's graph on a .npy input, write the output as .npy
  inspect     show what a model file holds
  features    compute a model's log-mel features of samples in a .npy file

Run `sonotype COMMAND --help` for a command's options.
)";
} // namespace

int main (int argc, char** argv)
{
    using namespace sonotype::cli;
    const std::vector<std::string> args (argv + 1, argv + argc);
    const std::map<std::string, int (*) (const std::vector<std::string>&)> commands { { "run-model", runModelCommand }, { "inspect", inspectCommand }, { "features", featuresCommand }, { "classify", classifyCommand } };
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help")
    {
        (args.empty() ? std::cerr : std::cout) << kHelp;
        return args.empty() ? 2 : 0;
    }
    const auto command = commands.find (args[0]);
    if (command == commands.end())
    {
        std::cerr << "error: unknown command '" << args[0] << "'\n\n" << kHelp;
        return 2;
    }
    try
    {
        return command->second ({ args.begin() + 1, args.end() });
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
