// The notes of the running model's classes, as the analysis worker plays them (MidiScheduler's
// window notes, HitNotes' per-hit notes): timeline::resolveNotes over the generation's labels and
// the notes its model file chose for them (a taught model's "midi_notes": the Teach view's or
// `learn --note`'s), at the Base note parameter. So the model and its notes always go together:
// a result is played with the notes of the model that gave it, even while another is swapped in.
// Resolved again only when the generation or the base note changes, into a fixed array.
//
// Threading contract: one thread uses an object (the analysis worker: MidiScheduler and HitNotes
// each own one). noteOf() never allocates, locks or throws; nothing in it is shared.
#pragma once

#include "runtime/AnalysisInfo.h"
#include "timeline/NoteMap.h"

#include <array>
#include <cstdint>
#include <span>

namespace sonotype::plugin
{

class ModelNotes
{
public:
    /** The classes a map holds; a class past them plays base note + index (past 127: none). */
    static constexpr int kMaxClasses = 512;

    /** The note of class `classIndex` of `info`'s model at `baseNote` (timeline::kNoNote: none). */
    int noteOf (const runtime::AnalysisInfo& info, int classIndex, int baseNote) noexcept
    {
        if (info.generation != generation_ || info.model.get() != model_ || baseNote != baseNote_)
        {
            const auto chosen = info.model != nullptr ? std::span<const int> (info.model->info().classNotes) : std::span<const int>();
            timeline::resolveNotes (info.labels, chosen, baseNote, notes_);
            generation_ = info.generation;
            model_ = info.model.get();
            baseNote_ = baseNote;
        }
        if (classIndex < 0)
            return timeline::kNoNote;
        if (classIndex < kMaxClasses)
            return notes_[static_cast<std::size_t> (classIndex)];
        const auto note = static_cast<int64_t> (baseNote) + classIndex;
        return note <= 127 ? static_cast<int> (note) : timeline::kNoNote;
    }

private:
    uint64_t generation_ = ~uint64_t {};
    const engine::Model* model_ = nullptr;
    int baseNote_ = -1;
    std::array<int, kMaxClasses> notes_ {};
};

} // namespace sonotype::plugin
