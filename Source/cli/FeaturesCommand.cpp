// `sonotype features`: the front end's log-mel features of one clip, for checking against torchaudio.
#include "cli/Arguments.h"
#include "cli/ModelLoading.h"
#include "cli/Commands.h"
#include "cli/Npy.h"
#include "dsp/LogMelSpectrogram.h"
#include "dsp/Resampler.h"
#include "engine/Model.h"
#include "runtime/WindowAnalyzer.h"

#include <fstream>
#include <iostream>
#include <sstream>

namespace sonotype::cli
{
namespace
{
    constexpr const char* kHelp = R"(usage: sonotype features (--model MODEL.safetensors | --frontend SETTINGS.json) --input IN.npy --output OUT.npy [--rate HZ]

Computes the log-mel features [n_mels, frames] of the mono float32 samples in IN.npy, taken as one
clip, exactly as the model's front end does (torchaudio's MelSpectrogram + AmplitudeToDB/log +
normalisation). With --rate, the samples are at HZ and are first resampled to the front end's rate.

options:
  --model FILE       take the front-end settings from a model file
  --frontend FILE    take them from a JSON file instead
  --input IN.npy     1-D float32 samples
  --output OUT.npy   where to write the features
  --rate HZ          sample rate of the input (default: the front end's)
  --help             show this help
)";

    std::string readText (const std::string& path)
    {
        std::ifstream stream (path);
        if (! stream)
            throw UsageError ("cannot open '" + path + "'");
        std::stringstream text;
        text << stream.rdbuf();
        return text.str();
    }
} // namespace

int featuresCommand (const std::vector<std::string>& args)
{
    const Arguments arguments (args, withModelLimitOptions ({ "--model", "--frontend", "--input", "--output", "--rate" }), { "--help" });
    if (arguments.flag ("--help"))
    {
        std::cout << kHelp << kModelLimitHelp;
        return 0;
    }
    if (arguments.has ("--model") == arguments.has ("--frontend"))
        throw UsageError ("give exactly one of --model and --frontend");
    if (! arguments.positionals().empty())
        throw UsageError ("unexpected argument '" + arguments.positionals()[0] + "'");
    engine::FrontendSettings settings;
    std::shared_ptr<const engine::Model> model; // owns the stored window and filterbank the settings view
    if (arguments.has ("--model"))
    {
        // The model's settings, window and filterbank, for a clip of any length.
        model = loadModel (arguments.value ("--model"), arguments);
        settings = runtime::frontendOf (*model);
    }
    else
        settings = engine::FrontendSettings::fromJson (readText (arguments.value ("--frontend")));
    if (settings.isWaveform())
        throw dsp::FrontendError ("this model computes its features inside the model from the raw waveform (its front end is "
                                  "\"waveform\"): there are no front-end features to compute");
    const auto input = readNpy (arguments.value ("--input"));
    if (input.shape.size() != 1)
        throw NpyError ("--input must be a 1-D array of samples");

    std::vector<float> samples = input.data;
    if (arguments.has ("--rate"))
    {
        double rate = 0.0;
        try
        {
            rate = std::stod (arguments.value ("--rate"));
        }
        catch (const std::exception&)
        {
            throw UsageError ("--rate must be a number");
        }
        dsp::Resampler resampler (rate, settings.sampleRate);
        samples.clear();
        resampler.process (input.data.data(), input.data.size(), samples);
        resampler.flush (samples);
    }
    if (samples.size() > (std::size_t { 1 } << 30))
        throw NpyError ("--input is too long");
    const int numSamples = static_cast<int> (samples.size());
    const int numFrames = settings.numFrames (numSamples);
    if (numFrames < 1 || (settings.center && settings.padMode == engine::FrontendSettings::PadMode::reflect && numSamples <= settings.nFft / 2))
        throw NpyError ("--input holds " + std::to_string (numSamples) + " samples: too few for one frame");
    const auto numFeatures = static_cast<std::size_t> (settings.nMels) * static_cast<std::size_t> (numFrames);
    if (numFeatures > (std::size_t { 1 } << 30))
        throw NpyError ("--input gives " + std::to_string (numFrames) + " frames of " + std::to_string (settings.nMels)
                        + " mel bands: more than 2^30 features");
    NpyArray output;
    output.shape = { settings.nMels, numFrames };
    output.data.resize (numFeatures);
    dsp::LogMelSpectrogram (settings).compute (samples.data(), numSamples, output.data.data());
    writeNpy (arguments.value ("--output"), output);
    return 0;
}

} // namespace sonotype::cli
