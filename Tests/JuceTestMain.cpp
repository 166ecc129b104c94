// Test runner for the JUCE layers (plugin, GUI, hosting): JUCE's message manager lives on the main
// thread, as in a host.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <juce_events/juce_events.h>

int main (int argc, char* argv[])
{
    const juce::ScopedJuceInitialiser_GUI juce;
    return Catch::Session().run (argc, argv);
}
