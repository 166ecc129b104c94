// The live per-hit path: a hit's signature from its first milliseconds (dsp::HitSignature), a kit
// learned from one-shots (teach::learnLiveHits), and runtime::LiveHits naming a loop's hits within
// 10 ms of their onsets, the same for any block split; the kit as the taught file stores it.
#include "dsp/QuickOnsetSignals.h"
#include "engine/Model.h"
#include "engine/file/JsonWriter.h"
#include "engine/file/ModelFileKeys.h"
#include "engine/file/ModelFileWriter.h"
#include "resources/BuiltinModel.h"
#include "runtime/LiveHits.h"
#include "teach/LiveHitLearning.h"
#include "teach/TaughtModel.h"

#include <catch2/catch.hpp>

using namespace sonotype;
using namespace sonotype::testing;

namespace
{
constexpr Piece kPieces[] = { Piece::kick, Piece::snare, Piece::hat };

/** Every hit LiveHits reports over `samples` in blocks of `block` (0: random 1-4096), with the input
    position each was reported at. */
std::vector<std::pair<runtime::LiveHit, int64_t>> run (runtime::LiveHits& live, const std::vector<float>& samples, std::size_t block)
{
    std::mt19937 random (5);
    std::vector<std::pair<runtime::LiveHit, int64_t>> hits;
    std::vector<runtime::LiveHit> out;
    for (std::size_t i = 0; i < samples.size();)
    {
        const auto n = std::min (block == 0 ? std::uniform_int_distribution<std::size_t> (1, 4096) (random) : block, samples.size() - i);
        out.resize (live.maxHits (n));
        const auto count = live.push (samples.data() + i, n, out.data(), out.size());
        i += n;
        for (std::size_t k = 0; k < count; ++k)
            hits.emplace_back (out[k], static_cast<int64_t> (i));
    }
    return hits;
}

/** kick, snare and hat, each taught from 5 one-shots at -15 to -3 dBFS. */
std::vector<teach::TaughtClass> kitClasses (double rate)
{
    std::vector<teach::TaughtClass> classes;
    unsigned seed = 100;
    for (const auto piece : kPieces)
    {
        teach::TaughtClass taught { piece == Piece::kick ? "kick" : piece == Piece::snare ? "snare"
                                                                                          : "hat",
                                    {} };
        for (int k = 0; k < 5; ++k)
        {
            runtime::LiveHits finder (nullptr, rate, {});
            const auto hits = run (finder, oneShot (piece, rate, -15.0 + 3.0 * k, ++seed), 512);
            REQUIRE (hits.size() == 1);
            teach::Example example;
            example.source = taught.name + " " + std::to_string (k);
            example.signature.assign (hits[0].first.signature.begin(), hits[0].first.signature.end());
            taught.examples.push_back (example);
        }
        classes.push_back (std::move (taught));
    }
    return classes;
}

} // namespace

namespace
{
/** A piece made only of frequencies in Hz (so that it is the same sound at any rate): a kick, a
    sine falling from 150 to 50 Hz with a 2 ms attack; a snare, 200 Hz and 80 partials from 300 Hz
    to 7 kHz; a hat, 60 partials from 3 to 7 kHz (random phases: noise-like). */
std::vector<float> pieceInHz (Piece piece, double rate)
{
    std::mt19937 random (11);
    std::uniform_real_distribution<double> phase (0.0, 2.0 * M_PI);
    std::vector<std::pair<double, double>> partials; // Hz, phase
    const int count = piece == Piece::snare ? 80 : 60;
    const double from = piece == Piece::snare ? 300.0 : 3000.0;
    for (int k = 0; k < count; ++k)
        partials.emplace_back (from * std::pow (7000.0 / from, k / (count - 1.0)), phase (random));
    std::vector<float> samples (static_cast<std::size_t> (0.4 * rate), 0.0f);
    const auto start = static_cast<std::size_t> (0.05 * rate);
    double kickPhase = 0.0;
    for (std::size_t i = start; i < samples.size(); ++i)
    {
        const double t = static_cast<double> (i - start) / rate;
        double v = 0.0;
        if (piece == Piece::kick)
        {
            kickPhase += 2.0 * M_PI * 150.0 * std::pow (1.0 / 3.0, t / 0.3) / rate;
            v = std::min (1.0, t / 0.002) * std::exp (-t / 0.15) * std::sin (kickPhase);
        }
        else
        {
            for (const auto& [hz, offset] : partials)
                v += std::sin (2.0 * M_PI * hz * t + offset) / std::sqrt (static_cast<double> (count));
            if (piece == Piece::snare)
                v += 0.7 * std::sin (2.0 * M_PI * 200.0 * t);
            v *= std::min (1.0, t / 0.001) * std::exp (-t / (piece == Piece::hat ? 0.02 : 0.06));
        }
        samples[i] = static_cast<float> (0.3 * v);
    }
    return samples;
}
} // namespace

TEST_CASE ("hit signature: a piece looks the same at 16, 44.1 and 48 kHz, and unlike the other pieces", "[hits][live]")
{
    std::vector<std::vector<dsp::HitSignature::Values>> signatures (3); // [piece][rate]
    for (int p = 0; p < 3; ++p)
        for (const double rate : { 16000.0, 44100.0, 48000.0 })
        {
            runtime::LiveHits finder (nullptr, rate, {});
            const auto hits = run (finder, pieceInHz (kPieces[p], rate), 256);
            REQUIRE (hits.size() == 1);
            CHECK (std::abs (hits[0].first.onset - static_cast<int64_t> (0.05 * rate)) <= static_cast<int64_t> (0.001 * rate));
            signatures[static_cast<std::size_t> (p)].push_back (hits[0].first.signature);
        }
    const auto apart = [] (const dsp::HitSignature::Values& a, const dsp::HitSignature::Values& b) {
        double sum = 0.0; // the mean difference of the band shapes, dB
        for (int d = 0; d < dsp::HitSignature::kBands; ++d)
            sum += std::abs (a[static_cast<std::size_t> (d)] - b[static_cast<std::size_t> (d)]);
        return sum / dsp::HitSignature::kBands;
    };
    for (std::size_t p = 0; p < 3; ++p)
        for (std::size_t r = 1; r < 3; ++r)
        {
            INFO ("piece " << p << ", rate " << r << ": " << apart (signatures[p][0], signatures[p][r]) << " dB from 16 kHz's");
            CHECK (apart (signatures[p][0], signatures[p][r]) < 2.0);
            for (std::size_t q = 0; q < 3; ++q)
                if (q != p)
                    CHECK (apart (signatures[p][r], signatures[q][r]) > 3.0 * apart (signatures[p][0], signatures[p][r]));
        }
}

TEST_CASE ("live hits: a kit taught from one-shots names a loop's hits from their first 6 ms, within 10 ms, in any blocks", "[hits][live]")
{
    for (const double rate : { 44100.0, 48000.0 })
    {
        const auto classes = kitClasses (rate);
        const auto kit = teach::learnLiveHits (classes, dsp::HitSignature::kDefaultAfterSeconds);
        REQUIRE (kit.has_value());
        CHECK (kit->numExamples() == 15);
        CHECK (teach::leaveOneOut (*kit, 3).correct == 15);
        const auto classifier = std::make_shared<const runtime::LiveHitClassifier> (*kit, 4, 3); // kick, snare, hat, unknown
        runtime::LiveHits live (classifier, rate, {});
        CHECK (live.latencySamples() <= static_cast<int64_t> (0.01 * rate));
        CHECK (live.latencySamples() == runtime::LiveHits::latencySamples (rate));
        for (const unsigned seed : { 1u, 2u })
        {
            const auto loop = kitLoop (rate, seed);
            std::vector<std::pair<runtime::LiveHit, int64_t>> first;
            for (const std::size_t block : { std::size_t { 128 }, std::size_t { 1 }, std::size_t { 441 }, std::size_t { 0 } })
            {
                live.reset();
                const auto hits = run (live, loop.samples, block);
                if (first.empty())
                {
                    first = hits;
                    int found = 0, named = 0;
                    std::vector<int64_t> errors;
                    for (const auto& [onset, piece] : loop.hits)
                        for (const auto& [hit, reportedAt] : hits)
                            if (std::abs (hit.onset - onset) <= static_cast<int64_t> (0.025 * rate))
                            {
                                ++found;
                                named += hit.label == piece;
                                errors.push_back (std::abs (hit.onset - onset));
                                CHECK (reportedAt - hit.onset <= live.latencySamples() + static_cast<int64_t> (block == 0 ? 4096 : block));
                            }
                    std::sort (errors.begin(), errors.end());
                    INFO (rate << " Hz, seed " << seed << ": " << hits.size() << " hits reported, " << found << " of 60 within 25 ms, " << named
                               << " named right, median error " << (errors.empty() ? -1 : errors[errors.size() / 2]) << " samples");
                    CHECK (hits.size() <= 61);
                    CHECK (found >= 57);
                    REQUIRE_FALSE (errors.empty());
                    CHECK (errors[errors.size() / 2] <= static_cast<int64_t> (0.001 * rate));
                    CHECK (named >= found * 9 / 10);
                    continue;
                }
                REQUIRE (hits.size() == first.size()); // the same hits, classes and levels in any blocks
                for (std::size_t i = 0; i < hits.size(); ++i)
                {
                    CHECK (hits[i].first.onset == first[i].first.onset);
                    CHECK (hits[i].first.label == first[i].first.label);
                    CHECK (hits[i].first.levelDb == first[i].first.levelDb);
                }
            }
        }
    }
}

TEST_CASE ("live hits: an untaught piece is unknown, a hit is reported by onset + latency", "[hits][live]")
{
    const double rate = 48000.0;
    auto classes = kitClasses (rate);
    classes.pop_back(); // no hat
    const auto kit = teach::learnLiveHits (classes, dsp::HitSignature::kDefaultAfterSeconds);
    REQUIRE (kit.has_value());
    const auto classifier = std::make_shared<const runtime::LiveHitClassifier> (*kit, 3, 2);
    runtime::LiveHits live (classifier, rate, {});
    int unknown = 0;
    for (unsigned seed = 1; seed <= 10; ++seed)
    {
        live.reset();
        const auto hits = run (live, oneShot (Piece::hat, rate, -9.0, seed), 1);
        REQUIRE (hits.size() == 1);
        CHECK (hits[0].second - hits[0].first.onset <= live.latencySamples()); // one sample at a time: exactly when due
        unknown += hits[0].first.label == -1;
    }
    CHECK (unknown >= 7); // (the gate leaves a little room: a taught snare's noise is not far from a hat's)
}

TEST_CASE ("live hit kit: stored in the taught file and read back, a broken one refused with a reason", "[hits][live][teach]")
{
    auto classes = kitClasses (44100.0);
    const auto base = resources::builtinModelFile();
    const auto model = engine::Model::fromMemory (base.data(), base.size(), "built-in");
    // The head needs embeddings of the model's: every example gets one of a real sound (only the
    // live kit is under test here).
    const auto embedded = teach::exampleOfSamples (oneShot (Piece::kick, 16000.0, -9.0, 1), 16000.0, "kick", model);
    for (auto& c : classes)
        for (auto& example : c.examples)
        {
            example.embedding = embedded.embedding;
            example.probabilities = embedded.probabilities;
            example.numWindows = 1;
        }
    auto head = teach::learn (classes, model->info().labels, -1.0);
    head.live = teach::learnLiveHits (classes, dsp::HitSignature::kDefaultAfterSeconds);
    REQUIRE (head.live.has_value());
    const auto taught = teach::buildTaughtModel (base, "built-in", head);
    const auto kit = runtime::liveHitKitOf (*taught.model);
    REQUIRE (kit.has_value());
    CHECK (kit->signatures == head.live->signatures);
    CHECK (kit->labels == head.live->labels);
    CHECK (kit->scales == head.live->scales);
    CHECK (kit->gate == head.live->gate);
    CHECK (runtime::liveHitClassifierFor (*taught.model) != nullptr);
    CHECK (runtime::liveHitKitOf (*model) == std::nullopt); // the built-in model has none

    // A file from elsewhere whose record says nonsense: refused, saying what.
    const auto tampered = [&] (const std::string& from, const std::string& to) {
        engine::ModelFileWriter writer (taught.bytes, "taught");
        auto record = *writer.metadata (engine::keys::taught);
        const auto at = record.find (from);
        REQUIRE (at != std::string::npos);
        record.replace (at, from.size(), to);
        writer.setMetadata (engine::keys::taught, record);
        const auto bytes = writer.bytes();
        return engine::Model::fromMemory (bytes.data(), bytes.size(), "tampered");
    };
    char gate[64];
    std::snprintf (gate, sizeof gate, "\"gate\":%s", engine::writeJson (engine::JsonValue::number (head.live->gate)).c_str());
    CHECK_THROWS_WITH (runtime::liveHitKitOf (*tampered (gate, "\"gate\":-1")), Catch::Contains ("gate"));
    CHECK_THROWS_WITH (runtime::liveHitKitOf (*tampered ("taught.live_scales", "taught.live_labels")), Catch::Contains ("holds"));
    CHECK_THROWS_WITH (runtime::liveHitKitOf (*tampered ("taught.live_signatures", "nothing")), Catch::Contains ("does not have"));

    runtime::LiveHitKit broken = *head.live;
    broken.labels[0] = 7;
    CHECK_THROWS_WITH (broken.check (4), Catch::Contains ("label 7"));
    broken = *head.live;
    broken.signatures[3] = NAN;
    CHECK_THROWS_WITH (broken.check (4), Catch::Contains ("finite"));
    broken = *head.live;
    broken.signatures.pop_back();
    CHECK_THROWS_WITH (broken.check (4), Catch::Contains ("do not match"));
}
