// Grisu2 as nlohmann/json 3.11 implements it (detail/conversions/to_chars.hpp), itself adapted from
// Florian Loitsch's reference implementation (MIT licence, Copyright (c) 2009 Florian Loitsch), and
// its layout of the digits. Kept step for step, so that the digits are the same; see JsonNumber.h.
#include "engine/file/JsonNumber.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace sonotype::engine
{
namespace
{
    // A number f x 2^e, with a 64-bit significand ("do-it-yourself floating point").
    struct DiyFp
    {
        std::uint64_t f = 0;
        int e = 0;

        static DiyFp sub (const DiyFp& x, const DiyFp& y) noexcept { return { x.f - y.f, x.e }; } // x.e == y.e, x.f >= y.f

        // The upper 64 bits of the 128-bit product, rounded (ties up).
        static DiyFp mul (const DiyFp& x, const DiyFp& y) noexcept
        {
            const std::uint64_t uLo = x.f & 0xFFFFFFFFu, uHi = x.f >> 32u;
            const std::uint64_t vLo = y.f & 0xFFFFFFFFu, vHi = y.f >> 32u;
            const std::uint64_t p0 = uLo * vLo, p1 = uLo * vHi, p2 = uHi * vLo, p3 = uHi * vHi;
            std::uint64_t q = (p0 >> 32u) + (p1 & 0xFFFFFFFFu) + (p2 & 0xFFFFFFFFu);
            q += std::uint64_t { 1 } << 31u;
            return { p3 + (p2 >> 32u) + (p1 >> 32u) + (q >> 32u), x.e + y.e + 64 };
        }

        static DiyFp normalize (DiyFp x) noexcept // x.f != 0
        {
            while ((x.f >> 63u) == 0)
            {
                x.f <<= 1u;
                x.e--;
            }
            return x;
        }

        static DiyFp normalizeTo (const DiyFp& x, int exponent) noexcept { return { x.f << (x.e - exponent), exponent }; }
    };

    struct Boundaries
    {
        DiyFp w, minus, plus;
    };

    // The double (finite, positive) and the midpoints to its neighbours, normalized.
    Boundaries boundariesOf (double value) noexcept
    {
        constexpr int kPrecision = std::numeric_limits<double>::digits; // 53, the hidden bit included
        constexpr int kBias = std::numeric_limits<double>::max_exponent - 1 + (kPrecision - 1);
        constexpr int kMinExp = 1 - kBias;
        constexpr std::uint64_t kHiddenBit = std::uint64_t { 1 } << (kPrecision - 1);
        const auto bits = std::bit_cast<std::uint64_t> (value);
        const std::uint64_t biasedExponent = bits >> (kPrecision - 1);
        const std::uint64_t fraction = bits & (kHiddenBit - 1);
        const DiyFp v = biasedExponent == 0 ? DiyFp { fraction, kMinExp }
                                            : DiyFp { fraction + kHiddenBit, static_cast<int> (biasedExponent) - kBias };
        // The lower neighbour is closer when the significand is a power of two (and not the smallest normal).
        const bool lowerIsCloser = fraction == 0 && biasedExponent > 1;
        const DiyFp mPlus { 2 * v.f + 1, v.e - 1 };
        const DiyFp mMinus = lowerIsCloser ? DiyFp { 4 * v.f - 1, v.e - 2 } : DiyFp { 2 * v.f - 1, v.e - 1 };
        const DiyFp wPlus = DiyFp::normalize (mPlus);
        return { DiyFp::normalize (v), DiyFp::normalizeTo (mMinus, wPlus.e), wPlus };
    }

    constexpr int kAlpha = -60, kGamma = -32;
    // The cached powers are 8 decimal exponents apart (26.6 binary): one always lands in [kAlpha, kGamma].
    static_assert (kGamma - kAlpha >= 27);

    struct CachedPower // f x 2^e ~ 10^k
    {
        std::uint64_t f;
        int e, k;
    };

    // A power of ten c such that kAlpha <= c.e + e + 64 <= kGamma, for a normalized f x 2^e.
    CachedPower cachedPowerFor (int e) noexcept
    {
        constexpr int kMinDecimalExponent = -300, kDecimalStep = 8;
        static constexpr std::array<CachedPower, 79> kPowers { {
            { 0xAB70FE17C79AC6CA, -1060, -300 },
            { 0xFF77B1FCBEBCDC4F, -1034, -292 },
            { 0xBE5691EF416BD60C, -1007, -284 },
            { 0x8DD01FAD907FFC3C, -980, -276 },
            { 0xD3515C2831559A83, -954, -268 },
            { 0x9D71AC8FADA6C9B5, -927, -260 },
            { 0xEA9C227723EE8BCB, -901, -252 },
            { 0xAECC49914078536D, -874, -244 },
            { 0x823C12795DB6CE57, -847, -236 },
            { 0xC21094364DFB5637, -821, -228 },
            { 0x9096EA6F3848984F, -794, -220 },
            { 0xD77485CB25823AC7, -768, -212 },
            { 0xA086CFCD97BF97F4, -741, -204 },
            { 0xEF340A98172AACE5, -715, -196 },
            { 0xB23867FB2A35B28E, -688, -188 },
            { 0x84C8D4DFD2C63F3B, -661, -180 },
            { 0xC5DD44271AD3CDBA, -635, -172 },
            { 0x936B9FCEBB25C996, -608, -164 },
            { 0xDBAC6C247D62A584, -582, -156 },
            { 0xA3AB66580D5FDAF6, -555, -148 },
            { 0xF3E2F893DEC3F126, -529, -140 },
            { 0xB5B5ADA8AAFF80B8, -502, -132 },
            { 0x87625F056C7C4A8B, -475, -124 },
            { 0xC9BCFF6034C13053, -449, -116 },
            { 0x964E858C91BA2655, -422, -108 },
            { 0xDFF9772470297EBD, -396, -100 },
            { 0xA6DFBD9FB8E5B88F, -369, -92 },
            { 0xF8A95FCF88747D94, -343, -84 },
            { 0xB94470938FA89BCF, -316, -76 },
            { 0x8A08F0F8BF0F156B, -289, -68 },
            { 0xCDB02555653131B6, -263, -60 },
            { 0x993FE2C6D07B7FAC, -236, -52 },
            { 0xE45C10C42A2B3B06, -210, -44 },
            { 0xAA242499697392D3, -183, -36 },
            { 0xFD87B5F28300CA0E, -157, -28 },
            { 0xBCE5086492111AEB, -130, -20 },
            { 0x8CBCCC096F5088CC, -103, -12 },
            { 0xD1B71758E219652C, -77, -4 },
            { 0x9C40000000000000, -50, 4 },
            { 0xE8D4A51000000000, -24, 12 },
            { 0xAD78EBC5AC620000, 3, 20 },
            { 0x813F3978F8940984, 30, 28 },
            { 0xC097CE7BC90715B3, 56, 36 },
            { 0x8F7E32CE7BEA5C70, 83, 44 },
            { 0xD5D238A4ABE98068, 109, 52 },
            { 0x9F4F2726179A2245, 136, 60 },
            { 0xED63A231D4C4FB27, 162, 68 },
            { 0xB0DE65388CC8ADA8, 189, 76 },
            { 0x83C7088E1AAB65DB, 216, 84 },
            { 0xC45D1DF942711D9A, 242, 92 },
            { 0x924D692CA61BE758, 269, 100 },
            { 0xDA01EE641A708DEA, 295, 108 },
            { 0xA26DA3999AEF774A, 322, 116 },
            { 0xF209787BB47D6B85, 348, 124 },
            { 0xB454E4A179DD1877, 375, 132 },
            { 0x865B86925B9BC5C2, 402, 140 },
            { 0xC83553C5C8965D3D, 428, 148 },
            { 0x952AB45CFA97A0B3, 455, 156 },
            { 0xDE469FBD99A05FE3, 481, 164 },
            { 0xA59BC234DB398C25, 508, 172 },
            { 0xF6C69A72A3989F5C, 534, 180 },
            { 0xB7DCBF5354E9BECE, 561, 188 },
            { 0x88FCF317F22241E2, 588, 196 },
            { 0xCC20CE9BD35C78A5, 614, 204 },
            { 0x98165AF37B2153DF, 641, 212 },
            { 0xE2A0B5DC971F303A, 667, 220 },
            { 0xA8D9D1535CE3B396, 694, 228 },
            { 0xFB9B7CD9A4A7443C, 720, 236 },
            { 0xBB764C4CA7A44410, 747, 244 },
            { 0x8BAB8EEFB6409C1A, 774, 252 },
            { 0xD01FEF10A657842C, 800, 260 },
            { 0x9B10A4E5E9913129, 827, 268 },
            { 0xE7109BFBA19C0C9D, 853, 276 },
            { 0xAC2820D9623BF429, 880, 284 },
            { 0x80444B5E7AA7CF85, 907, 292 },
            { 0xBF21E44003ACDD2D, 933, 300 },
            { 0x8E679C2F5E44FF8F, 960, 308 },
            { 0xD433179D9C8CB841, 986, 316 },
            { 0x9E19DB92B4E31BA9, 1013, 324 },
        } };
        // k = ceil ((kAlpha - e - 1) x log10 (2)) for |e| <= 1500, in integers (log10 (2) ~ 78913 / 2^18).
        const int f = kAlpha - e - 1;
        const int k = (f * 78913) / (1 << 18) + static_cast<int> (f > 0);
        const int index = (-kMinDecimalExponent + k + (kDecimalStep - 1)) / kDecimalStep;
        return kPowers[static_cast<std::size_t> (index)];
    }

    // For n > 0: the k with 10^(k-1) <= n < 10^k, and that power; for n == 0: 1, and 1.
    int largestPow10 (std::uint32_t n, std::uint32_t& pow10) noexcept
    {
        pow10 = 1000000000;
        for (int k = 10; k > 1; --k, pow10 /= 10)
            if (n >= pow10)
                return k;
        pow10 = 1;
        return 1;
    }

    // Moves the last digit down while that brings the number closer to w and stays inside the interval.
    void roundTowardW (char* buffer, int length, std::uint64_t dist, std::uint64_t delta, std::uint64_t rest, std::uint64_t tenK) noexcept
    {
        while (rest < dist && delta - rest >= tenK && (rest + tenK < dist || dist - rest > rest + tenK - dist))
        {
            buffer[length - 1]--;
            rest += tenK;
        }
    }

    // The digits of a number V = digits x 10^decimalExponent with M- <= V <= M+ (both normalized,
    // with one exponent in [kAlpha, kGamma]), as few as there can be, V as close to w as they allow.
    void generateDigits (char* buffer, int& length, int& decimalExponent, DiyFp mMinus, DiyFp w, DiyFp mPlus) noexcept
    {
        std::uint64_t delta = DiyFp::sub (mPlus, mMinus).f;
        std::uint64_t dist = DiyFp::sub (mPlus, w).f;
        const DiyFp one { std::uint64_t { 1 } << -mPlus.e, mPlus.e };
        auto p1 = static_cast<std::uint32_t> (mPlus.f >> -one.e); // the integral part, below 2^32
        std::uint64_t p2 = mPlus.f & (one.f - 1);                 // the fractional part
        std::uint32_t pow10 = 0;
        for (int n = largestPow10 (p1, pow10); n > 0;)
        {
            const std::uint32_t digit = p1 / pow10;
            p1 %= pow10;
            buffer[length++] = static_cast<char> ('0' + digit);
            n--;
            const std::uint64_t rest = (std::uint64_t { p1 } << -one.e) + p2;
            if (rest <= delta)
            {
                decimalExponent += n;
                roundTowardW (buffer, length, dist, delta, rest, std::uint64_t { pow10 } << -one.e);
                return;
            }
            pow10 /= 10;
        }
        int m = 0;
        for (;;)
        {
            p2 *= 10;
            const std::uint64_t digit = p2 >> -one.e;
            p2 &= one.f - 1;
            buffer[length++] = static_cast<char> ('0' + digit);
            m++;
            delta *= 10;
            dist *= 10;
            if (p2 <= delta)
                break;
        }
        decimalExponent -= m;
        roundTowardW (buffer, length, dist, delta, p2, one.f);
    }

    // value (finite, positive) = buffer[0, length) x 10^decimalExponent.
    void grisu2 (char* buffer, int& length, int& decimalExponent, double value) noexcept
    {
        const auto b = boundariesOf (value);
        const auto cached = cachedPowerFor (b.plus.e);
        const DiyFp c { cached.f, cached.e }; // ~ 10^-k
        const DiyFp w = DiyFp::mul (b.w, c), wMinus = DiyFp::mul (b.minus, c), wPlus = DiyFp::mul (b.plus, c);
        // The products are within one unit of the last place: the interval is narrowed by one on each side.
        const DiyFp mMinus { wMinus.f + 1, wMinus.e }, mPlus { wPlus.f - 1, wPlus.e };
        decimalExponent = -cached.k;
        generateDigits (buffer, length, decimalExponent, mMinus, w, mPlus);
    }

    // "e+05", "e-123": at least two digits.
    char* appendExponent (char* out, int e) noexcept
    {
        *out++ = e < 0 ? '-' : '+';
        auto k = static_cast<std::uint32_t> (e < 0 ? -e : e);
        if (k >= 100)
        {
            *out++ = static_cast<char> ('0' + k / 100);
            k %= 100;
        }
        *out++ = static_cast<char> ('0' + k / 10);
        *out++ = static_cast<char> ('0' + k % 10);
        return out;
    }

    // The digits buffer[0, length) x 10^decimalExponent laid out as %g would, fixed for
    // 10^minExp <= v < 10^maxExp.
    char* layOut (char* buffer, int length, int decimalExponent, int minExp, int maxExp) noexcept
    {
        const int k = length;
        const int n = length + decimalExponent; // where the point goes, from the first digit
        if (k <= n && n <= maxExp)              // digits[000].0
        {
            std::memset (buffer + k, '0', static_cast<std::size_t> (n - k));
            buffer[n] = '.';
            buffer[n + 1] = '0';
            return buffer + n + 2;
        }
        if (0 < n && n <= maxExp) // dig.its
        {
            std::memmove (buffer + n + 1, buffer + n, static_cast<std::size_t> (k - n));
            buffer[n] = '.';
            return buffer + k + 1;
        }
        if (minExp < n && n <= 0) // 0.[000]digits
        {
            std::memmove (buffer + 2 - n, buffer, static_cast<std::size_t> (k));
            buffer[0] = '0';
            buffer[1] = '.';
            std::memset (buffer + 2, '0', static_cast<std::size_t> (-n));
            return buffer + 2 - n + k;
        }
        if (k == 1) // de+123
            buffer += 1;
        else // d.igitse+123
        {
            std::memmove (buffer + 2, buffer + 1, static_cast<std::size_t> (k - 1));
            buffer[1] = '.';
            buffer += 1 + k;
        }
        *buffer++ = 'e';
        return appendExponent (buffer, n - 1);
    }
} // namespace

char* formatJsonDouble (char* buffer, double value) noexcept
{
    if (std::signbit (value))
    {
        value = -value;
        *buffer++ = '-';
    }
    if (value == 0.0)
    {
        std::memcpy (buffer, "0.0", 3);
        return buffer + 3;
    }
    int length = 0, decimalExponent = 0;
    grisu2 (buffer, length, decimalExponent, value);
    return layOut (buffer, length, decimalExponent, -4, std::numeric_limits<double>::digits10);
}

} // namespace sonotype::engine
