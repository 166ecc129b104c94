// Paths of the models exported by PyTorch during the test run (CTest fixture export_fixture_models).
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace sonotype::testing
{

inline std::string fixturePath (const std::string& file)
{
    const char* dir = std::getenv ("SONOTYPE_FIXTURES");
    if (dir == nullptr)
        throw std::runtime_error ("SONOTYPE_FIXTURES is not set: run the tests through ctest, which exports the fixture models first");
    return std::string (dir) + "/" + file;
}

} // namespace sonotype::testing
