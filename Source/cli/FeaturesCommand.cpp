// `sonotype features`: the front end's log-mel features of one clip, for checking against torchaudio.
#include "cli/Commands.h"
#include "cli/ModelLoading.h"
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
    constexpr const char* kDescription = R"(Computes the log-mel features [n_mels, frames] of the mono float32 samples in IN.npy, taken as one
clip, exactly as the model's front end does (torchaudio's MelSpectrogram + AmplitudeToDB/log +
normalisation). With --rate, the samples are at HZ and are first resampled to the front end's rate.
Give exactly one of --model and --frontend.)";

    struct Options
    {
        std::string model, frontend, inputPath, outputPath;
        double rate = 0.0; // 0: no --rate
        ModelLimitOptions limits;
    };

    int features (const Options& options);

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

CommandRun addFeaturesCommand (CLI::App& app)
{
    auto options = std::make_shared<Options>();
    auto* command = addCommand (app, "features", "compute a model's log-mel features of samples in a .npy file", kDescription);
    command->add_option ("--model", options->model, "take the front-end settings from a model file")->type_name ("FILE");
    command->add_option ("--frontend", options->frontend, "take them from a JSON file instead")->type_name ("FILE");
    command->add_option ("--input", options->inputPath, "1-D float32 samples")->type_name ("IN.npy")->required();
    command->add_option ("--output", options->outputPath, "where to write the features")->type_name ("OUT.npy")->required();
    addNumberOption (*command, "--rate", options->rate, 1000.0, 768000.0, false, "a sample rate in Hz", "HZ",
                     "sample rate of the input (default: the front end's)");
    addModelLimitOptions (*command, options->limits);
    return [options] { return features (*options); };
}

namespace
{
    int features (const Options& options)
    {
        if (options.model.empty() == options.frontend.empty())
            throw UsageError ("give exactly one of --model and --frontend");
        engine::FrontendSettings settings;
        std::shared_ptr<const engine::Model> model; // owns the stored window and filterbank the settings view
        if (! options.model.empty())
        {
            // The model's settings, window and filterbank, for a clip of any length.
            model = loadModel (options.model, options.limits);
            settings = runtime::frontendOf (*model);
        }
        else
            settings = engine::FrontendSettings::fromJson (readText (options.frontend));
        if (settings.isWaveform())
            throw dsp::FrontendError ("this model computes its features inside the model from the raw waveform (its front end is "
                                      "\"waveform\"): there are no front-end features to compute");
        const auto input = readNpy (options.inputPath);
        if (input.shape.size() != 1)
            throw NpyError ("--input must be a 1-D array of samples");

        std::vector<float> samples = input.data;
        if (options.rate > 0.0)
        {
            dsp::Resampler resampler (options.rate, settings.sampleRate);
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
        writeNpy (options.outputPath, output);
        return 0;
    }
} // namespace

} // namespace sonotype::cli
