// One teaching (teach::Lesson), the pipeline `sonotype learn` and the plugin share: its steps must
// be the pieces' own (what it learns, checks and writes is what teach::learn, leaveOneFileOut and
// buildTaughtModel give), and a sound's embedding is made once, then kept by its id until the way
// of embedding changes or the sound is let go.
#include "resources/BuiltinModel.h"
#include "runtime/WindowAnalyzer.h"
#include "support/ExampleClips.h"
#include "teach/ExampleSet.h"
#include "teach/Lesson.h"

#include <catch2/catch.hpp>

using namespace sonotype;

namespace
{
std::vector<std::uint8_t> builtinBytes()
{
    const auto file = resources::builtinModelFile();
    return { file.begin(), file.end() };
}

std::vector<float> second (const char* clip)
{
    auto samples = testing::exampleClip (clip, 16000.0);
    samples.resize (16000);
    return samples;
}
} // namespace

TEST_CASE ("teach: a lesson embeds a sound once by its id, and again once the way of embedding changed or the sound was let go", "[teach]")
{
    teach::Lesson lesson (builtinBytes(), resources::builtinModel(), resources::kBuiltinModelName);
    const auto speech = second ("speech"), noise = second ("noise");
    const auto first = lesson.examplesOfSound (1, speech, 16000.0);
    REQUIRE (first.size() == 1);
    CHECK (first[0].source == "example 1");
    const auto alone = teach::exampleOfSamples (speech, 16000.0, "example 1", resources::builtinModel());
    CHECK (first[0].embedding == alone.embedding); // what the pieces give
    // Other samples under the same id: the embedding kept is given (ids name one sound for good).
    CHECK (lesson.examplesOfSound (1, noise, 16000.0)[0].embedding == first[0].embedding);
    const auto other = lesson.examplesOfSound (2, noise, 16000.0);
    CHECK (other[0].embedding != first[0].embedding);
    // Let go: embedded again from what is given now.
    lesson.keepOnly ({ 2 });
    CHECK (lesson.examplesOfSound (1, noise, 16000.0)[0].embedding == other[0].embedding);
    // Another unknownBelow keeps the embeddings; hits embed another way, from the hit embedding.
    auto settings = lesson.settings();
    settings.unknownBelow = 0.2;
    lesson.setSettings (settings);
    CHECK (lesson.examplesOfSound (1, speech, 16000.0)[0].embedding == other[0].embedding);
    CHECK_FALSE (lesson.embedsTokens());
    settings.hits = true;
    lesson.setSettings (settings);
    CHECK (lesson.embedsTokens()); // the built-in model has a token sequence
    CHECK (lesson.embedder() != resources::builtinModel());
    CHECK (*lesson.extendedFile() != builtinBytes());
    const auto hits = lesson.examplesOfSound (1, second ("drums"), 16000.0); // embedded again: its hits
    REQUIRE_FALSE (hits.empty());
    CHECK (hits[0].source.rfind ("example 1@", 0) == 0);
}

TEST_CASE ("teach: a lesson learns, checks and writes what teach::learn, leaveOneFileOut and buildTaughtModel give", "[teach]")
{
    const bool hits = GENERATE (false, true);
    INFO ((hits ? "hits" : "whole sounds"));
    teach::LessonSettings settings;
    settings.hits = hits;
    settings.unknownBelow = 0.4;
    teach::Lesson lesson (builtinBytes(), resources::builtinModel(), "built-in", settings);
    std::vector<teach::TaughtClass> classes;
    std::uint64_t id = 0;
    for (const auto* clip : { "speech", "drums", "piano" })
    {
        const auto samples = testing::exampleClip (clip, 16000.0);
        teach::TaughtClass taught { std::string (clip) + " taught", {} };
        for (int part = 0; part < 2; ++part) // the clip's two seconds, one example each
        {
            const std::vector<float> sound (samples.begin() + 16000 * part, samples.begin() + 16000 * (part + 1));
            const auto& examples = lesson.examplesOfSound (++id, sound, 16000.0);
            taught.examples.insert (taught.examples.end(), examples.begin(), examples.end());
        }
        if (! taught.examples.empty())
            classes.push_back (std::move (taught));
    }
    REQUIRE (classes.size() >= 2);
    const auto learned = lesson.learn (classes);
    const auto labels = runtime::classLabels (*resources::builtinModel());
    const auto head = teach::learn (classes, labels, 0.4);
    CHECK (learned.head.labels == head.labels);
    CHECK (learned.head.prototypes == head.prototypes);
    CHECK (learned.head.hitClipSeconds == (hits ? 0.12 : 0.0));
    const auto confusion = teach::leaveOneFileOut (classes, labels, 0.4);
    CHECK (learned.confusion.counts == confusion.counts);
    CHECK (learned.confusion.predicted == confusion.predicted);

    // The file: the embedder's extended, byte for byte what buildTaughtModel writes from it.
    const auto built = lesson.build (learned.head, "{}");
    CHECK (built.bytes == teach::buildTaughtModel (*lesson.extendedFile(), "built-in", learned.head, "{}").bytes);
    CHECK (built.model->info().labels == learned.head.labels);
    CHECK ((built.model->info().metadata.at ("taught").find ("\"embedding\"") != std::string::npos) == hits); // hits: from the tokens
    CHECK (teach::taughtExamplesOf (*built.model) == "{}");
    CHECK (built.model->info().classNotes.empty()); // no note chosen: no "midi_notes"

    // Notes chosen for classes go into the file ("midi_notes") and come back per class; a name that
    // is not one of its classes is left out; taught again without notes, the base's are gone.
    const auto noted = lesson.build (learned.head, "{}", { { "drums taught", 38 }, { "unknown", 39 }, { "nothing", 40 } });
    std::vector<int> expected (learned.head.labels.size(), -1);
    for (std::size_t c = 0; c < expected.size(); ++c)
        expected[c] = learned.head.labels[c] == "drums taught" ? 38 : learned.head.labels[c] == "unknown" ? 39
                                                                                                          : -1;
    CHECK (noted.model->info().classNotes == expected);
    const auto again = teach::buildTaughtModel (noted.bytes, "taught", learned.head);
    CHECK (again.model->info().metadata.count ("midi_notes") == 0);
    CHECK (again.model->info().classNotes.empty());
    const auto bytes = builtinBytes();
    CHECK (lesson.baseIdentity() == teach::modelIdentity ("built-in", bytes.data(), bytes.size()));
}
