// The standalone app's input gate. The app plays files and classifies them; its audio input (a
// microphone, often next to the speakers, which would feed back) never reaches the output, and
// reaches the analysis only when the user asks for it (setListening()). What is not the app's own
// input passes the gate untouched: a plugin's track (analysed and passed through bit-exactly) and
// a file the app plays (analysed and heard). The processor asks route() once a block, between
// the source (FilePlayer or the input) and the analysis.
//
// Threading contract
// - Message thread: setListening(). Any thread: isListening().
// - Audio thread: route(). Never blocks, allocates or locks.
// Shared: the listening flag (an atomic, message thread -> audio thread). Whether the last block
// went to the analysis is the audio thread's own.
#pragma once

#include <atomic>

namespace sonotype::plugin
{

class InputGate
{
public:
    /** Where a block goes. */
    struct Route
    {
        bool analysed = true;         // to the analysis (and the meter and the recorder)
        bool silenced = false;        // out as silence
        bool analysisStopped = false; // the analysis stopped with this block: no window will come to end a sounding note
    };

    /** Message thread: whether the app's input is analysed (off at first). */
    void setListening (bool shouldListen) noexcept { listening_.store (shouldListen, std::memory_order_relaxed); }
    bool isListening() const noexcept { return listening_.load (std::memory_order_relaxed); }

    /** Audio thread, once a block: the route of a block that is the app's own input (`appInput`:
        the standalone app with no file playing), or of anything else (false: it passes). */
    Route route (bool appInput) noexcept;

private:
    std::atomic<bool> listening_ { false };
    bool wasAnalysed_ = false; // audio thread: the last block went to the analysis
};

} // namespace sonotype::plugin
