// The libtorch C++ contender of the latency benchmark (Debian's libtorch-dev): runs the TorchScript
// file prepare.py saved (a trace under torch.no_grad()), frozen and optimised for inference here,
// from C++, one thread, under torch::NoGradGuard. Speaks the protocol of Benchmarks/engine/ModelWorker.cpp:
//   sonotype_bench_libtorch MODEL.pt INPUT.f32 OUTPUT.f32 D0,D1,...   ("ready"; "run N" -> "times ..."; "quit")
#include <torch/script.h>

#include <ATen/Parallel.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

std::vector<int64_t> parseShape (const std::string& text)
{
    std::vector<int64_t> shape;
    std::istringstream in (text);
    std::string item;
    while (std::getline (in, item, ','))
        shape.push_back (std::stoll (item));
    return shape;
}

torch::Tensor readInput (const std::string& path, const std::vector<int64_t>& shape)
{
    auto tensor = torch::empty (shape, torch::kFloat32);
    std::ifstream in (path, std::ios::binary | std::ios::ate);
    if (! in)
        throw std::runtime_error ("cannot open " + path);
    const auto numBytes = static_cast<std::size_t> (in.tellg());
    if (numBytes != static_cast<std::size_t> (tensor.numel()) * sizeof (float))
        throw std::runtime_error (path + " does not hold the input's " + std::to_string (tensor.numel()) + " floats");
    in.seekg (0);
    in.read (reinterpret_cast<char*> (tensor.data_ptr<float>()), static_cast<std::streamsize> (numBytes));
    return tensor;
}

int runWorker (const std::string& modelPath, const std::string& inputPath, const std::string& outputPath, const std::string& shapeText)
{
    at::set_num_threads (1);
    at::set_num_interop_threads (1);
    torch::NoGradGuard noGrad;
    // The file holds the traced module; freezing and optimising here (as torch.jit.freeze and
    // torch.jit.optimize_for_inference do in Python) because a file saved after
    // optimize_for_inference does not load for models with convolutions (MKL-DNN constants).
    auto traced = torch::jit::load (modelPath);
    traced.eval();
    auto frozen = torch::jit::freeze (traced);
    auto module = torch::jit::optimize_for_inference (frozen);
    std::vector<torch::jit::IValue> inputs { readInput (inputPath, parseShape (shapeText)) };
    torch::Tensor output;
    for (int i = 0; i < 3; ++i) // the profiling executor specialises over the first runs
        output = module.forward (inputs).toTensor().contiguous();
    {
        std::ofstream out (outputPath, std::ios::binary);
        out.write (reinterpret_cast<const char*> (output.data_ptr<float>()), static_cast<std::streamsize> (output.numel() * sizeof (float)));
    }
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
        if (command != "run" || count < 1)
        {
            std::cerr << "error: unknown command '" << line << "'" << std::endl;
            return 1;
        }
        std::ostringstream times;
        times.precision (6);
        times << "times";
        for (long i = 0; i < count; ++i)
        {
            const auto start = std::chrono::steady_clock::now();
            module.forward (inputs);
            times << ' ' << std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now() - start).count();
        }
        std::cout << times.str() << std::endl;
    }
    return 0;
}

} // namespace

int main (int argc, char** argv)
{
    if (argc != 5)
    {
        std::cerr << "usage: sonotype_bench_libtorch MODEL.pt INPUT.f32 OUTPUT.f32 D0,D1,..." << std::endl;
        return 2;
    }
    try
    {
        return runWorker (argv[1], argv[2], argv[3], argv[4]);
    }
    catch (const std::exception& error)
    {
        std::cerr << "error: " << error.what() << std::endl;
        return 1;
    }
}
