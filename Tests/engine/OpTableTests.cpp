// The op table is the one list of the engine's ops: every row is well formed, names and kinds
// map both ways, counts are enforced before a factory runs, and docs/ENGINE.md lists exactly the
// ops the table holds (a new op without its documentation row fails here).
#include "engine/OpTable.h"
#include "engine/file/ModelError.h"
#include "support/GraphBuilder.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

using namespace sonotype;
using namespace sonotype::testing;
using Catch::Matchers::Contains;

TEST_CASE ("the op table lists every kind once, in order, with distinct names and sane counts", "[engine][ops]")
{
    const auto table = engine::opTable();
    REQUIRE (table.size() == engine::kNumOpKinds);
    std::set<std::string_view> names;
    for (std::size_t i = 0; i < table.size(); ++i)
    {
        const auto& spec = table[i];
        INFO (spec.name);
        CHECK (static_cast<std::size_t> (spec.kind) == i);
        CHECK (names.insert (spec.name).second);
        CHECK (spec.name.find_first_not_of ("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string_view::npos);
        CHECK (spec.minInputs <= spec.maxInputs);
        CHECK (spec.requiredInputs <= spec.minInputs);
        CHECK ((spec.minOutputs >= 1 || spec.maxOutputs == engine::kCountedByOp));
        CHECK (spec.minOutputs <= spec.maxOutputs);
        CHECK (spec.make != nullptr);
        const auto* found = engine::findOp (spec.name);
        REQUIRE (found != nullptr);
        CHECK (found->kind == spec.kind);
        CHECK (engine::opName (spec.kind) == spec.name);
    }
    CHECK (engine::findOp ("Relu") == nullptr);
    CHECK (engine::findOp ("") == nullptr);
}

TEST_CASE ("a node with more inputs or outputs than its op takes is refused before its op is built", "[engine][ops]")
{
    const auto refusal = [] (int numInputs, int numOutputs) -> std::string {
        GraphBuilder g;
        std::vector<int> inputs;
        for (int i = 0; i < numInputs; ++i)
            inputs.push_back (g.input ({ 4 }));
        const std::vector<GraphBuilder::Dims> outputs (static_cast<std::size_t> (numOutputs), GraphBuilder::Dims { 4 });
        const int y = g.node ("add", inputs, outputs);
        try
        {
            g.load ({ y });
        }
        catch (const engine::ModelError& e)
        {
            return e.what();
        }
        return "loaded";
    };
    CHECK (refusal (2, 1) == "loaded");
    CHECK_THAT (refusal (3, 1), Contains ("node 0 (add): takes 2 inputs, the node has 3"));
    CHECK_THAT (refusal (1, 1), Contains ("node 0 (add): takes 2 inputs, the node has 1"));
    CHECK_THAT (refusal (2, 2), Contains ("node 0 (add): produces 1 outputs, the node has 2"));
}

TEST_CASE ("docs/ENGINE.md documents exactly the ops of the op table", "[engine][ops]")
{
    std::ifstream file (std::string (SONOTYPE_SOURCE_DIR) + "/docs/ENGINE.md");
    REQUIRE (file.good());
    std::stringstream text;
    text << file.rdbuf();
    const auto doc = text.str();
    // The table under "## Operations": each row's first cell names its ops in backticks.
    const auto start = doc.find ("\n## Operations\n");
    REQUIRE (start != std::string::npos);
    const auto end = doc.find ("\n## ", start + 1);
    std::istringstream section (doc.substr (start, end - start));
    std::set<std::string> documented;
    const std::regex name ("`([a-z0-9_]+)`");
    for (std::string line; std::getline (section, line);)
    {
        if (line.rfind ("| `", 0) != 0)
            continue;
        const auto firstCell = line.substr (1, line.find ('|', 1) - 1);
        for (std::sregex_iterator it (firstCell.begin(), firstCell.end(), name), last; it != last; ++it)
            documented.insert ((*it)[1]);
    }
    std::set<std::string> inTable;
    for (const auto& spec : engine::opTable())
        inTable.insert (std::string (spec.name));
    for (const auto& op : inTable)
    {
        INFO ("in the op table but not in docs/ENGINE.md: " << op);
        CHECK (documented.count (op) == 1);
    }
    for (const auto& op : documented)
    {
        INFO ("in docs/ENGINE.md but not in the op table: " << op);
        CHECK (inTable.count (op) == 1);
    }
}
