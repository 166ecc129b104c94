#include "engine/file/Shape.h"

#include "engine/file/ModelError.h"

#include <algorithm>

namespace sonotype::engine
{

Shape::Shape (std::initializer_list<int64_t> dims)
{
    for (auto d : dims)
        push (d);
}

int64_t Shape::numElements() const noexcept
{
    return product (0, rank_);
}

void Shape::push (int64_t dim)
{
    if (rank_ >= kMaxRank)
        throw ModelError ("tensor rank exceeds the engine's maximum of " + std::to_string (kMaxRank));
    if (dim < 0)
        throw ModelError ("negative dimension " + std::to_string (dim));
    if (dim > kMaxElements / loopCount())
        throw ModelError ("shape " + toString() + " extended by " + std::to_string (dim) + " would have more than 2^40 elements");
    dims_[static_cast<size_t> (rank_++)] = dim;
}

Shape Shape::with (int axis, int64_t dim) const
{
    if (axis < 0 || axis >= rank_)
        throw ModelError ("axis " + std::to_string (axis) + " of a rank-" + std::to_string (rank_) + " shape " + toString() + " does not exist");
    Shape result;
    for (int a = 0; a < rank_; ++a)
        result.push (a == axis ? dim : (*this)[a]);
    return result;
}

std::array<int64_t, kMaxRank> Shape::strides() const noexcept
{
    std::array<int64_t, kMaxRank> result {};
    int64_t stride = 1;
    for (int axis = rank_ - 1; axis >= 0; --axis)
    {
        result[static_cast<size_t> (axis)] = stride;
        stride *= dims_[static_cast<size_t> (axis)];
    }
    return result;
}

int64_t Shape::product (int begin, int end) const noexcept
{
    SONOTYPE_SHAPE_EXPECT (begin >= 0 && begin <= end && end <= rank_);
    int64_t result = 1;
    for (int axis = begin; axis < end; ++axis)
        result *= (*this)[axis];
    return result;
}

int64_t Shape::loopCount() const noexcept
{
    int64_t result = 1;
    for (int axis = 0; axis < rank_; ++axis)
        result *= std::max<int64_t> ((*this)[axis], 1);
    return result;
}

bool Shape::operator== (const Shape& other) const noexcept
{
    if (rank_ != other.rank_)
        return false;
    for (int axis = 0; axis < rank_; ++axis)
        if ((*this)[axis] != other[axis])
            return false;
    return true;
}

std::string Shape::toString() const
{
    std::string text = "[";
    for (int axis = 0; axis < rank_; ++axis)
        text += (axis ? ", " : "") + std::to_string ((*this)[axis]);
    return text + "]";
}

Shape broadcastShapes (const Shape& a, const Shape& b)
{
    const int rank = std::max (a.rank(), b.rank());
    Shape result;
    for (int axis = 0; axis < rank; ++axis)
    {
        const int ia = axis - (rank - a.rank());
        const int ib = axis - (rank - b.rank());
        const int64_t da = ia >= 0 ? a[ia] : 1;
        const int64_t db = ib >= 0 ? b[ib] : 1;
        if (da != db && da != 1 && db != 1)
            throw ModelError ("shapes " + a.toString() + " and " + b.toString() + " do not broadcast");
        result.push (da == 1 ? db : da);
    }
    return result;
}

bool broadcastsTo (const Shape& from, const Shape& to) noexcept
{
    if (from.rank() > to.rank())
        return false;
    const int offset = to.rank() - from.rank();
    for (int axis = 0; axis < from.rank(); ++axis)
        if (from[axis] != 1 && from[axis] != to[axis + offset])
            return false;
    return true;
}

std::array<int64_t, kMaxRank> broadcastStrides (const Shape& from, const Shape& to) noexcept
{
    std::array<int64_t, kMaxRank> result {};
    if (! broadcastsTo (from, to))
        return result; // callers check first; never index outside the array for shapes that do not fit
    const auto fromStrides = from.strides();
    const int offset = to.rank() - from.rank();
    for (int axis = 0; axis < from.rank(); ++axis)
        result[static_cast<size_t> (axis + offset)] = from[axis] == 1 ? 0 : fromStrides[static_cast<size_t> (axis)];
    return result;
}

} // namespace sonotype::engine
