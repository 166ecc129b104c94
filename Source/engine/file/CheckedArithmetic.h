// Integer arithmetic on sizes, strides and offsets read from model files: every sum and product is
// checked, and an overflow is a ModelError naming what was being computed, never a wrapped value.
#pragma once

#include "engine/file/ModelError.h"

#include <cstdint>
#include <string>

namespace sonotype::engine
{

inline int64_t checkedAdd (int64_t a, int64_t b, const char* what)
{
    int64_t result = 0;
    if (__builtin_add_overflow (a, b, &result))
        throw ModelError (std::string (what) + " overflows 64-bit arithmetic");
    return result;
}

inline int64_t checkedSub (int64_t a, int64_t b, const char* what)
{
    int64_t result = 0;
    if (__builtin_sub_overflow (a, b, &result))
        throw ModelError (std::string (what) + " overflows 64-bit arithmetic");
    return result;
}

inline int64_t checkedMul (int64_t a, int64_t b, const char* what)
{
    int64_t result = 0;
    if (__builtin_mul_overflow (a, b, &result))
        throw ModelError (std::string (what) + " overflows 64-bit arithmetic");
    return result;
}

} // namespace sonotype::engine
