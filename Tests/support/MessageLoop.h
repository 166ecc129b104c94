// Running JUCE's message loop in a test for a while (the editors' timers, window events) without
// modal loops (JUCE_MODAL_LOOPS_PERMITTED=0).
#pragma once

#include <juce_events/juce_events.h>

namespace juce
{
bool dispatchNextMessageOnSystemQueue (bool returnIfNoPendingMessages); // juce_events
}

namespace sonotype::testing
{

/** Dispatches messages for `milliseconds`. */
inline void pumpMessages (int milliseconds)
{
    const auto end = juce::Time::getMillisecondCounter() + static_cast<juce::uint32> (milliseconds);
    while (juce::Time::getMillisecondCounter() < end)
        if (! juce::dispatchNextMessageOnSystemQueue (true))
            juce::Thread::sleep (1);
}

} // namespace sonotype::testing
