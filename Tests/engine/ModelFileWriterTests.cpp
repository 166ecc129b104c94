// The model file writer (engine/file/ModelFileWriter.h): a file written back unchanged is the
// file nlohmann/json wrote (keys sorted, compact, its number formats, padded to 8 bytes) with its
// tensors' bytes as they were; what is appended loads and runs; and it takes only what the reader
// takes, refusing everything else with a ModelError.
#include "engine/Model.h"
#include "engine/OpTable.h"
#include "engine/Session.h"
#include "engine/file/LoadBudget.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelFile.h"
#include "engine/file/ModelFileKeys.h"
#include "engine/file/ModelFileWriter.h"
#include "resources/BuiltinModel.h"
#include "support/Fixtures.h"
#include "support/SafetensorsWriter.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

using namespace sonotype;
using namespace sonotype::testing;
using Catch::Matchers::Contains;
using engine::JsonValue;

namespace
{
// A gemm [2, 3] x [4, 3]^T + b: keys unsorted, spaces, numbers as Python writes them.
const std::string kGraph = R"({"inputs": [0], "outputs": [3], "values": [{"shape": [2, 3], "kind": "input"},
    {"shape": [4, 3], "kind": "tensor", "tensor": "w"}, {"shape": [4], "kind": "tensor", "tensor": "b"}, {"shape": [2, 4], "kind": "node"}],
    "nodes": [{"op": "gemm", "inputs": [0, 1, 2], "outputs": [3], "attrs": {"trans_b": true, "alpha": 1.0, "beta": 1E0, "x": 1e-05}}]})";
// The same, as the writer writes it.
const std::string kGraphWritten = R"({"inputs":[0],"nodes":[{"attrs":{"alpha":1.0,"beta":1.0,"trans_b":true,"x":1e-05},"inputs":[0,1,2],)"
                                  R"("op":"gemm","outputs":[3]}],"outputs":[3],"values":[{"kind":"input","shape":[2,3]},)"
                                  R"({"kind":"tensor","shape":[4,3],"tensor":"w"},{"kind":"tensor","shape":[4],"tensor":"b"},)"
                                  R"({"kind":"node","shape":[2,4]}]})";

std::vector<TestTensor> tensors()
{
    return { { "w", { 4, 3 }, { 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1 } }, { "b", { 4 }, { 0.5f, -0.5f, 0, 1 } } };
}

std::map<std::string, std::string> metadata (const std::string& graph)
{
    auto entries = modelMetadata (graph);
    entries["note"] = "a \"quoted\" \\ line\nnext\x01\x7f \xc3\xa9/";
    return entries;
}

std::vector<std::uint8_t> testFile (const std::string& graph = kGraph)
{
    return safetensorsBytes (tensors(), metadata (graph));
}

std::string quoted (const std::string& json)
{
    std::string out;
    for (const char c : json)
        out += c == '"' ? std::string ("\\\"") : std::string (1, c);
    return out;
}

std::string headerOf (const std::vector<std::uint8_t>& file)
{
    REQUIRE (file.size() >= 8);
    std::uint64_t length = 0;
    for (int b = 7; b >= 0; --b)
        length = (length << 8) | file[static_cast<std::size_t> (b)];
    REQUIRE (length <= file.size() - 8);
    return { file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t> (length) };
}

std::shared_ptr<const engine::Model> load (const std::vector<std::uint8_t>& bytes)
{
    return engine::Model::fromMemory (bytes.data(), bytes.size(), "written");
}

/** The file as nlohmann/json wrote it before the writer: its header parsed and dumped, the graph too. */
std::vector<std::uint8_t> nlohmannRewritten (const std::vector<std::uint8_t>& file)
{
    const auto text = headerOf (file);
    auto header = nlohmann::json::parse (text);
    auto& entries = header.at ("__metadata__");
    entries["graph"] = nlohmann::json::parse (entries.at ("graph").get<std::string>()).dump();
    auto written = header.dump (-1, ' ', false, nlohmann::json::error_handler_t::strict);
    written.append ((8 - written.size() % 8) % 8, ' ');
    std::vector<std::uint8_t> bytes (8);
    for (std::size_t b = 0; b < 8; ++b)
        bytes[b] = static_cast<std::uint8_t> (static_cast<std::uint64_t> (written.size()) >> (8 * b));
    bytes.insert (bytes.end(), written.begin(), written.end());
    bytes.insert (bytes.end(), file.begin() + 8 + static_cast<std::ptrdiff_t> (text.size()), file.end());
    return bytes;
}
} // namespace

TEST_CASE ("a model file written back unchanged: keys sorted, compact, padded to 8 bytes, its tensors' bytes as they were", "[model-file]")
{
    const auto file = testFile();
    const auto written = engine::ModelFileWriter (file, "test").bytes();
    std::string expected = R"({"__metadata__":{"format":"sonotype","format_version":"1","graph":")" + quoted (kGraphWritten) + R"(",)"
                           + "\"note\":\"a \\\"quoted\\\" \\\\ line\\nnext\\u0001\x7f \xc3\xa9/\"},"
                           + R"("b":{"data_offsets":[48,64],"dtype":"F32","shape":[4]},"w":{"data_offsets":[0,48],"dtype":"F32","shape":[4,3]}})";
    expected.append ((8 - expected.size() % 8) % 8, ' ');
    CHECK (headerOf (written) == expected);
    CHECK (written.size() == 8 + expected.size() + 64);
    CHECK (std::equal (written.end() - 64, written.end(), file.end() - 64)); // the data section, byte for byte
    // The reader takes it, and writing it again changes nothing.
    CHECK (load (written)->info().outputShapes.at (0) == engine::Shape { 2, 4 });
    CHECK (engine::ModelFileWriter (written, "again").bytes() == written);
    CHECK (nlohmannRewritten (file) == written);
}

TEST_CASE ("the built-in model (and every exported fixture) written back unchanged is what nlohmann/json wrote", "[model-file]")
{
    const std::vector<std::uint8_t> builtin (resources::builtinModelFile().begin(), resources::builtinModelFile().end());
    CHECK (engine::ModelFileWriter (builtin, "built-in").bytes() == nlohmannRewritten (builtin));
    // The exported fixtures (their graphs' attributes hold every kind of number the exporter writes), where they are.
    const std::filesystem::path fixtures = fixturePath ("");
    if (! std::filesystem::is_directory (fixtures))
        return;
    int compared = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator (fixtures))
    {
        if (entry.path().extension() != ".safetensors")
            continue;
        std::ifstream in (entry.path(), std::ios::binary);
        const std::vector<std::uint8_t> bytes (std::istreambuf_iterator<char> (in), {});
        std::optional<engine::ModelFileWriter> writer;
        try
        {
            writer.emplace (bytes, entry.path().string());
        }
        catch (const engine::ModelError&) // a fixture of what the reader refuses
        {
            continue;
        }
        INFO (entry.path().string());
        CHECK (writer->bytes() == nlohmannRewritten (bytes));
        ++compared;
    }
    WARN ("fixtures written back: " << compared);
}

TEST_CASE ("values, tensors, nodes and metadata appended make a model the engine loads and runs", "[model-file]")
{
    const auto file = testFile();
    engine::ModelFileWriter writer (file, "test");
    CHECK (writer.numValues() == 4);
    CHECK (writer.outputs() == std::vector<int> { 3 });
    CHECK (writer.shapeOf (1) == std::vector<int64_t> { 4, 3 });
    CHECK (writer.elements (3) == 8);
    CHECK (*writer.metadata (engine::keys::format) == "sonotype");
    CHECK (writer.metadata ("absent") == nullptr);

    const float two[] = { 2.0f };
    const int scale = writer.tensor ("extra.scale", { 1 }, two);
    CHECK (scale == 4);
    const int doubled = writer.node (engine::opName (engine::OpKind::mul), { 3, scale }, { 2, 4 }, JsonValue::object ({}), "a test");
    const int row = writer.node (engine::opName (engine::OpKind::reshape), { doubled }, { 1, 8 }, JsonValue::object ({}), "a test");
    const int sum = writer.node (engine::opName (engine::OpKind::reduceSum), { row }, { 1, 1 },
                                 JsonValue::object ({ { "axes", JsonValue::array ({ JsonValue::integer (-1) }) }, { "keepdim", JsonValue::boolean (true) } }),
                                 "a test");
    writer.setOutputs ({ doubled, sum });
    writer.setMetadata (engine::keys::labels, R"(["a","b","c","d"])");
    writer.setMetadata (engine::keys::embeddingOutput, "1");
    writer.eraseMetadata ("note");
    const auto written = writer.bytes();

    const auto header = headerOf (written);
    CHECK_THAT (header, Contains (R"("extra.scale":{"data_offsets":[64,68],"dtype":"F32","shape":[1]})"));
    CHECK_THAT (header, Contains (R"({\"inputs\":[3,4],\"op\":\"mul\",\"outputs\":[5],\"source\":\"a test\"})"));
    CHECK_THAT (header, Contains (R"({\"attrs\":{\"axes\":[-1],\"keepdim\":true},\"inputs\":[6],\"op\":\"reduce_sum\")"));
    CHECK_THAT (header, Contains (R"(\"outputs\":[5,7])"));
    CHECK_THAT (header, ! Contains ("note"));
    CHECK (std::equal (written.end() - 4, written.end(), reinterpret_cast<const std::uint8_t*> (two)));

    const auto model = load (written);
    CHECK (model->info().labels == std::vector<std::string> { "a", "b", "c", "d" });
    CHECK (model->info().embeddingOutput == std::optional<int> (1));
    engine::Session session (model);
    const float x[] = { 1, 2, 3, -1, 0, 4 };
    std::copy (std::begin (x), std::end (x), session.input (0).begin());
    session.run();
    // x . w + b, doubled: row 0 is (1.5, 1.5, 3, 7) x 2; the sum of both rows' doubled entries.
    CHECK (session.output (0)[0] == Approx (3.0f));
    CHECK (session.output (0)[3] == Approx (14.0f));
    CHECK (session.output (1)[0] == Approx (2.0f * (1.5f + 1.5f + 3.0f + 7.0f + -0.5f + -0.5f + 4.0f + 4.0f)));
    // Written again, unchanged.
    CHECK (engine::ModelFileWriter (written, "again").bytes() == written);
}

TEST_CASE ("the writer takes only files the reader takes, and checks what it is given", "[model-file]")
{
    const auto refused = [] (const std::vector<std::uint8_t>& bytes) {
        try
        {
            engine::ModelFileWriter writer (bytes, "bad.safetensors");
        }
        catch (const engine::ModelError& e)
        {
            return std::string (e.what());
        }
        return std::string ("accepted");
    };
    CHECK_THAT (refused (std::vector<std::uint8_t> (4, 0)), Contains ("bad.safetensors") && Contains ("too short"));
    auto file = testFile();
    auto longer = file;
    longer[0] = 0xff;
    longer[5] = 0x01;
    CHECK_THAT (refused (longer), Contains ("header length"));
    auto trailing = file;
    trailing.push_back (0);
    CHECK_THAT (refused (trailing), Contains ("trailing data"));
    CHECK_THAT (refused (safetensorsBytes (tensors(), { { "format", "pt" } })), Contains ("not a Sonotype model"));
    CHECK_THAT (refused (safetensorsBytes (tensors(), modelMetadata ("{\"values\": ["))), Contains ("graph is not valid JSON"));
    CHECK_THAT (refused (safetensorsBytes (tensors(), modelMetadata ("[]"))), Contains ("not a JSON object"));
    CHECK_THAT (refused (safetensorsBytes (tensors(), modelMetadata (R"({"values": {}, "nodes": [], "outputs": []})"))),
                Contains ("'values' is not a list"));

    engine::ModelFileWriter writer (file, "test");
    const auto fails = [] (auto&& change, const std::string& what) {
        INFO (what);
        CHECK_THROWS_WITH (change(), Contains (what));
    };
    const float one[] = { 1.0f };
    fails ([&] { writer.shapeOf (4); }, "value 4 is not in the graph");
    fails ([&] { writer.shapeOf (-1); }, "value -1 is not in the graph");
    fails ([&] { writer.value ({ 2, -1 }); }, "-1");
    fails ([&] { writer.value ({ 1, 1, 1, 1, 1, 1, 1, 1, 1 }); }, "rank");
    fails ([&] { writer.value ({ int64_t { 1 } << 21, int64_t { 1 } << 20 }); }, "elements");
    fails ([&] { writer.tensor ("", { 1 }, one); }, "tensor name");
    fails ([&] { writer.tensor ("a\nb", { 1 }, one); }, "tensor name");
    fails ([&] { writer.tensor ("__metadata__", { 1 }, one); }, "__metadata__");
    fails ([&] { writer.tensor ("t", { 2 }, one); }, "do not fill");
    fails ([&] { writer.tensor ("w", { 1 }, one); }, "has a tensor 'w' already"); // its bytes would lie unnamed: a file the reader refuses
    fails ([&] { writer.node ("mul", { 0, 9 }, { 2, 3 }, JsonValue::object ({}), "x"); }, "value 9 is not in the graph");
    fails ([&] { writer.node ("mul", { 0 }, { 2, 3 }, JsonValue::array ({}), "x"); }, "attributes");
    fails ([&] { writer.node ("", { 0 }, { 2, 3 }, JsonValue::object ({}), "x"); }, "needs an op");
    fails ([&] { writer.setOutputs ({ 0, 4 }); }, "value 4 is not in the graph");
    fails ([&] { writer.setMetadata (engine::keys::graph, "{}"); }, "graph");
    fails ([&] { writer.eraseMetadata (engine::keys::graph); }, "graph");
    // Nothing refused was appended.
    CHECK (writer.numValues() == 4);
    CHECK (writer.bytes() == engine::ModelFileWriter (file, "test").bytes());
    // A metadata entry that is not UTF-8 is refused when written.
    writer.setMetadata ("bad", "\xff");
    fails ([&] { writer.bytes(); }, "not valid UTF-8");

    // A graph whose outputs or shapes are not what the writer reads.
    engine::ModelFileWriter oddOutputs (testFile (R"({"values": [{"shape": [1.5], "kind": "node"}], "nodes": [], "outputs": [0.5]})"), "odd");
    fails ([&] { oddOutputs.outputs(); }, "outputs");
    fails ([&] { oddOutputs.shapeOf (0); }, "graph value 0");
}

TEST_CASE ("no damaged model file crashes the writer: refused by the reader's checks, or written back", "[model-file][robustness]")
{
    const auto file = testFile();
    const auto attempt = [] (const std::vector<std::uint8_t>& bytes) {
        try
        {
            engine::ModelFileWriter writer (bytes, "damaged");
            writer.value ({ 1 });
            const auto written = writer.bytes();
            // What is written has a header the reader takes.
            engine::LoadBudget budget ({});
            std::uint64_t dataStart = 0;
            engine::ModelFile::parseHeader (written.data(), written.size(), "written", budget, dataStart);
        }
        catch (const engine::ModelError&)
        {
        }
    };
    for (std::size_t length = 0; length < file.size(); ++length)
        attempt ({ file.begin(), file.begin() + static_cast<std::ptrdiff_t> (length) });
    for (std::size_t at = 0; at < file.size(); ++at)
        for (const std::uint8_t value : { std::uint8_t { 0 }, std::uint8_t { '"' }, std::uint8_t { '}' }, std::uint8_t { 0xff } })
        {
            auto damaged = file;
            damaged[at] = value;
            attempt (damaged);
        }
}
