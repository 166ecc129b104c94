// Unary and binary elementwise ops with NumPy broadcasting; formulas follow PyTorch's CPU kernels.
// exp, log, log10, sigmoid, silu, tanh and gelu run on the active path's vector kernels (kernels/vector/).
#include "engine/CpuDispatch.h"
#include "engine/file/ModelError.h"
#include "engine/kernels/Broadcast.h"
#include "engine/kernels/Kernels.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace sonotype::engine::kernels
{
namespace
{
    constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

    // ----- unary functors -------------------------------------------------------------------
    // As torch.relu: NaN and -0 pass.
    // One functor a line, so the table reads as one (clang-format leaves these lines as they are):
    // clang-format off
    struct Relu { float operator() (float x) const noexcept { return x < 0.0f ? 0.0f : x; } };
    struct Exp2 { float operator() (float x) const noexcept { return std::exp2 (x); } };
    struct Log2 { float operator() (float x) const noexcept { return std::log2 (x); } };
    struct Log1p { float operator() (float x) const noexcept { return std::log1p (x); } };
    struct Expm1 { float operator() (float x) const noexcept { return std::expm1 (x); } };
    struct Sqrt { float operator() (float x) const noexcept { return std::sqrt (x); } };
    struct Rsqrt { float operator() (float x) const noexcept { return 1.0f / std::sqrt (x); } };
    struct Neg { float operator() (float x) const noexcept { return -x; } };
    struct Abs { float operator() (float x) const noexcept { return std::fabs (x); } };
    struct Erf { float operator() (float x) const noexcept { return std::erf (x); } };
    struct Sin { float operator() (float x) const noexcept { return std::sin (x); } };
    struct Cos { float operator() (float x) const noexcept { return std::cos (x); } };
    struct Reciprocal { float operator() (float x) const noexcept { return 1.0f / x; } };
    struct Hardsigmoid { float operator() (float x) const noexcept { return std::min (std::max (x + 3.0f, 0.0f), 6.0f) / 6.0f; } };
    struct Hardswish { float operator() (float x) const noexcept { return x * std::min (std::max (x + 3.0f, 0.0f), 6.0f) / 6.0f; } };
    struct Sign { float operator() (float x) const noexcept { return std::isnan (x) ? x : static_cast<float> ((0.0f < x) - (x < 0.0f)); } };
    struct Floor { float operator() (float x) const noexcept { return std::floor (x); } };
    struct Ceil { float operator() (float x) const noexcept { return std::ceil (x); } };
    struct Round { float operator() (float x) const noexcept { return std::nearbyint (x); } }; // half to even, as torch.round
    struct Trunc { float operator() (float x) const noexcept { return std::trunc (x); } };
    struct LogicalNot { float operator() (float x) const noexcept { return x == 0.0f ? 1.0f : 0.0f; } };
    // clang-format on
    struct Softplus
    {
        float beta = 1.0f, threshold = 20.0f;
        float operator() (float x) const noexcept { return x * beta > threshold ? x : std::log1p (std::exp (x * beta)) / beta; }
    };
    // clang-format off
    struct Mish { float operator() (float x) const noexcept { return x * std::tanh (Softplus {} (x)); } };
    // clang-format on
    struct Clamp
    {
        float low = -std::numeric_limits<float>::infinity(), high = std::numeric_limits<float>::infinity();
        float operator() (float x) const noexcept { return std::isnan (x) ? x : std::min (std::max (x, low), high); }
    };
    struct LeakyRelu
    {
        float slope = 0.01f;
        float operator() (float x) const noexcept { return x > 0.0f ? x : x * slope; }
    };
    struct Elu
    {
        float alpha = 1.0f, scale = 1.0f, inputScale = 1.0f;
        float operator() (float x) const noexcept { return x > 0.0f ? x * scale : std::expm1 (x * inputScale) * alpha * scale; }
    };

    /** What one element of a unary op costs beyond reading and writing it: C library calls (in
        units of a log: log2 and exp2 about 1, erf 4, mish's three calls 11, as measured:
        engine/file/Work.h), a scalar step where the compiler does not vectorise the loop, a
        mispredicted branch where the result depends on the sign. */
    Work perElement (double libm, double scalar = 0.0, double branches = 0.0)
    {
        Work work;
        work.libm = libm;
        work.scalar = scalar;
        work.branches = branches;
        return work;
    }

    template <typename F>
    class Unary final : public Op
    {
    public:
        Unary (F f, int64_t numElements, const Work& perElement) : f_ (f), numElements_ (numElements), work_ (static_cast<double> (numElements) * perElement)
        {
        }
        Work work() const noexcept override { return work_; }
        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            const float* x = in[0];
            float* y = out[0];
            for (int64_t i = 0; i < numElements_; ++i)
                y[i] = f_ (x[i]);
        }

    private:
        F f_;
        int64_t numElements_;
        Work work_;
    };

    /** A unary op on the active path's vector kernels (exp, log, log10, sigmoid, silu, tanh, gelu). */
    class VectorUnary final : public Op
    {
    public:
        using Function = void (*) (const float*, float*, int64_t) noexcept;
        VectorUnary (Function f, int64_t numElements, double cost) : f_ (f), numElements_ (numElements)
        {
            work_.vectorMath = cost * static_cast<double> (numElements);
        }
        Work work() const noexcept override { return work_; }
        void run (const float* const* in, float* const* out, float*) const noexcept override { f_ (in[0], out[0], numElements_); }

    private:
        Function f_;
        int64_t numElements_;
        Work work_;
    };

    /** `cost`: the vector function's time per element relative to exp's (tanh and GELU take longer). */
    std::unique_ptr<Op> vectorUnary (VectorUnary::Function f, const OpArgs& args, double cost = 1.0)
    {
        return std::make_unique<VectorUnary> (f, args.input (0).numElements(), cost);
    }

    template <typename F>
    std::unique_ptr<Op> unary (F f, const OpArgs& args, const Work& cost = {})
    {
        return std::make_unique<Unary<F>> (f, args.input (0).numElements(), cost);
    }

    // ----- binary functors ------------------------------------------------------------------
    // clang-format off
    struct Add { float operator() (float a, float b) const noexcept { return a + b; } };
    struct Sub { float operator() (float a, float b) const noexcept { return a - b; } };
    struct Mul { float operator() (float a, float b) const noexcept { return a * b; } };
    struct Div { float operator() (float a, float b) const noexcept { return a / b; } };
    struct Pow { float operator() (float a, float b) const noexcept { return std::pow (a, b); } };
    struct Maximum { float operator() (float a, float b) const noexcept { return std::isnan (a) || std::isnan (b) ? kNaN : std::max (a, b); } };
    struct Minimum { float operator() (float a, float b) const noexcept { return std::isnan (a) || std::isnan (b) ? kNaN : std::min (a, b); } };
    struct Eq { float operator() (float a, float b) const noexcept { return a == b ? 1.0f : 0.0f; } };
    struct Ne { float operator() (float a, float b) const noexcept { return a != b ? 1.0f : 0.0f; } };
    struct Lt { float operator() (float a, float b) const noexcept { return a < b ? 1.0f : 0.0f; } };
    struct Le { float operator() (float a, float b) const noexcept { return a <= b ? 1.0f : 0.0f; } };
    struct Gt { float operator() (float a, float b) const noexcept { return a > b ? 1.0f : 0.0f; } };
    struct Ge { float operator() (float a, float b) const noexcept { return a >= b ? 1.0f : 0.0f; } };
    struct And { float operator() (float a, float b) const noexcept { return a != 0.0f && b != 0.0f ? 1.0f : 0.0f; } };
    struct Or { float operator() (float a, float b) const noexcept { return a != 0.0f || b != 0.0f ? 1.0f : 0.0f; } };
    // clang-format on

    template <typename F>
    class Binary final : public Op
    {
    public:
        explicit Binary (const OpArgs& args) : out_ (args.output (0))
        {
            // The declared output must be the broadcast shape before any stride is derived from it.
            args.checkOutput (0, broadcastShapes (args.input (0), args.input (1)));
            strides_ = { broadcastStrides (args.input (0), out_), broadcastStrides (args.input (1), out_) };
            aFull_ = args.input (0) == out_;
            bFull_ = args.input (1) == out_;
            aScalar_ = args.input (0).numElements() == 1;
            bScalar_ = args.input (1).numElements() == 1;
            // A broadcast walks rows with a scalar loop; pow calls the C library per element.
            const auto elements = static_cast<double> (out_.numElements());
            if (std::is_same_v<F, Pow>)
                work_.libm = 2.5 * elements;
            if (! (aFull_ && bFull_) && ! (aFull_ && bScalar_) && ! (aScalar_ && bFull_))
            {
                // Slower where an operand is broadcast along the rows (a stride of 0 defeats vectorisation).
                const auto last = static_cast<std::size_t> (std::max (out_.rank() - 1, 0));
                if (strides_[0][last] == 0 || strides_[1][last] == 0)
                    work_.scalar += elements;
                work_.calls += rowsOf (out_);
            }
        }

        Work work() const noexcept override { return work_; }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            const float* a = in[0];
            const float* b = in[1];
            float* y = out[0];
            const int64_t n = out_.numElements();
            const F f;
            if (aFull_ && bFull_)
                for (int64_t i = 0; i < n; ++i)
                    y[i] = f (a[i], b[i]);
            else if (aFull_ && bScalar_)
                for (int64_t i = 0; i < n; ++i)
                    y[i] = f (a[i], b[0]);
            else if (aScalar_ && bFull_)
                for (int64_t i = 0; i < n; ++i)
                    y[i] = f (a[0], b[i]);
            else
            {
                const auto last = static_cast<std::size_t> (std::max (out_.rank() - 1, 0));
                const int64_t sa = strides_[0][last], sb = strides_[1][last];
                forEachRow (out_, strides_, [&] (int64_t outOffset, const std::array<int64_t, 2>& offsets, int64_t count) {
                    for (int64_t j = 0; j < count; ++j)
                        y[outOffset + j] = f (a[offsets[0] + j * sa], b[offsets[1] + j * sb]);
                });
            }
        }

    private:
        Shape out_;
        std::array<Strides, 2> strides_ {};
        bool aFull_ = false, bFull_ = false, aScalar_ = false, bScalar_ = false;
        Work work_;
    };

    class Where final : public Op
    {
    public:
        explicit Where (const OpArgs& args) : out_ (args.output (0))
        {
            args.checkOutput (0, broadcastShapes (broadcastShapes (args.input (0), args.input (1)), args.input (2)));
            strides_ = { broadcastStrides (args.input (0), out_), broadcastStrides (args.input (1), out_), broadcastStrides (args.input (2), out_) };
            work_.scalar = static_cast<double> (out_.numElements());
            work_.calls = rowsOf (out_);
        }

        Work work() const noexcept override { return work_; }

        void run (const float* const* in, float* const* out, float*) const noexcept override
        {
            const float *c = in[0], *a = in[1], *b = in[2];
            float* y = out[0];
            const auto last = static_cast<std::size_t> (std::max (out_.rank() - 1, 0));
            const int64_t sc = strides_[0][last], sa = strides_[1][last], sb = strides_[2][last];
            forEachRow (out_, strides_, [&] (int64_t outOffset, const std::array<int64_t, 3>& offsets, int64_t count) {
                for (int64_t j = 0; j < count; ++j)
                    y[outOffset + j] = c[offsets[0] + j * sc] != 0.0f ? a[offsets[1] + j * sa] : b[offsets[2] + j * sb];
            });
        }

    private:
        Shape out_;
        std::array<Strides, 3> strides_ {};
        Work work_;
    };
} // namespace

std::unique_ptr<Op> makeElementwise (const OpArgs& args)
{
    switch (args.kind())
    {
        case OpKind::add: return std::make_unique<Binary<Add>> (args);
        case OpKind::sub: return std::make_unique<Binary<Sub>> (args);
        case OpKind::mul: return std::make_unique<Binary<Mul>> (args);
        case OpKind::div: return std::make_unique<Binary<Div>> (args);
        case OpKind::pow: return std::make_unique<Binary<Pow>> (args);
        case OpKind::maximum: return std::make_unique<Binary<Maximum>> (args);
        case OpKind::minimum: return std::make_unique<Binary<Minimum>> (args);
        case OpKind::eq: return std::make_unique<Binary<Eq>> (args);
        case OpKind::ne: return std::make_unique<Binary<Ne>> (args);
        case OpKind::lt: return std::make_unique<Binary<Lt>> (args);
        case OpKind::le: return std::make_unique<Binary<Le>> (args);
        case OpKind::gt: return std::make_unique<Binary<Gt>> (args);
        case OpKind::ge: return std::make_unique<Binary<Ge>> (args);
        case OpKind::logicalAnd: return std::make_unique<Binary<And>> (args);
        case OpKind::logicalOr: return std::make_unique<Binary<Or>> (args);
        case OpKind::where: return std::make_unique<Where> (args);
        default: break;
    }
    // One input, whose shape the output keeps.
    args.checkOutput (0, args.input (0));
    const auto& kernels = *activeKernelPath().table;
    switch (args.kind())
    {
        case OpKind::relu: return unary (Relu {}, args);
        case OpKind::sigmoid: return vectorUnary (kernels.sigmoid, args);
        case OpKind::tanh: return vectorUnary (kernels.tanh, args, 1.5);
        case OpKind::exp: return vectorUnary (kernels.exp, args);
        case OpKind::exp2: return unary (Exp2 {}, args, perElement (1.0));
        case OpKind::log: return vectorUnary (kernels.log, args);
        case OpKind::log2: return unary (Log2 {}, args, perElement (1.0));
        case OpKind::log10: return vectorUnary (kernels.log10, args, 1.2);
        case OpKind::log1p: return unary (Log1p {}, args, perElement (3.0));
        case OpKind::expm1: return unary (Expm1 {}, args, perElement (3.0));
        case OpKind::sqrt: return unary (Sqrt {}, args, perElement (0.0, 3.0));
        case OpKind::rsqrt: return unary (Rsqrt {}, args, perElement (0.0, 7.0));
        case OpKind::neg: return unary (Neg {}, args);
        case OpKind::abs: return unary (Abs {}, args);
        case OpKind::erf: return unary (Erf {}, args, perElement (4.0));
        case OpKind::sin: return unary (Sin {}, args, perElement (2.5));
        case OpKind::cos: return unary (Cos {}, args, perElement (2.5));
        case OpKind::reciprocal: return unary (Reciprocal {}, args);
        case OpKind::silu: return vectorUnary (kernels.silu, args);
        case OpKind::hardsigmoid: return unary (Hardsigmoid {}, args, perElement (0.0, 3.0));
        case OpKind::hardswish: return unary (Hardswish {}, args, perElement (0.0, 1.0));
        case OpKind::sign: return unary (Sign {}, args, perElement (0.0, 3.0));
        case OpKind::floor: return unary (Floor {}, args, perElement (0.0, 3.0));
        case OpKind::ceil: return unary (Ceil {}, args, perElement (0.0, 3.0));
        case OpKind::round: return unary (Round {}, args, perElement (0.8));
        case OpKind::trunc: return unary (Trunc {}, args, perElement (0.0, 3.0));
        case OpKind::logicalNot: return unary (LogicalNot {}, args);
        case OpKind::mish: return unary (Mish {}, args, perElement (11.0));
        case OpKind::softplus:
            return unary (Softplus { static_cast<float> (args.real ("beta", 1.0, 1e-6, 1e6)), static_cast<float> (args.real ("threshold", 20.0, -1e6, 1e6)) }, args,
                          perElement (5.0));
        case OpKind::gelu:
        {
            const auto approximate = args.text ("approximate", "none");
            if (approximate != "none" && approximate != "tanh")
                throw ModelError ("gelu approximate must be 'none' or 'tanh', not " + quote (approximate));
            return vectorUnary (approximate == "tanh" ? kernels.geluTanh : kernels.geluErf, args, approximate == "tanh" ? 2.0 : 1.5);
        }
        case OpKind::clamp:
        {
            Clamp clamp;
            if (args.has ("min"))
                clamp.low = static_cast<float> (args.real ("min", -kFiniteFloat, kFiniteFloat));
            if (args.has ("max"))
                clamp.high = static_cast<float> (args.real ("max", -kFiniteFloat, kFiniteFloat));
            return unary (clamp, args, perElement (0.0, 1.0));
        }
        case OpKind::leakyRelu:
            return unary (LeakyRelu { static_cast<float> (args.real ("negative_slope", 0.01, -kMaxFactor, kMaxFactor)) }, args, perElement (0.0, 0.0, 1.0));
        case OpKind::elu:
            return unary (Elu { static_cast<float> (args.real ("alpha", 1.0, -kMaxFactor, kMaxFactor)),
                                static_cast<float> (args.real ("scale", 1.0, -kMaxFactor, kMaxFactor)),
                                static_cast<float> (args.real ("input_scale", 1.0, -kMaxFactor, kMaxFactor)) },
                          args, perElement (3.0, 0.0, 0.5));
        default: break;
    }
    throw ModelError ("not an elementwise op: " + std::string (opName (args.kind())));
}

} // namespace sonotype::engine::kernels
