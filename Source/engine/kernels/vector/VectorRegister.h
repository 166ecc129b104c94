// One SIMD register of floats for the instruction set this translation unit is compiled for
// (AVX-512, AVX2 + FMA, SSE2 on x86-64; NEON on arm64). Included only by the kernel files
// (Kernels*.cpp).
//
// Everything here and in the other headers of this folder sits in an anonymous namespace and uses
// only intrinsics and __builtin functions: each kernel file gets its own private copy, compiled
// with its own flags, so the linker can never merge an AVX-512 copy of a function into the
// baseline path (as it may for inline functions and templates with external linkage).
#pragma once

#if defined(__aarch64__)
#include <arm_neon.h>
#else
#include <immintrin.h>
#endif

namespace sonotype::engine::kernels
{
namespace
{

#if defined(__AVX512F__)
    struct Vec
    {
        using Reg = __m512;
        static constexpr int width = 16;
        static constexpr const char* isa = "avx512";
        static Reg zero() noexcept { return _mm512_setzero_ps(); }
        static Reg set1 (float v) noexcept { return _mm512_set1_ps (v); }
        static Reg load (const float* p) noexcept { return _mm512_loadu_ps (p); }
        static void store (float* p, Reg v) noexcept { _mm512_storeu_ps (p, v); }
        static Reg add (Reg a, Reg b) noexcept { return _mm512_add_ps (a, b); }
        static Reg sub (Reg a, Reg b) noexcept { return _mm512_sub_ps (a, b); }
        static Reg mul (Reg a, Reg b) noexcept { return _mm512_mul_ps (a, b); }
        static Reg div (Reg a, Reg b) noexcept { return _mm512_div_ps (a, b); }
        static Reg fma (Reg a, Reg b, Reg c) noexcept { return _mm512_fmadd_ps (a, b, c); } // a * b + c
        // max/min return the second operand when either is NaN (as SSE's maxps).
        static Reg max (Reg a, Reg b) noexcept { return _mm512_max_ps (a, b); }
        static Reg min (Reg a, Reg b) noexcept { return _mm512_min_ps (a, b); }
        static Reg abs (Reg a) noexcept { return _mm512_abs_ps (a); }
        static Reg copySign (Reg magnitude, Reg sign) noexcept
        {
            const __m512i signBit = _mm512_set1_epi32 (static_cast<int> (0x80000000u));
            return _mm512_castsi512_ps (_mm512_ternarylogic_epi32 (signBit, _mm512_castps_si512 (sign), _mm512_castps_si512 (magnitude), 0xca)); // signBit ? sign : magnitude
        }
        static Reg roundToNearest (Reg a) noexcept { return _mm512_roundscale_ps (a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
        /** 2^n for integral n in [-126, 127]. */
        static Reg pow2 (Reg n) noexcept
        {
            return _mm512_castsi512_ps (_mm512_slli_epi32 (_mm512_add_epi32 (_mm512_cvtps_epi32 (n), _mm512_set1_epi32 (127)), 23));
        }
        /** For a positive normal x = m * 2^e with m in [1, 2): m, and e as a float. */
        static Reg mantissa (Reg x) noexcept
        {
            return _mm512_castsi512_ps (_mm512_or_si512 (_mm512_and_si512 (_mm512_castps_si512 (x), _mm512_set1_epi32 (0x007fffff)), _mm512_set1_epi32 (0x3f800000)));
        }
        static Reg exponent (Reg x) noexcept
        {
            return _mm512_cvtepi32_ps (_mm512_sub_epi32 (_mm512_srli_epi32 (_mm512_castps_si512 (x), 23), _mm512_set1_epi32 (127)));
        }
        /** x < limit ? ifLess : otherwise (false for NaN). */
        static Reg selectLess (Reg x, Reg limit, Reg ifLess, Reg otherwise) noexcept
        {
            return _mm512_mask_blend_ps (_mm512_cmp_ps_mask (x, limit, _CMP_LT_OQ), otherwise, ifLess);
        }
        /** The first `count` (0 < count < width) floats at p, zeros above; reads nothing beyond. */
        static Reg loadFirst (const float* p, int count) noexcept { return _mm512_maskz_loadu_ps (static_cast<__mmask16> ((1u << count) - 1u), p); }
        static void storeFirst (float* p, Reg v, int count) noexcept { _mm512_mask_storeu_ps (p, static_cast<__mmask16> ((1u << count) - 1u), v); }
        /** max(a, b), NaN (from either) winning. */
        static Reg maxNaN (Reg a, Reg b) noexcept { return _mm512_mask_blend_ps (_mm512_cmp_ps_mask (a, a, _CMP_UNORD_Q), _mm512_max_ps (a, b), a); }
        /** max(0, v) as torch.relu: maxps returns its second operand for a NaN or two zeros, so NaN and -0 pass. */
        static Reg relu (Reg v) noexcept { return _mm512_max_ps (_mm512_setzero_ps(), v); }
        /** The even-indexed floats of a then b. */
        static Reg evenLanes (Reg a, Reg b) noexcept
        {
            return _mm512_permutex2var_ps (a, _mm512_setr_epi32 (0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), b);
        }
        static Reg oddLanes (Reg a, Reg b) noexcept
        {
            return _mm512_permutex2var_ps (a, _mm512_setr_epi32 (1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), b);
        }
        /** a0 b0 a1 b1 ... over the first half of a and b (interleaveHigh: the second half). */
        static Reg interleaveLow (Reg a, Reg b) noexcept
        {
            return _mm512_permutex2var_ps (a, _mm512_setr_epi32 (0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23), b);
        }
        static Reg interleaveHigh (Reg a, Reg b) noexcept
        {
            return _mm512_permutex2var_ps (a, _mm512_setr_epi32 (8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), b);
        }
        static float sum (Reg a) noexcept { return _mm512_reduce_add_ps (a); }
        static float maximum (Reg a) noexcept { return _mm512_reduce_max_ps (a); }
    };
#elif defined(__AVX2__)
    struct Vec
    {
        using Reg = __m256;
        static constexpr int width = 8;
        static constexpr const char* isa = "avx2";
        static Reg zero() noexcept { return _mm256_setzero_ps(); }
        static Reg set1 (float v) noexcept { return _mm256_set1_ps (v); }
        static Reg load (const float* p) noexcept { return _mm256_loadu_ps (p); }
        static void store (float* p, Reg v) noexcept { _mm256_storeu_ps (p, v); }
        static Reg add (Reg a, Reg b) noexcept { return _mm256_add_ps (a, b); }
        static Reg sub (Reg a, Reg b) noexcept { return _mm256_sub_ps (a, b); }
        static Reg mul (Reg a, Reg b) noexcept { return _mm256_mul_ps (a, b); }
        static Reg div (Reg a, Reg b) noexcept { return _mm256_div_ps (a, b); }
        static Reg fma (Reg a, Reg b, Reg c) noexcept { return _mm256_fmadd_ps (a, b, c); }
        static Reg max (Reg a, Reg b) noexcept { return _mm256_max_ps (a, b); }
        static Reg min (Reg a, Reg b) noexcept { return _mm256_min_ps (a, b); }
        static Reg abs (Reg a) noexcept { return _mm256_andnot_ps (_mm256_set1_ps (-0.0f), a); }
        static Reg copySign (Reg magnitude, Reg sign) noexcept
        {
            const Reg signBit = _mm256_set1_ps (-0.0f);
            return _mm256_or_ps (_mm256_andnot_ps (signBit, magnitude), _mm256_and_ps (signBit, sign));
        }
        static Reg roundToNearest (Reg a) noexcept { return _mm256_round_ps (a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
        static Reg pow2 (Reg n) noexcept
        {
            return _mm256_castsi256_ps (_mm256_slli_epi32 (_mm256_add_epi32 (_mm256_cvtps_epi32 (n), _mm256_set1_epi32 (127)), 23));
        }
        static Reg mantissa (Reg x) noexcept
        {
            return _mm256_castsi256_ps (_mm256_or_si256 (_mm256_and_si256 (_mm256_castps_si256 (x), _mm256_set1_epi32 (0x007fffff)), _mm256_set1_epi32 (0x3f800000)));
        }
        static Reg exponent (Reg x) noexcept
        {
            return _mm256_cvtepi32_ps (_mm256_sub_epi32 (_mm256_srli_epi32 (_mm256_castps_si256 (x), 23), _mm256_set1_epi32 (127)));
        }
        static Reg selectLess (Reg x, Reg limit, Reg ifLess, Reg otherwise) noexcept
        {
            return _mm256_blendv_ps (otherwise, ifLess, _mm256_cmp_ps (x, limit, _CMP_LT_OQ));
        }
        static __m256i firstLanes (int count) noexcept
        {
            return _mm256_cmpgt_epi32 (_mm256_set1_epi32 (count), _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7));
        }
        static Reg loadFirst (const float* p, int count) noexcept { return _mm256_maskload_ps (p, firstLanes (count)); }
        static Reg maxNaN (Reg a, Reg b) noexcept { return _mm256_blendv_ps (_mm256_max_ps (a, b), a, _mm256_cmp_ps (a, a, _CMP_UNORD_Q)); }
        /** max(0, v) as torch.relu: maxps returns its second operand for a NaN or two zeros, so NaN and -0 pass. */
        static Reg relu (Reg v) noexcept { return _mm256_max_ps (_mm256_setzero_ps(), v); }
        static Reg evenLanes (Reg a, Reg b) noexcept
        {
            const __m256 mixed = _mm256_shuffle_ps (a, b, _MM_SHUFFLE (2, 0, 2, 0)); // a0 a2 b0 b2 | a4 a6 b4 b6
            return _mm256_castpd_ps (_mm256_permute4x64_pd (_mm256_castps_pd (mixed), _MM_SHUFFLE (3, 1, 2, 0)));
        }
        static Reg oddLanes (Reg a, Reg b) noexcept
        {
            const __m256 mixed = _mm256_shuffle_ps (a, b, _MM_SHUFFLE (3, 1, 3, 1)); // a1 a3 b1 b3 | a5 a7 b5 b7
            return _mm256_castpd_ps (_mm256_permute4x64_pd (_mm256_castps_pd (mixed), _MM_SHUFFLE (3, 1, 2, 0)));
        }
        static Reg interleaveLow (Reg a, Reg b) noexcept
        {
            return _mm256_permute2f128_ps (_mm256_unpacklo_ps (a, b), _mm256_unpackhi_ps (a, b), 0x20);
        }
        static Reg interleaveHigh (Reg a, Reg b) noexcept
        {
            return _mm256_permute2f128_ps (_mm256_unpacklo_ps (a, b), _mm256_unpackhi_ps (a, b), 0x31);
        }
        static void storeFirst (float* p, Reg v, int count) noexcept { _mm256_maskstore_ps (p, firstLanes (count), v); }
        static float sum (Reg a) noexcept
        {
            __m128 s = _mm_add_ps (_mm256_castps256_ps128 (a), _mm256_extractf128_ps (a, 1));
            s = _mm_add_ps (s, _mm_movehl_ps (s, s));
            s = _mm_add_ss (s, _mm_shuffle_ps (s, s, 1));
            return _mm_cvtss_f32 (s);
        }
        static float maximum (Reg a) noexcept
        {
            __m128 s = _mm_max_ps (_mm256_castps256_ps128 (a), _mm256_extractf128_ps (a, 1));
            s = _mm_max_ps (s, _mm_movehl_ps (s, s));
            s = _mm_max_ss (s, _mm_shuffle_ps (s, s, 1));
            return _mm_cvtss_f32 (s);
        }
    };
#elif defined(__aarch64__)
    // arm64 (Apple silicon, Graviton...): NEON is part of the baseline, with fused multiply-add.
    struct Vec
    {
        using Reg = float32x4_t;
        static constexpr int width = 4;
        static constexpr const char* isa = "neon";
        static Reg zero() noexcept { return vdupq_n_f32 (0.0f); }
        static Reg set1 (float v) noexcept { return vdupq_n_f32 (v); }
        static Reg load (const float* p) noexcept { return vld1q_f32 (p); }
        static void store (float* p, Reg v) noexcept { vst1q_f32 (p, v); }
        static Reg add (Reg a, Reg b) noexcept { return vaddq_f32 (a, b); }
        static Reg sub (Reg a, Reg b) noexcept { return vsubq_f32 (a, b); }
        static Reg mul (Reg a, Reg b) noexcept { return vmulq_f32 (a, b); }
        static Reg div (Reg a, Reg b) noexcept { return vdivq_f32 (a, b); }
        static Reg fma (Reg a, Reg b, Reg c) noexcept { return vfmaq_f32 (c, a, b); }
        // As SSE: the second operand when either is NaN.
        static Reg max (Reg a, Reg b) noexcept { return vbslq_f32 (vcgtq_f32 (a, b), a, b); }
        static Reg min (Reg a, Reg b) noexcept { return vbslq_f32 (vcltq_f32 (a, b), a, b); }
        static Reg abs (Reg a) noexcept { return vabsq_f32 (a); }
        static Reg copySign (Reg magnitude, Reg sign) noexcept { return vbslq_f32 (vdupq_n_u32 (0x80000000u), sign, magnitude); }
        static Reg roundToNearest (Reg a) noexcept { return vrndnq_f32 (a); }
        static Reg pow2 (Reg n) noexcept { return vreinterpretq_f32_s32 (vshlq_n_s32 (vaddq_s32 (vcvtq_s32_f32 (n), vdupq_n_s32 (127)), 23)); }
        static Reg mantissa (Reg x) noexcept
        {
            return vreinterpretq_f32_u32 (vorrq_u32 (vandq_u32 (vreinterpretq_u32_f32 (x), vdupq_n_u32 (0x007fffffu)), vdupq_n_u32 (0x3f800000u)));
        }
        static Reg exponent (Reg x) noexcept
        {
            return vcvtq_f32_s32 (vsubq_s32 (vreinterpretq_s32_u32 (vshrq_n_u32 (vreinterpretq_u32_f32 (x), 23)), vdupq_n_s32 (127)));
        }
        static Reg selectLess (Reg x, Reg limit, Reg ifLess, Reg otherwise) noexcept { return vbslq_f32 (vcltq_f32 (x, limit), ifLess, otherwise); }
        static Reg loadFirst (const float* p, int count) noexcept
        {
            float lanes[4] = {};
            for (int i = 0; i < count; ++i)
                lanes[i] = p[i];
            return vld1q_f32 (lanes);
        }
        static void storeFirst (float* p, Reg v, int count) noexcept
        {
            float lanes[4];
            vst1q_f32 (lanes, v);
            for (int i = 0; i < count; ++i)
                p[i] = lanes[i];
        }
        static Reg maxNaN (Reg a, Reg b) noexcept { return vbslq_f32 (vceqq_f32 (a, a), max (a, b), a); }
        /** Zero where v < 0, as torch.relu: NaN and -0 pass. */
        static Reg relu (Reg v) noexcept { return vbslq_f32 (vcltq_f32 (v, zero()), zero(), v); }
        static Reg evenLanes (Reg a, Reg b) noexcept { return vuzp1q_f32 (a, b); }
        static Reg oddLanes (Reg a, Reg b) noexcept { return vuzp2q_f32 (a, b); }
        static Reg interleaveLow (Reg a, Reg b) noexcept { return vzip1q_f32 (a, b); }
        static Reg interleaveHigh (Reg a, Reg b) noexcept { return vzip2q_f32 (a, b); }
        static float sum (Reg a) noexcept { return vaddvq_f32 (a); }
        static float maximum (Reg a) noexcept { return vmaxvq_f32 (a); }
    };
#else
    // x86-64 baseline: SSE2, no FMA (a * b + c rounds twice).
    struct Vec
    {
        using Reg = __m128;
        static constexpr int width = 4;
        static constexpr const char* isa = "baseline";
        static Reg zero() noexcept { return _mm_setzero_ps(); }
        static Reg set1 (float v) noexcept { return _mm_set1_ps (v); }
        static Reg load (const float* p) noexcept { return _mm_loadu_ps (p); }
        static void store (float* p, Reg v) noexcept { _mm_storeu_ps (p, v); }
        static Reg add (Reg a, Reg b) noexcept { return _mm_add_ps (a, b); }
        static Reg sub (Reg a, Reg b) noexcept { return _mm_sub_ps (a, b); }
        static Reg mul (Reg a, Reg b) noexcept { return _mm_mul_ps (a, b); }
        static Reg div (Reg a, Reg b) noexcept { return _mm_div_ps (a, b); }
        static Reg fma (Reg a, Reg b, Reg c) noexcept { return _mm_add_ps (_mm_mul_ps (a, b), c); }
        static Reg max (Reg a, Reg b) noexcept { return _mm_max_ps (a, b); }
        static Reg min (Reg a, Reg b) noexcept { return _mm_min_ps (a, b); }
        static Reg abs (Reg a) noexcept { return _mm_andnot_ps (_mm_set1_ps (-0.0f), a); }
        static Reg copySign (Reg magnitude, Reg sign) noexcept
        {
            const Reg signBit = _mm_set1_ps (-0.0f);
            return _mm_or_ps (_mm_andnot_ps (signBit, magnitude), _mm_and_ps (signBit, sign));
        }
        // |a| < 2^31 here (callers clamp); cvtps rounds to nearest even under the default MXCSR.
        static Reg roundToNearest (Reg a) noexcept { return _mm_cvtepi32_ps (_mm_cvtps_epi32 (a)); }
        static Reg pow2 (Reg n) noexcept
        {
            return _mm_castsi128_ps (_mm_slli_epi32 (_mm_add_epi32 (_mm_cvtps_epi32 (n), _mm_set1_epi32 (127)), 23));
        }
        static Reg mantissa (Reg x) noexcept
        {
            return _mm_castsi128_ps (_mm_or_si128 (_mm_and_si128 (_mm_castps_si128 (x), _mm_set1_epi32 (0x007fffff)), _mm_set1_epi32 (0x3f800000)));
        }
        static Reg exponent (Reg x) noexcept
        {
            return _mm_cvtepi32_ps (_mm_sub_epi32 (_mm_srli_epi32 (_mm_castps_si128 (x), 23), _mm_set1_epi32 (127)));
        }
        static Reg selectLess (Reg x, Reg limit, Reg ifLess, Reg otherwise) noexcept
        {
            const Reg mask = _mm_cmplt_ps (x, limit);
            return _mm_or_ps (_mm_and_ps (mask, ifLess), _mm_andnot_ps (mask, otherwise));
        }
        static Reg loadFirst (const float* p, int count) noexcept
        {
            alignas (16) float lanes[4] = {};
            for (int i = 0; i < count; ++i)
                lanes[i] = p[i];
            return _mm_load_ps (lanes);
        }
        static void storeFirst (float* p, Reg v, int count) noexcept
        {
            alignas (16) float lanes[4];
            _mm_store_ps (lanes, v);
            for (int i = 0; i < count; ++i)
                p[i] = lanes[i];
        }
        static Reg maxNaN (Reg a, Reg b) noexcept
        {
            const Reg nan = _mm_cmpunord_ps (a, a);
            return _mm_or_ps (_mm_and_ps (nan, a), _mm_andnot_ps (nan, _mm_max_ps (a, b)));
        }
        /** max(0, v) as torch.relu: maxps returns its second operand for a NaN or two zeros, so NaN and -0 pass. */
        static Reg relu (Reg v) noexcept { return _mm_max_ps (_mm_setzero_ps(), v); }
        static Reg evenLanes (Reg a, Reg b) noexcept { return _mm_shuffle_ps (a, b, _MM_SHUFFLE (2, 0, 2, 0)); }
        static Reg oddLanes (Reg a, Reg b) noexcept { return _mm_shuffle_ps (a, b, _MM_SHUFFLE (3, 1, 3, 1)); }
        static Reg interleaveLow (Reg a, Reg b) noexcept { return _mm_unpacklo_ps (a, b); }
        static Reg interleaveHigh (Reg a, Reg b) noexcept { return _mm_unpackhi_ps (a, b); }
        static float sum (Reg a) noexcept
        {
            Reg s = _mm_add_ps (a, _mm_movehl_ps (a, a));
            s = _mm_add_ss (s, _mm_shuffle_ps (s, s, 1));
            return _mm_cvtss_f32 (s);
        }
        static float maximum (Reg a) noexcept
        {
            Reg s = _mm_max_ps (a, _mm_movehl_ps (a, a));
            s = _mm_max_ss (s, _mm_shuffle_ps (s, s, 1));
            return _mm_cvtss_f32 (s);
        }
    };
#endif

} // namespace
} // namespace sonotype::engine::kernels
