// The fseek-style seek the compressed-format libraries (libmpg123, libopusfile) ask of their
// callbacks, over the juce::InputStream a reader owns.
#pragma once

#include <juce_core/juce_core.h>

#include <cstdio>

namespace sonotype::formats
{

/** Moves `stream` to `offset` from the start (SEEK_SET), the current position (SEEK_CUR) or the end
    (SEEK_END); false for another whence, a position before the start, or an end the stream cannot
    tell. */
inline bool seekStream (juce::InputStream& stream, juce::int64 offset, int whence)
{
    juce::int64 target = offset;
    if (whence == SEEK_CUR)
        target += stream.getPosition();
    else if (whence == SEEK_END)
    {
        const auto total = stream.getTotalLength();
        if (total < 0)
            return false;
        target += total;
    }
    else if (whence != SEEK_SET)
        return false;
    return target >= 0 && stream.setPosition (target);
}

} // namespace sonotype::formats
