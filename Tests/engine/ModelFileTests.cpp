// The model loader refuses every malformed file with a specific message, never crashes.
#include "engine/Model.h"
#include "engine/Session.h"
#include "engine/file/ModelError.h"
#include "engine/file/ModelMetadata.h"
#include "support/SafetensorsWriter.h"

#include <catch2/catch.hpp>

using namespace sonotype;
using namespace sonotype::testing;
using Catch::Matchers::Contains;

namespace
{
const std::string kGraph = R"({"inputs":[0],"outputs":[4],"values":[
    {"shape":[2,3],"kind":"input"},{"shape":[4,3],"kind":"tensor","tensor":"w"},{"shape":[4],"kind":"tensor","tensor":"b"},
    {"shape":[2,4],"kind":"node"},{"shape":[2,4],"kind":"node"}],
  "nodes":[{"op":"gemm","inputs":[0,1,2],"outputs":[3],"attrs":{"trans_b":true}},
           {"op":"softmax","inputs":[3],"outputs":[4],"attrs":{"axis":1}}]})";

std::vector<TestTensor> tensors()
{
    return { { "w", { 4, 3 }, { 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1 } }, { "b", { 4 }, { 0.5f, -0.5f, 0, 1 } } };
}

std::shared_ptr<const engine::Model> load (const std::vector<std::uint8_t>& bytes)
{
    return engine::Model::fromMemory (bytes.data(), bytes.size(), "test.safetensors");
}

std::vector<std::uint8_t> withGraph (const std::string& graph)
{
    return safetensorsBytes (tensors(), modelMetadata (graph));
}

std::string replaced (std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find (from);
    REQUIRE (at != std::string::npos);
    return text.replace (at, from.size(), to);
}
} // namespace

TEST_CASE ("a well-formed model loads and reports its shapes", "[model-file]")
{
    const auto model = load (withGraph (kGraph));
    REQUIRE (model->info().inputShapes.at (0) == engine::Shape { 2, 3 });
    REQUIRE (model->info().outputShapes.at (0) == engine::Shape { 2, 4 });
    REQUIRE (model->info().numParameters == 16);
    REQUIRE (model->info().opCounts.at ("gemm") == 1);
}

TEST_CASE ("container errors are specific", "[model-file]")
{
    auto good = withGraph (kGraph);

    SECTION ("empty and tiny files")
    {
        REQUIRE_THROWS_WITH (load ({}), Contains ("too short"));
        REQUIRE_THROWS_WITH (load ({ 1, 2, 3 }), Contains ("too short"));
    }
    SECTION ("header length beyond the file")
    {
        auto bytes = good;
        bytes[5] = 0x7f;
        REQUIRE_THROWS_WITH (load (bytes), Contains ("header length") && Contains ("exceeds the file size"));
    }
    SECTION ("truncated data")
    {
        auto bytes = good;
        bytes.resize (bytes.size() - 4);
        REQUIRE_THROWS_WITH (load (bytes), Contains ("truncated"));
    }
    SECTION ("trailing bytes")
    {
        auto bytes = good;
        bytes.push_back (0);
        REQUIRE_THROWS_WITH (load (bytes), Contains ("trailing data"));
    }
    SECTION ("header that is not JSON")
    {
        const auto header = safetensorsHeader (tensors(), modelMetadata (kGraph));
        REQUIRE_THROWS_WITH (load (safetensorsBytes (header.substr (0, header.size() - 1) + "!", tensors())), Contains ("not valid JSON"));
    }
    SECTION ("unsupported dtype")
    {
        const auto header = replaced (safetensorsHeader (tensors(), modelMetadata (kGraph)), "\"dtype\":\"F32\"", "\"dtype\":\"F16\"");
        REQUIRE_THROWS_WITH (load (safetensorsBytes (header, tensors())), Contains ("tensor 'w'") && Contains ("F16"));
    }
    SECTION ("byte count that does not match the shape")
    {
        const auto header = replaced (safetensorsHeader (tensors(), modelMetadata (kGraph)), "\"shape\":[4,3]", "\"shape\":[4,4]");
        REQUIRE_THROWS_WITH (load (safetensorsBytes (header, tensors())), Contains ("tensor 'w'") && Contains ("needs 64"));
    }
    SECTION ("overlapping tensors")
    {
        const auto header = replaced (safetensorsHeader (tensors(), modelMetadata (kGraph)), "\"data_offsets\":[48,64]", "\"data_offsets\":[40,56]");
        REQUIRE_THROWS_WITH (load (safetensorsBytes (header, tensors())), Contains ("overlaps"));
    }
    SECTION ("negative and huge dimensions")
    {
        const auto negative = replaced (safetensorsHeader (tensors(), modelMetadata (kGraph)), "\"shape\":[4]", "\"shape\":[-4]");
        REQUIRE_THROWS_WITH (load (safetensorsBytes (negative, tensors())), Contains ("out of range"));
        const auto huge = replaced (safetensorsHeader (tensors(), modelMetadata (kGraph)), "\"shape\":[4]", "\"shape\":[4000000000000000]");
        REQUIRE_THROWS_AS (load (safetensorsBytes (huge, tensors())), engine::ModelError);
    }
}

TEST_CASE ("metadata and graph errors are specific", "[model-file]")
{
    SECTION ("not a Sonotype model")
    {
        REQUIRE_THROWS_WITH (load (safetensorsBytes (tensors(), { { "format", "pt" } })), Contains ("not a Sonotype model"));
    }
    SECTION ("future format version")
    {
        auto metadata = modelMetadata (kGraph);
        metadata["format_version"] = "2";
        REQUIRE_THROWS_WITH (load (safetensorsBytes (tensors(), metadata)), Contains ("format_version 2 is not supported"));
    }
    SECTION ("graph that is not JSON")
    {
        REQUIRE_THROWS_WITH (load (withGraph ("{\"inputs\": [0")), Contains ("graph"));
    }
    SECTION ("missing stored tensor")
    {
        REQUIRE_THROWS_WITH (load (withGraph (replaced (kGraph, "\"tensor\":\"w\"", "\"tensor\":\"nope\""))), Contains ("'nope' is not in the file"));
    }
    SECTION ("stored tensor with another shape")
    {
        REQUIRE_THROWS_WITH (load (withGraph (replaced (kGraph, "{\"shape\":[4,3],", "{\"shape\":[3,4],"))), Contains ("tensor 'w' is [4, 3]"));
    }
    SECTION ("unknown op")
    {
        REQUIRE_THROWS_WITH (load (withGraph (replaced (kGraph, "\"op\":\"softmax\"", "\"op\":\"fft\""))), Contains ("node 1 (fft)") && Contains ("unknown op"));
    }
    SECTION ("declared output shape that the op does not produce")
    {
        const auto graph = replaced (kGraph, "{\"shape\":[2,4],\"kind\":\"node\"},{", "{\"shape\":[2,5],\"kind\":\"node\"},{");
        REQUIRE_THROWS_WITH (load (withGraph (graph)), Contains ("node 0 (gemm)") && Contains ("declared [2, 5]"));
    }
    SECTION ("value used before it is computed")
    {
        REQUIRE_THROWS_WITH (load (withGraph (replaced (kGraph, "\"inputs\":[3],", "\"inputs\":[4],"))), Contains ("before it is computed"));
    }
    SECTION ("reference to a value that does not exist")
    {
        REQUIRE_THROWS_WITH (load (withGraph (replaced (kGraph, "\"inputs\":[0,1,2]", "\"inputs\":[0,1,99]"))), Contains ("value 99 does not exist"));
    }
    SECTION ("bad attribute")
    {
        REQUIRE_THROWS_WITH (load (withGraph (replaced (kGraph, "\"axis\":1", "\"axis\":7"))), Contains ("out of range"));
        REQUIRE_THROWS_WITH (load (withGraph (replaced (kGraph, "\"trans_b\":true", "\"trans_b\":\"yes\""))), Contains ("true or false"));
    }
    SECTION ("incompatible gemm operands")
    {
        REQUIRE_THROWS_WITH (load (withGraph (replaced (kGraph, "\"trans_b\":true", "\"trans_b\":false"))), Contains ("inner dimensions"));
    }
    SECTION ("labels that do not match the output")
    {
        auto metadata = modelMetadata (kGraph);
        metadata["labels"] = "[\"a\",\"b\"]";
        REQUIRE_THROWS_WITH (load (safetensorsBytes (tensors(), metadata)), Contains ("2 labels"));
    }
    SECTION ("rank beyond the engine's limit")
    {
        REQUIRE_THROWS_WITH (load (withGraph (replaced (kGraph, "{\"shape\":[2,3],\"kind\":\"input\"}", "{\"shape\":[1,1,1,1,1,1,1,1,2,3],\"kind\":\"input\"}"))),
                             Contains ("rank"));
    }
}

TEST_CASE ("the embedding output is named by the metadata and computed in the same run", "[model-file]")
{
    // Output 1 is the gemm's result (the logits), beside the softmax of output 0.
    const auto graph = replaced (kGraph, "\"outputs\":[4],\"values\"", "\"outputs\":[4,3],\"values\"");
    auto metadata = modelMetadata (graph);

    SECTION ("none without the entry")
    {
        REQUIRE_FALSE (load (safetensorsBytes (tensors(), metadata))->info().embeddingOutput.has_value());
    }
    SECTION ("a valid index")
    {
        metadata["embedding_output"] = "1";
        const auto model = load (safetensorsBytes (tensors(), metadata));
        REQUIRE (model->info().embeddingOutput == 1);
        REQUIRE (model->info().outputShapes.at (1) == engine::Shape { 2, 4 });
        engine::Session session (model);
        const float x[] = { 1, 2, 3, -1, 0, 4 };
        std::copy (std::begin (x), std::end (x), session.input (0).begin());
        session.run();
        const auto embedding = session.output (1);
        REQUIRE (embedding.size() == 8);
        CHECK (embedding[0] == Approx (1.5f)); // x0 . w0 + b0 = 1 + 0.5
        CHECK (embedding[3] == Approx (7.0f)); // 1 + 2 + 3 + 1
        CHECK (session.output (0)[0] > 0.0f);
    }
    SECTION ("an index that is not an output is refused")
    {
        metadata["embedding_output"] = "2";
        REQUIRE_THROWS_WITH (load (safetensorsBytes (tensors(), metadata)),
                             Contains ("embedding_output 2 is not an output: the graph has 2 outputs (0 to 1)"));
        metadata["embedding_output"] = "-1";
        REQUIRE_THROWS_WITH (load (safetensorsBytes (tensors(), metadata)), Contains ("is not an output index"));
        metadata["embedding_output"] = "01";
        REQUIRE_THROWS_WITH (load (safetensorsBytes (tensors(), metadata)), Contains ("is not an output index"));
        metadata["embedding_output"] = "";
        REQUIRE_THROWS_WITH (load (safetensorsBytes (tensors(), metadata)), Contains ("is not an output index"));
        metadata["embedding_output"] = "99999999999999999999";
        REQUIRE_THROWS_WITH (load (safetensorsBytes (tensors(), metadata)), Contains ("is not an output index"));
    }
    SECTION ("output 0 holds the class scores, not the embedding")
    {
        metadata["embedding_output"] = "0";
        REQUIRE_THROWS_WITH (load (safetensorsBytes (tensors(), metadata)), Contains ("names output 0"));
    }
}

TEST_CASE ("the MIDI notes chosen for classes are read by label, and refused naming what is wrong", "[model-file][notemap]")
{
    auto metadata = modelMetadata (kGraph);
    metadata["labels"] = R"(["kick","snare","hat","unknown"])";
    SECTION ("none without the entry")
    {
        CHECK (load (safetensorsBytes (tensors(), metadata))->info().classNotes.empty());
    }
    SECTION ("per class, -1 where none is chosen; written back as the writer writes it")
    {
        metadata["midi_notes"] = R"({"snare": 40, "kick": 35})";
        const auto model = load (safetensorsBytes (tensors(), metadata));
        CHECK (model->info().classNotes == std::vector<int> { 35, 40, -1, -1 });
        CHECK (engine::classNotesEntry (model->info().labels, model->info().classNotes) == R"({"kick":35,"snare":40})");
        CHECK (engine::classNotesEntry (model->info().labels, { -1, -1 }).empty());
    }
    const std::pair<const char*, const char*> refused[] = {
        { "[36]", "midi_notes is not an object" },
        { "{\"tom\": 45}", "midi_notes names 'tom', which is not a label of the model" },
        { "{\"kick\": 128}", "the note of 'kick' is not a MIDI note" },
        { "{\"kick\": 36.5}", "the note of 'kick' is not a MIDI note" },
        { "{\"kick\": \"C1\"}", "the note of 'kick' is not a MIDI note" },
        { "{\"kick\": -1}", "the note of 'kick' is not a MIDI note" },
        { "{\"kick\":", "midi_notes is not JSON" },
    };
    for (const auto& [entry, message] : refused)
    {
        INFO (entry);
        metadata["midi_notes"] = entry;
        CHECK_THROWS_WITH (load (safetensorsBytes (tensors(), metadata)), Contains (message));
    }
}

TEST_CASE ("a graph output may be a stored tensor (a constant the model returns)", "[model-file]")
{
    const auto model = load (withGraph (replaced (kGraph, "\"outputs\":[4],\"values\"", "\"outputs\":[4,2],\"values\"")));
    REQUIRE (model->info().outputShapes.at (1) == engine::Shape { 4 });
    engine::Session session (model);
    std::fill (session.input (0).begin(), session.input (0).end(), 0.0f);
    session.run();
    const auto constant = session.output (1);
    REQUIRE (std::vector<float> (constant.begin(), constant.end()) == std::vector<float> { 0.5f, -0.5f, 0, 1 });
}

TEST_CASE ("a missing file is reported by name", "[model-file]")
{
    REQUIRE_THROWS_WITH (engine::Model::load ("/nonexistent/model.safetensors"), Contains ("cannot open model file '/nonexistent/model.safetensors'"));
}

TEST_CASE ("corrupted and truncated files are refused cleanly, never crash", "[model-file][robustness]")
{
    const auto good = withGraph (kGraph);
    int refused = 0;
    for (std::size_t i = 0; i < good.size(); ++i)
    {
        // Truncated at every length.
        const std::vector<std::uint8_t> truncated (good.begin(), good.begin() + static_cast<std::ptrdiff_t> (i));
        REQUIRE_THROWS_AS (load (truncated), engine::ModelError);
        // Every byte replaced by a few values that break structure, numbers and text.
        for (std::uint8_t value : { std::uint8_t { 0 }, std::uint8_t { '9' }, std::uint8_t { '"' }, std::uint8_t { 0xFF } })
        {
            auto corrupted = good;
            if (corrupted[i] == value)
                continue;
            corrupted[i] = value;
            try
            {
                const auto model = load (corrupted);
                // Still valid (e.g. a changed weight): it must run.
                engine::Session session (model);
                session.run();
            }
            catch (const engine::ModelError&)
            {
                ++refused;
            }
        }
    }
    CHECK (refused > static_cast<int> (good.size()));
}
