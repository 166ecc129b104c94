// Counts heap allocations/frees and mutex locks made by the calling thread while a scope is active.
// Works by interposing malloc & co. and pthread_mutex_lock in the test executable (glibc).
#pragma once

namespace sonotype::testing
{

struct AllocationCounts
{
    long allocations = 0;
    long frees = 0;
    long locks = 0;
    long long peakBytes = 0; // the most bytes the scope's allocations held at once (as malloc sized them)
};

class ScopedAllocationCounter
{
public:
    ScopedAllocationCounter();
    ~ScopedAllocationCounter();
    AllocationCounts counts() const;

    ScopedAllocationCounter (const ScopedAllocationCounter&) = delete;
    ScopedAllocationCounter& operator= (const ScopedAllocationCounter&) = delete;
};

} // namespace sonotype::testing
