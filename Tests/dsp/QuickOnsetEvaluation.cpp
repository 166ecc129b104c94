// Not a test but the quick onset detector's driver for Training/sonotype/hits/onsets.py --command
// (hidden: run only by its tag): reads the audio file SONOTYPE_QUICK_ONSETS_WAV as mono at its own
// rate, feeds a QuickOnsetDetector in blocks of 128 samples as the plugin's audio thread would, and
// writes the onset times in seconds, one a line, to SONOTYPE_QUICK_ONSETS_OUT:
//
//   cd Training && python3 -m sonotype.hits.onsets --command "name:quick=SONOTYPE_QUICK_ONSETS_WAV={wav} SONOTYPE_QUICK_ONSETS_OUT=/tmp/quick.txt ../build/sonotype_tests '[.quick-eval]' >/dev/null && cat /tmp/quick.txt"
#include "dsp/QuickOnsetDetector.h"
#include "formats/AudioFileReader.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>

using namespace sonotype;

TEST_CASE ("quick onsets: the onset times of the file SONOTYPE_QUICK_ONSETS_WAV", "[.quick-eval]")
{
    const char* in = std::getenv ("SONOTYPE_QUICK_ONSETS_WAV");
    const char* outPath = std::getenv ("SONOTYPE_QUICK_ONSETS_OUT");
    REQUIRE (in != nullptr);
    REQUIRE (outPath != nullptr);
    formats::AudioFileReader reader (in);
    dsp::QuickOnsetDetector detector (reader.sampleRate());
    std::vector<float> block (128);
    std::vector<int64_t> onsets (detector.maxOnsets (block.size()));
    std::ofstream out (outPath);
    out.precision (9);
    while (const auto count = reader.readMono (block.data(), block.size()))
    {
        const auto found = detector.push (block.data(), count, onsets.data(), onsets.size());
        for (std::size_t i = 0; i < found; ++i)
            out << static_cast<double> (onsets[i]) / reader.sampleRate() << '\n';
    }
    CHECK (out.good());
}
