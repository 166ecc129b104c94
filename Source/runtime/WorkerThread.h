// The thread the streaming runtime's analysis worker runs on (StreamingRuntime starts and joins it).
#pragma once

#include <functional>
#include <thread>

namespace sonotype::runtime
{

/** Starts the worker's loop on a thread; the host layer may supply its own (e.g. a juce::Thread),
    or none at all and call processPending() itself (offline rendering, tests). */
class WorkerThread
{
public:
    virtual ~WorkerThread() = default;
    virtual void start (std::function<void()> loop) = 0;
    virtual void join() = 0;
};

/** The default: a std::thread. */
class StdWorkerThread final : public WorkerThread
{
public:
    void start (std::function<void()> loop) override { thread_ = std::thread (std::move (loop)); }
    void join() override
    {
        if (thread_.joinable())
            thread_.join();
    }

private:
    std::thread thread_;
};

} // namespace sonotype::runtime
