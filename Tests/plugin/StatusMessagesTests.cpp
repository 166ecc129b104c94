// The message channel: one message per cause, a later message of a cause replacing (or clearing)
// its earlier one, the others left alone; errors first; infos fading with the (injected) clock.
#include "plugin/StatusMessages.h"

#include <catch2/catch.hpp>

#include <thread>

using namespace sonotype::plugin;

namespace
{
juce::StringArray texts (const std::vector<StatusMessage>& messages)
{
    juce::StringArray result;
    for (const auto& message : messages)
        result.add (message.text);
    return result;
}
} // namespace

TEST_CASE ("status messages: a cause's success clears its error and leaves the other causes' messages", "[status]")
{
    double now = 0.0;
    StatusMessages messages ([&now] { return now; });
    CHECK (messages.current().empty());
    messages.post (StatusCause::device, "No audio device", StatusKind::notice);
    messages.post (StatusCause::fileAnalysis, "Cannot analyze bad.wav: not a readable audio file", StatusKind::error);
    messages.post (StatusCause::commandLine, "Cannot open x.wav: no such file", StatusKind::error);
    // Errors first (newest first), then the notice: the command line's error did not replace it.
    CHECK (texts (messages.current())
           == juce::StringArray { "Cannot open x.wav: no such file", "Cannot analyze bad.wav: not a readable audio file", "No audio device" });

    messages.clear (StatusCause::fileAnalysis); // the next file was analysed
    CHECK (texts (messages.current()) == juce::StringArray { "Cannot open x.wav: no such file", "No audio device" });
    messages.post (StatusCause::model, "Could not load m.safetensors", StatusKind::error);
    messages.post (StatusCause::model, "Loaded n.safetensors", StatusKind::info); // a model that loads: the model error goes
    CHECK (texts (messages.current()) == juce::StringArray { "Cannot open x.wav: no such file", "No audio device", "Loaded n.safetensors" });
    messages.post (StatusCause::device, {}, StatusKind::notice); // an empty message clears too
    CHECK (texts (messages.current()) == juce::StringArray { "Cannot open x.wav: no such file", "Loaded n.safetensors" });
    CHECK (messages.newest().text == "Loaded n.safetensors");
    CHECK_FALSE (messages.newest().isError());
    messages.clearAll();
    CHECK (messages.current().empty());
    CHECK (messages.newest().text.isEmpty());
}

TEST_CASE ("status messages: infos fade, notices and errors stay until their cause or the user takes them down", "[status]")
{
    double now = 100.0;
    StatusMessages messages ([&now] { return now; });
    messages.post (StatusCause::exports, "Exported 12 segments to a.csv", StatusKind::info);
    messages.post (StatusCause::device, "No audio device", StatusKind::notice);
    messages.post (StatusCause::osc, "Cannot send to port 0", StatusKind::error);
    const auto version = messages.version();
    now += StatusMessages::kInfoSeconds - 0.5;
    CHECK (messages.current().size() == 3);
    now += 1.0;
    CHECK (texts (messages.current()) == juce::StringArray { "Cannot send to port 0", "No audio device" });
    CHECK (messages.version() == version); // (fading is no change: the strip asks each frame)
    now += 3600.0;
    CHECK (messages.current().size() == 2);

    // Dismissed by the user: gone; a message of the cause posted since is not dismissed with it.
    const auto osc = messages.current().front();
    messages.post (StatusCause::osc, "Cannot send to port 1", StatusKind::error);
    messages.dismiss (StatusCause::osc, osc.serial);
    CHECK (texts (messages.current()) == juce::StringArray { "Cannot send to port 1", "No audio device" });
    messages.dismiss (StatusCause::osc, messages.current().front().serial);
    CHECK (texts (messages.current()) == juce::StringArray { "No audio device" });
    CHECK (messages.version() > version);
}

TEST_CASE ("status messages: posted from several threads at once, each cause keeps its newest", "[status]")
{
    StatusMessages messages;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back ([&messages, t] {
            const auto cause = t == 0 ? StatusCause::model : t == 1 ? StatusCause::learning
                                                         : t == 2   ? StatusCause::fileAnalysis
                                                                    : StatusCause::exports;
            for (int i = 0; i < 1000; ++i)
                messages.post (cause, juce::String (t) + ":" + juce::String (i), StatusKind::error);
        });
    for (auto& thread : threads)
        thread.join();
    const auto shown = texts (messages.current());
    CHECK (shown.size() == 4);
    for (int t = 0; t < 4; ++t)
        CHECK (shown.contains (juce::String (t) + ":999"));
}
