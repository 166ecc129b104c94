#include "support/AllocationCounter.h"

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>

extern "C"
{
    void* __libc_malloc (std::size_t);
    void* __libc_calloc (std::size_t, std::size_t);
    void* __libc_realloc (void*, std::size_t);
    void* __libc_memalign (std::size_t, std::size_t);
    void __libc_free (void*);
}

namespace
{
// Only the thread that opened the counter is counted (the runtime's worker allocates freely).
thread_local bool counting = false;
std::atomic<long> allocations { 0 }, frees { 0 }, locks { 0 };
std::atomic<long long> live { 0 }, peak { 0 };

void countAllocation() noexcept
{
    if (counting)
        allocations.fetch_add (1, std::memory_order_relaxed);
}

/** Live bytes of this scope's blocks (as malloc sized them), and their peak. */
void* counted (void* p) noexcept
{
    if (counting && p != nullptr)
    {
        const auto now = live.fetch_add (static_cast<long long> (malloc_usable_size (p)), std::memory_order_relaxed)
                         + static_cast<long long> (malloc_usable_size (p));
        for (auto before = peak.load (std::memory_order_relaxed); now > before && ! peak.compare_exchange_weak (before, now);)
        {
        }
    }
    return p;
}

using MutexLock = int (*) (pthread_mutex_t*);
MutexLock realMutexLock() noexcept
{
    static const auto real = reinterpret_cast<MutexLock> (dlsym (RTLD_NEXT, "pthread_mutex_lock"));
    return real;
}
// Resolve before any counting starts (dlsym may allocate).
[[maybe_unused]] const MutexLock resolvedAtStartup = realMutexLock();
} // namespace

extern "C"
{
    void* malloc (std::size_t size)
    {
        countAllocation();
        return counted (__libc_malloc (size));
    }
    void* calloc (std::size_t count, std::size_t size)
    {
        countAllocation();
        return counted (__libc_calloc (count, size));
    }
    void* realloc (void* p, std::size_t size)
    {
        countAllocation();
        if (counting && p != nullptr)
            live.fetch_sub (static_cast<long long> (malloc_usable_size (p)), std::memory_order_relaxed);
        return counted (__libc_realloc (p, size));
    }
    void* memalign (std::size_t alignment, std::size_t size)
    {
        countAllocation();
        return counted (__libc_memalign (alignment, size));
    }
    void* aligned_alloc (std::size_t alignment, std::size_t size)
    {
        countAllocation();
        return counted (__libc_memalign (alignment, size));
    }
    int posix_memalign (void** result, std::size_t alignment, std::size_t size)
    {
        countAllocation();
        *result = counted (__libc_memalign (alignment, size));
        return *result != nullptr ? 0 : ENOMEM;
    }
    void free (void* p)
    {
        if (p != nullptr && counting)
        {
            frees.fetch_add (1, std::memory_order_relaxed);
            live.fetch_sub (static_cast<long long> (malloc_usable_size (p)), std::memory_order_relaxed);
        }
        __libc_free (p);
    }
    int pthread_mutex_lock (pthread_mutex_t* mutex)
    {
        if (counting)
            locks.fetch_add (1, std::memory_order_relaxed);
        return realMutexLock() (mutex);
    }
}

namespace sonotype::testing
{

ScopedAllocationCounter::ScopedAllocationCounter()
{
    allocations = 0;
    frees = 0;
    locks = 0;
    live = 0;
    peak = 0;
    counting = true;
}

ScopedAllocationCounter::~ScopedAllocationCounter()
{
    counting = false;
}

AllocationCounts ScopedAllocationCounter::counts() const
{
    return { allocations.load(), frees.load(), locks.load(), peak.load() };
}

} // namespace sonotype::testing
