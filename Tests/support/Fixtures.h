// Paths of the models exported by PyTorch during the test run (CTest fixture export_fixture_models;
// run the tests through ctest, or run that fixture first).
#pragma once

#include <cstdlib>
#include <string>

namespace sonotype::testing
{

inline std::string fixturePath (const std::string& file)
{
    const char* dir = std::getenv ("SONOTYPE_FIXTURES");
    return std::string (dir != nullptr ? dir : SONOTYPE_DEFAULT_FIXTURES) + "/" + file;
}

} // namespace sonotype::testing
