// A streaming-runtime worker that runs nothing: the test calls processPending() itself.
#pragma once

#include "runtime/StreamingRuntime.h"

#include <functional>

namespace sonotype::testing
{

class ManualWorker final : public runtime::WorkerThread
{
public:
    void start (std::function<void()>) override {}
    void join() override {}
};

} // namespace sonotype::testing
