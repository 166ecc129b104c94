#include "plugin/InputGate.h"

#include <utility>

namespace sonotype::plugin
{

InputGate::Route InputGate::route (bool appInput) noexcept
{
    Route route;
    if (appInput)
    {
        // The app's input: analysed only when asked for, never heard. Nothing to analyse: nothing
        // goes into the history either.
        route.analysed = listening_.load (std::memory_order_relaxed);
        route.silenced = true;
    }
    // The analysis stopping (a file paused or ended, the input switched off) ends a sounding note,
    // as a transport stop does.
    route.analysisStopped = std::exchange (wasAnalysed_, route.analysed) && ! route.analysed;
    return route;
}

} // namespace sonotype::plugin
