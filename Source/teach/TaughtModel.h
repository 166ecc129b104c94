// A taught head written into an ordinary model file: the base model's file with the head's rule
// (Prototypes.h) appended as engine ops after its embedding output — L2 normalisation, a product with
// the stored prototypes, and for adapted classes the base head's softmax over them — so the CLI,
// another plugin instance or another computer runs it like any model. Output 0 is the head's
// scores (logits over the taught classes and "unknown", whose gates are nodes too), output 1 the
// base model's embedding (so a taught model can be taught again), output 2, where the extended file
// has one, the window's level (teach/WindowLevel.h: the level gate's input); the labels are the taught classes; the front end and every
// stored tensor of the base model are kept (a taught base keeps its own head too: the new head's
// tensors are then "taught2.*", and so on). The metadata's "taught" records the base model and the
// rule, for inspect; its "midi_notes" the notes chosen for the classes. The file is written by engine::ModelFileWriter, the head's ops named from the
// engine's op table.
#pragma once

#include "teach/Prototypes.h"

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace sonotype::teach
{

/** The taught model file's bytes. `baseFile` is the base model's file (the one `head` was learned
    on, with an embedding output). Throws std::invalid_argument for a file that is not such a model
    (the engine loads the result again before it is returned: a file it would refuse is never
    written). */
std::vector<std::uint8_t> taughtModelFile (std::span<const std::uint8_t> baseFile, const std::string& baseName, const Head& head);

/** The MIDI notes chosen for taught classes, by class name (timeline/NoteMap.h: the classes not
    named play the note their name says, or base note + index). */
using ChosenNotes = std::map<std::string, int>;

/** The same, with the sounds the classes were taught from (encodeExampleSet's JSON, kept in the
    metadata's "taught_examples" so the file can be imported back and learned again on another
    model; empty: none), the notes chosen for its classes (the metadata's "midi_notes"; a name that
    is not one of head's labels is left out), and the model as the engine loaded it back. */
struct TaughtModelFile
{
    std::vector<std::uint8_t> bytes;
    std::shared_ptr<const engine::Model> model;
};
TaughtModelFile buildTaughtModel (std::span<const std::uint8_t> baseFile, const std::string& baseName, const Head& head,
                                  const std::string& examplesJson = {}, const ChosenNotes& notes = {});

/** The taught examples a model file carries (its metadata's "taught_examples"), or empty. */
std::string taughtExamplesOf (const engine::Model& model);

} // namespace sonotype::teach
