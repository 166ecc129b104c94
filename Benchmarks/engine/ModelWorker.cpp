// The Sonotype contender of the latency benchmark (Benchmarks/python/driver.py): a persistent
// process that loads one model (Model::load + one Session), answers commands on stdin, one a line:
//   run N    runs the model N times, prints "times T1 ... TN" (milliseconds per run)
//   load N   loads the model file N more times, prints "times T1 ... TN" (milliseconds per load)
//   quit     exits
// At start it loads the model, copies the input (raw little-endian float32, the model's input
// size), runs once, writes output 0 as raw float32 and prints "ready". Errors: "error: ..." on
// stderr and exit code 1. The peers (Benchmarks/python/torch_worker.py, Benchmarks/peers/
// ort_worker.js) speak the same protocol.
#include "engine/Model.h"
#include "engine/Session.h"
#include "engine/file/ModelError.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

using Clock = std::chrono::steady_clock;

double millisecondsSince (Clock::time_point start)
{
    return std::chrono::duration<double, std::milli> (Clock::now() - start).count();
}

std::vector<float> readFloats (const std::string& path)
{
    std::ifstream in (path, std::ios::binary | std::ios::ate);
    if (! in)
        throw std::runtime_error ("cannot open " + path);
    const auto numBytes = static_cast<std::size_t> (in.tellg());
    if (numBytes % sizeof (float) != 0)
        throw std::runtime_error (path + " is not a whole number of float32 values");
    std::vector<float> values (numBytes / sizeof (float));
    in.seekg (0);
    in.read (reinterpret_cast<char*> (values.data()), static_cast<std::streamsize> (numBytes));
    if (! in)
        throw std::runtime_error ("cannot read " + path);
    return values;
}

void writeFloats (const std::string& path, const float* values, std::size_t count)
{
    std::ofstream out (path, std::ios::binary);
    out.write (reinterpret_cast<const char*> (values), static_cast<std::streamsize> (count * sizeof (float)));
    if (! out)
        throw std::runtime_error ("cannot write " + path);
}

sonotype::engine::LoadLimits benchmarkLimits()
{
    // The largest encoder of the grid does ~1.5e10 multiply-adds; the default budget allows 1e11.
    sonotype::engine::LoadLimits limits;
    limits.maxMemoryBytes = std::size_t { 8 } << 30;
    return limits;
}

void printTimes (const std::vector<double>& times)
{
    std::ostringstream line;
    line.precision (6);
    line << "times";
    for (const auto t : times)
        line << ' ' << t;
    std::cout << line.str() << std::endl;
}

int runWorker (const std::string& modelPath, const std::string& inputPath, const std::string& outputPath)
{
    using namespace sonotype::engine;
    const auto limits = benchmarkLimits();
    auto model = Model::load (modelPath, limits);
    Session session (model);

    const auto input = readFloats (inputPath);
    auto destination = session.input (0);
    if (input.size() != destination.size())
        throw std::runtime_error (inputPath + " holds " + std::to_string (input.size()) + " floats; the model's input takes "
                                  + std::to_string (destination.size()));
    std::copy (input.begin(), input.end(), destination.begin());
    session.run();
    const auto output = session.output (0);
    writeFloats (outputPath, output.data(), output.size());
    std::cout << "ready" << std::endl;

    std::string line;
    while (std::getline (std::cin, line))
    {
        std::istringstream words (line);
        std::string command;
        long count = 0;
        words >> command >> count;
        if (command == "quit")
            return 0;
        if ((command != "run" && command != "load") || count < 1 || count > 1000000)
        {
            std::cerr << "error: unknown command '" << line << "' (run N, load N or quit)" << std::endl;
            return 1;
        }
        std::vector<double> times (static_cast<std::size_t> (count));
        for (auto& t : times)
        {
            const auto start = Clock::now();
            if (command == "run")
            {
                session.run();
            }
            else
            {
                auto loaded = Model::load (modelPath, limits);
                Session fresh (loaded); // a load is only useful with a session to run it
            }
            t = millisecondsSince (start);
        }
        printTimes (times);
    }
    return 0;
}

} // namespace

int main (int argc, char** argv)
{
    if (argc != 4)
    {
        std::cerr << "usage: sonotype_bench_worker MODEL.safetensors INPUT.f32 OUTPUT.f32" << std::endl;
        return 2;
    }
    try
    {
        return runWorker (argv[1], argv[2], argv[3]);
    }
    catch (const std::exception& error)
    {
        std::cerr << "error: " << error.what() << std::endl;
        return 1;
    }
}
