#include "cli/ModelProfile.h"

#include "engine/CpuDispatch.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <vector>

namespace sonotype::cli
{
namespace
{
    struct Row
    {
        std::string name;
        int nodes = 0;
        double seconds = 0.0, multiplyAdds = 0.0;
    };

    void printRow (std::ostream& out, const Row& row, double total, int runs)
    {
        const double ms = row.seconds * 1e3 / runs;
        char line[256];
        if (row.multiplyAdds > 0.0 && row.seconds > 0.0)
            std::snprintf (line, sizeof line, "  %-60s %5d %10.4f %6.1f%% %10.2f %8.2f\n", row.name.c_str(), row.nodes, ms,
                           100.0 * row.seconds / total, 2.0 * row.multiplyAdds / 1e6, 2.0 * row.multiplyAdds * runs / row.seconds / 1e9);
        else
            std::snprintf (line, sizeof line, "  %-60s %5d %10.4f %6.1f%% %10s %8s\n", row.name.c_str(), row.nodes, ms, 100.0 * row.seconds / total, "-", "-");
        out << line;
    }

    void printHeader (std::ostream& out, const char* first)
    {
        char line[256];
        std::snprintf (line, sizeof line, "  %-60s %5s %10s %7s %10s %8s\n", first, "nodes", "ms/run", "share", "MFLOP", "GFLOP/s");
        out << line;
    }
} // namespace

void printProfile (engine::Session& session, int runs, std::ostream& out)
{
    const auto& nodes = session.model().nodes();
    std::vector<double> seconds (nodes.size(), 0.0);
    session.run(); // warm caches
    for (int i = 0; i < runs; ++i)
        session.runTimed (seconds);
    const double total = std::max (std::accumulate (seconds.begin(), seconds.end(), 0.0), 1e-12);
    double multiplyAdds = 0.0;
    // What each node absorbed at load (a folded BatchNorm, a fused ReLU), for its label.
    std::vector<std::string> absorbed (nodes.size());
    for (const auto& node : nodes)
        if (node.fusedInto >= 0)
            absorbed[static_cast<std::size_t> (node.fusedInto)] += "+" + std::string (node.op());
    std::map<std::string, Row> byKind;
    std::vector<Row> byNode;
    for (std::size_t n = 0; n < nodes.size(); ++n)
    {
        const auto& node = nodes[n];
        if (node.kernel->aliasesInput())
            continue;
        auto& kind = byKind[std::string (node.op())];
        kind.name = node.op();
        ++kind.nodes;
        kind.seconds += seconds[n];
        kind.multiplyAdds += node.kernel->multiplyAdds();
        multiplyAdds += node.kernel->multiplyAdds();
        // The source line without its folder: "conv+batch_norm+relu audio_transformer.py:105".
        const auto slash = node.source.find_last_of ('/');
        const auto where = slash == std::string::npos ? node.source : node.source.substr (slash + 1);
        byNode.push_back ({ std::to_string (n) + " " + std::string (node.op()) + absorbed[n] + (where.empty() ? "" : " " + where), 1, seconds[n],
                            node.kernel->multiplyAdds() });
    }
    char line[256];
    std::snprintf (line, sizeof line, "profile: %d runs, %.4f ms per run, %.2f MFLOP, %.2f GFLOP/s, kernels %s (one thread)\n", runs, total * 1e3 / runs,
                   2.0 * multiplyAdds / 1e6, 2.0 * multiplyAdds * runs / total / 1e9, engine::activeKernelPath().name);
    out << line;
    std::vector<Row> kinds;
    for (auto& [name, row] : byKind)
        kinds.push_back (row);
    const auto slowestFirst = [] (const Row& a, const Row& b) { return a.seconds > b.seconds; };
    std::sort (kinds.begin(), kinds.end(), slowestFirst);
    out << "by op kind:\n";
    printHeader (out, "op");
    for (const auto& row : kinds)
        printRow (out, row, total, runs);
    std::stable_sort (byNode.begin(), byNode.end(), slowestFirst);
    const std::size_t shown = std::min<std::size_t> (byNode.size(), 15);
    out << "slowest " << shown << " of " << byNode.size() << " nodes:\n";
    printHeader (out, "node");
    for (std::size_t i = 0; i < shown; ++i)
    {
        auto row = byNode[i];
        if (row.name.size() > 60)
            row.name = row.name.substr (0, 57) + "...";
        printRow (out, row, total, runs);
    }
}

} // namespace sonotype::cli
