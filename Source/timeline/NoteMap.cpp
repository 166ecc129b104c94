#include "timeline/NoteMap.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <stdexcept>

namespace sonotype::timeline
{
namespace
{
    char lower (char c) noexcept
    {
        return c >= 'A' && c <= 'Z' ? static_cast<char> (c - 'A' + 'a') : c;
    }

    bool isLetter (char c) noexcept
    {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    bool isDigit (char c) noexcept
    {
        return c >= '0' && c <= '9';
    }

    bool sameWord (std::string_view word, std::string_view vocabulary) noexcept
    {
        return word.size() == vocabulary.size() && std::equal (word.begin(), word.end(), vocabulary.begin(), [] (char a, char b) { return lower (a) == b; });
    }

    /** What a name's words say, one flag each. */
    enum Word : std::uint64_t
    {
        noDrum = 1ull << 0,
        kick = 1ull << 1,
        bass = 1ull << 2,
        drum = 1ull << 3,
        snare = 1ull << 4,
        rim = 1ull << 5,
        stick = 1ull << 7,
        clap = 1ull << 8,
        hat = 1ull << 9,
        open = 1ull << 10,
        pedal = 1ull << 11,
        tom = 1ull << 12,
        floorTom = 1ull << 13,
        rack = 1ull << 14,
        high = 1ull << 15,
        low = 1ull << 16,
        mid = 1ull << 17,
        crash = 1ull << 18,
        ride = 1ull << 19,
        bell = 1ull << 20,
        china = 1ull << 21,
        splash = 1ull << 22,
        cymbal = 1ull << 23,
        tambourine = 1ull << 24,
        cowbell = 1ull << 25,
        cow = 1ull << 26,
        shaker = 1ull << 27,
        cabasa = 1ull << 28,
        clave = 1ull << 29,
        conga = 1ull << 30,
        bongo = 1ull << 31,
        timbale = 1ull << 32,
        agogo = 1ull << 33,
        guiro = 1ull << 34,
        whistle = 1ull << 35,
        block = 1ull << 36,
        triangle = 1ull << 37,
        vibraslap = 1ull << 38,
        cuica = 1ull << 39,
        mute = 1ull << 40,
        longer = 1ull << 41,
    };

    struct Vocabulary
    {
        const char* word;
        std::uint64_t says;
    };

    // Lower case; a plural is tried without its "s" (and "es").
    constexpr Vocabulary kVocabulary[] = {
        { "silence", noDrum },
        { "unknown", noDrum },
        { "noise", noDrum },
        { "kick", kick },
        { "kik", kick },
        { "bd", kick },
        { "kickdrum", kick },
        { "bassdrum", kick },
        { "bass", bass },
        { "drum", drum },
        { "snare", snare },
        { "sd", snare },
        { "snaredrum", snare },
        { "rim", rim },
        { "rimshot", rim },
        { "sidestick", rim },
        { "crossstick", rim },
        { "stick", stick },
        { "clap", clap },
        { "handclap", clap },
        { "hat", hat },
        { "hihat", hat },
        { "hh", hat },
        { "open", open },
        { "opened", open },
        { "op", open },
        { "closed", 0 },
        { "pedal", pedal },
        { "foot", pedal },
        { "pd", pedal },
        { "tom", tom },
        { "tomtom", tom },
        { "floor", floorTom },
        { "floortom", floorTom },
        { "rack", rack },
        { "racktom", rack },
        { "high", high },
        { "hi", high },
        { "low", low },
        { "lo", low },
        { "mid", mid },
        { "middle", mid },
        { "crash", crash },
        { "ride", ride },
        { "bell", bell },
        { "cup", bell },
        { "china", china },
        { "splash", splash },
        { "cymbal", cymbal },
        { "tambourine", tambourine },
        { "tamb", tambourine },
        { "cowbell", cowbell },
        { "cow", cow },
        { "shaker", shaker },
        { "maraca", shaker },
        { "cabasa", cabasa },
        { "clave", clave },
        { "conga", conga },
        { "bongo", bongo },
        { "timbale", timbale },
        { "agogo", agogo },
        { "guiro", guiro },
        { "whistle", whistle },
        { "woodblock", block },
        { "block", block },
        { "triangle", triangle },
        { "vibraslap", vibraslap },
        { "cuica", cuica },
        { "mute", mute },
        { "muted", mute },
        { "long", longer },
    };

    std::uint64_t wordSays (std::string_view word) noexcept
    {
        for (const auto& entry : kVocabulary)
            if (sameWord (word, entry.word))
                return entry.says;
        // Plurals: "kicks", "toms", "hats", "maracas", "claves", "crashes".
        if (word.size() > 3 && lower (word.back()) == 's')
        {
            const auto singular = word.substr (0, word.size() - 1);
            for (const auto& entry : kVocabulary)
                if (entry.says != noDrum && sameWord (singular, entry.word))
                    return entry.says;
            if (word.size() > 4 && lower (singular.back()) == 'e')
                for (const auto& entry : kVocabulary)
                    if (entry.says != noDrum && sameWord (singular.substr (0, singular.size() - 1), entry.word))
                        return entry.says;
        }
        return 0;
    }

    /** The words of a name (split at anything but letters and digits, between letters and digits,
        and before a capital after a lower-case letter), and its first number (0: none). */
    struct Words
    {
        std::uint64_t says = 0;
        int number = 0;
    };

    Words readWords (std::string_view label) noexcept
    {
        Words words;
        std::size_t i = 0;
        while (i < label.size())
        {
            const char c = label[i];
            if (isDigit (c))
            {
                int value = 0;
                for (; i < label.size() && isDigit (label[i]); ++i)
                    value = std::min (value * 10 + (label[i] - '0'), 10000);
                if (words.number == 0)
                    words.number = value;
                continue;
            }
            if (! isLetter (c))
            {
                ++i;
                continue;
            }
            const std::size_t start = i++;
            while (i < label.size() && isLetter (label[i]) && ! (label[i] >= 'A' && label[i] <= 'Z' && label[i - 1] >= 'a' && label[i - 1] <= 'z'))
                ++i;
            words.says |= wordSays (label.substr (start, i - start));
        }
        return words;
    }

    bool has (std::uint64_t says, std::uint64_t word) noexcept
    {
        return (says & word) != 0;
    }

    /** The toms from high to low: tom1 is the highest, as drummers count the toms of a kit. */
    constexpr int kToms[] = { 50, 48, 47, 45, 43, 41 };

    int tomChoices (const Words& words, std::span<int, 6> choices) noexcept
    {
        const auto says = words.says;
        int first = 45; // a plain "tom": the low tom, the others after it
        if (has (says, floorTom))
            first = has (says, high) ? 43 : 41;
        else if (has (says, mid))
            first = has (says, high) ? 48 : 47;
        else if (has (says, high))
            first = 50;
        else if (has (says, low))
            first = 45;
        else if (has (says, rack))
            first = 48;
        else if (words.number >= 1 && words.number <= 6)
            first = kToms[words.number - 1];
        // Then the other toms, the nearest first: a kit of "tom a", "tom b", "tom c" gets three toms.
        constexpr int kOrder[] = { 45, 47, 43, 48, 41, 50 };
        int n = 0;
        choices[static_cast<std::size_t> (n++)] = first;
        for (const int note : kOrder)
            if (note != first && n < 6)
                choices[static_cast<std::size_t> (n++)] = note;
        return n;
    }

    int pair (std::span<int, 6> choices, int first, int second) noexcept
    {
        choices[0] = first;
        choices[1] = second;
        return second == kNoNote ? 1 : 2;
    }

    int percussionChoices (std::uint64_t says, std::span<int, 6> choices) noexcept
    {
        const bool isLow = has (says, low), isMute = has (says, mute);
        if (has (says, tambourine))
            return pair (choices, 54, kNoNote);
        if (has (says, shaker))
            return pair (choices, 70, 69);
        if (has (says, cabasa))
            return pair (choices, 69, 70);
        if (has (says, clave))
            return pair (choices, 75, kNoNote);
        if (has (says, conga))
            return isLow ? pair (choices, 64, 63) : isMute ? pair (choices, 62, 63)
                                                           : pair (choices, 63, 64);
        if (has (says, bongo))
            return isLow ? pair (choices, 61, 60) : pair (choices, 60, 61);
        if (has (says, timbale))
            return isLow ? pair (choices, 66, 65) : pair (choices, 65, 66);
        if (has (says, agogo))
            return isLow ? pair (choices, 68, 67) : pair (choices, 67, 68);
        if (has (says, guiro))
            return has (says, longer) ? pair (choices, 74, 73) : pair (choices, 73, 74);
        if (has (says, whistle))
            return has (says, longer) ? pair (choices, 72, 71) : pair (choices, 71, 72);
        if (has (says, block))
            return isLow ? pair (choices, 77, 76) : pair (choices, 76, 77);
        if (has (says, triangle))
            return isMute ? pair (choices, 80, 81) : pair (choices, 81, 80);
        if (has (says, vibraslap))
            return pair (choices, 58, kNoNote);
        if (has (says, cuica))
            return isMute ? pair (choices, 78, 79) : pair (choices, 79, 78);
        if (has (says, cymbal))
            return pair (choices, 49, 57);
        return 0;
    }

    int cymbalChoices (const Words& words, std::span<int, 6> choices) noexcept
    {
        const auto says = words.says;
        if (has (says, cowbell) || (has (says, cow) && has (says, bell)))
            return pair (choices, 56, kNoNote);
        if (has (says, ride))
            return has (says, bell) ? pair (choices, 53, kNoNote) : words.number == 2 ? pair (choices, 59, 51)
                                                                                      : pair (choices, 51, 59);
        if (has (says, crash))
            return words.number == 2 ? pair (choices, 57, 49) : pair (choices, 49, 57);
        if (has (says, china))
            return pair (choices, 52, kNoNote);
        if (has (says, splash))
            return pair (choices, 55, kNoNote);
        return 0;
    }

    // The General MIDI percussion key map (channel 10), notes 35 to 81.
    constexpr const char* kDrumNames[] = { "Acoustic Bass Drum",
                                           "Bass Drum 1",
                                           "Side Stick",
                                           "Acoustic Snare",
                                           "Hand Clap",
                                           "Electric Snare",
                                           "Low Floor Tom",
                                           "Closed Hi-Hat",
                                           "High Floor Tom",
                                           "Pedal Hi-Hat",
                                           "Low Tom",
                                           "Open Hi-Hat",
                                           "Low-Mid Tom",
                                           "Hi-Mid Tom",
                                           "Crash Cymbal 1",
                                           "High Tom",
                                           "Ride Cymbal 1",
                                           "Chinese Cymbal",
                                           "Ride Bell",
                                           "Tambourine",
                                           "Splash Cymbal",
                                           "Cowbell",
                                           "Crash Cymbal 2",
                                           "Vibraslap",
                                           "Ride Cymbal 2",
                                           "Hi Bongo",
                                           "Low Bongo",
                                           "Mute Hi Conga",
                                           "Open Hi Conga",
                                           "Low Conga",
                                           "High Timbale",
                                           "Low Timbale",
                                           "High Agogo",
                                           "Low Agogo",
                                           "Cabasa",
                                           "Maracas",
                                           "Short Whistle",
                                           "Long Whistle",
                                           "Short Guiro",
                                           "Long Guiro",
                                           "Claves",
                                           "Hi Wood Block",
                                           "Low Wood Block",
                                           "Mute Cuica",
                                           "Open Cuica",
                                           "Mute Triangle",
                                           "Open Triangle" };
    constexpr int kFirstDrum = 35;

    constexpr const char* kPitchNames[] = { "C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B" };

    std::string_view trimmed (std::string_view text) noexcept
    {
        while (! text.empty() && (text.front() == ' ' || text.front() == '\t'))
            text.remove_prefix (1);
        while (! text.empty() && (text.back() == ' ' || text.back() == '\t'))
            text.remove_suffix (1);
        return text;
    }
} // namespace

int generalMidiDrumChoices (std::string_view label, std::span<int, 6> choices) noexcept
{
    const auto words = readWords (label);
    const auto says = words.says;
    if (says == 0 || has (says, noDrum))
        return 0;
    // The most specific piece first: "snare rim" is a rim shot, "ride bell" a bell, "hat pedal" a pedal hat.
    if (has (says, rim) || (has (says, stick) && ! has (says, drum)))
        return pair (choices, 37, kNoNote);
    if (has (says, kick) || (has (says, bass) && has (says, drum)))
        return pair (choices, 36, 35);
    if (has (says, hat))
        return pair (choices, has (says, pedal) ? 44 : has (says, open) ? 46
                                                                        : 42,
                     kNoNote);
    if (const int n = cymbalChoices (words, choices); n > 0)
        return n;
    if (has (says, tom) || has (says, floorTom) || has (says, rack))
        return tomChoices (words, choices);
    if (has (says, snare))
        return pair (choices, 38, 40);
    if (has (says, clap))
        return pair (choices, 39, kNoNote);
    return percussionChoices (says, choices);
}

int generalMidiDrumNote (std::string_view label) noexcept
{
    std::array<int, 6> choices {};
    return generalMidiDrumChoices (label, choices) > 0 ? choices[0] : kNoNote;
}

std::string_view generalMidiDrumName (int note) noexcept
{
    const int index = note - kFirstDrum;
    return index >= 0 && index < static_cast<int> (std::size (kDrumNames)) ? kDrumNames[index] : std::string_view();
}

std::string noteName (int note)
{
    if (note < 0 || note > 127)
        return {};
    return kPitchNames[note % 12] + std::to_string (note / 12 - 2);
}

std::string describeNote (int note)
{
    return note < 0 || note > 127 ? std::string ("none") : std::to_string (note) + " " + noteName (note);
}

std::optional<int> parseNote (std::string_view text)
{
    text = trimmed (text);
    if (text.empty() || text.size() > 5)
        return std::nullopt;
    if (std::all_of (text.begin(), text.end(), isDigit))
    {
        const int note = std::stoi (std::string (text));
        return note <= 127 ? std::optional<int> (note) : std::nullopt;
    }
    constexpr int kPitches[] = { 9, 11, 0, 2, 4, 5, 7 }; // A B C D E F G
    const char letter = lower (text.front());
    if (letter < 'a' || letter > 'g')
        return std::nullopt;
    int pitch = kPitches[letter - 'a'];
    text.remove_prefix (1);
    if (! text.empty() && (text.front() == '#' || text.front() == 'b'))
    {
        pitch += text.front() == '#' ? 1 : -1;
        text.remove_prefix (1);
    }
    const bool negative = ! text.empty() && text.front() == '-';
    if (negative)
        text.remove_prefix (1);
    if (text.empty() || text.size() > 1 || ! isDigit (text.front()))
        return std::nullopt;
    const int octave = (text.front() - '0') * (negative ? -1 : 1);
    const int note = (octave + 2) * 12 + pitch;
    return note >= 0 && note <= 127 ? std::optional<int> (note) : std::nullopt;
}

void resolveNotes (std::span<const std::string> labels, std::span<const int> chosen, int baseNote, std::span<int> notes, std::span<NoteOrigin> origins) noexcept
{
    const auto numClasses = notes.size();
    auto origin = [&] (std::size_t c, NoteOrigin value) {
        if (c < origins.size())
            origins[c] = value;
    };
    std::bitset<128> taken;
    // 1. The chosen notes, as chosen.
    for (std::size_t c = 0; c < numClasses; ++c)
    {
        const bool isChosen = c < chosen.size() && chosen[c] >= 0 && chosen[c] <= 127;
        notes[c] = isChosen ? chosen[c] : kNoNote;
        origin (c, isChosen ? NoteOrigin::chosen : NoteOrigin::none);
        if (isChosen)
            taken.set (static_cast<std::size_t> (chosen[c]));
    }
    // 2. The drum pieces the names say, in class order: the first of a piece keeps its note.
    for (std::size_t c = 0; c < numClasses && c < labels.size(); ++c)
    {
        if (notes[c] != kNoNote)
            continue;
        std::array<int, 6> choices {};
        const int count = generalMidiDrumChoices (labels[c], choices);
        for (int k = 0; k < count; ++k)
        {
            const int note = choices[static_cast<std::size_t> (k)];
            if (! taken.test (static_cast<std::size_t> (note)))
            {
                notes[c] = note;
                origin (c, NoteOrigin::generalMidi);
                taken.set (static_cast<std::size_t> (note));
                break;
            }
        }
    }
    // 3. The others: base + index, or the next note up that no class above plays; a taught
    // model's "unknown" (a hit or window no class claims) none: it is no piece to play.
    for (std::size_t c = 0; c < numClasses; ++c)
    {
        if (notes[c] != kNoNote || (c < labels.size() && labels[c] == kUnknownLabel))
            continue;
        const long long wanted = static_cast<long long> (baseNote) + static_cast<long long> (c);
        for (long long note = wanted; note >= 0 && note <= 127; ++note)
            if (! taken.test (static_cast<std::size_t> (note)))
            {
                notes[c] = static_cast<int> (note);
                origin (c, NoteOrigin::base);
                taken.set (static_cast<std::size_t> (note));
                break;
            }
    }
}

int NoteMap::noteOf (int classIndex) const noexcept
{
    if (classIndex < 0)
        return kNoNote;
    if (static_cast<std::size_t> (classIndex) < notes.size())
        return notes[static_cast<std::size_t> (classIndex)];
    const long long note = static_cast<long long> (baseNote) + classIndex;
    return note >= 0 && note <= 127 ? static_cast<int> (note) : kNoNote;
}

NoteMap noteMap (const std::vector<std::string>& labels, const std::vector<int>& chosen, int baseNote)
{
    NoteMap map;
    map.baseNote = baseNote;
    map.notes.resize (labels.size());
    map.origins.resize (labels.size());
    resolveNotes (labels, chosen, baseNote, map.notes, map.origins);
    return map;
}

std::pair<std::string, int> parseClassNote (std::string_view text)
{
    const auto equals = text.rfind ('=');
    const auto name = std::string (trimmed (text.substr (0, std::min (equals, text.size()))));
    if (equals == std::string_view::npos || name.empty())
        throw std::invalid_argument ("'" + std::string (text) + "' is not CLASS=NOTE (e.g. kick=36 or snare=D1)");
    const auto note = parseNote (text.substr (equals + 1));
    if (! note.has_value())
        throw std::invalid_argument (name + ": '" + std::string (trimmed (text.substr (equals + 1)))
                                     + "' is not a MIDI note: give 0-127 or a name such as C1 (36), D#1 or Eb1 (middle C, 60, is C3)");
    return { name, *note };
}

std::vector<std::pair<std::string, int>> parseClassNotes (std::string_view text)
{
    std::vector<std::pair<std::string, int>> pairs;
    std::size_t start = 0;
    while (start <= text.size())
    {
        const auto comma = std::min (text.find (',', start), text.size());
        if (! trimmed (text.substr (start, comma - start)).empty())
            pairs.push_back (parseClassNote (text.substr (start, comma - start)));
        start = comma + 1;
    }
    return pairs;
}

std::vector<int> withChosenNotes (std::vector<int> chosen, const std::vector<std::pair<std::string, int>>& pairs, const std::vector<std::string>& labels)
{
    chosen.resize (labels.size(), kNoNote);
    for (const auto& [name, note] : pairs)
    {
        const auto found = std::find (labels.begin(), labels.end(), name);
        if (found == labels.end())
        {
            std::string classes;
            for (const auto& label : labels)
                classes += (classes.empty() ? "" : ", ") + label;
            throw std::invalid_argument ("'" + name + "' is not a class of the model (its classes: " + classes + ")");
        }
        chosen[static_cast<std::size_t> (found - labels.begin())] = note;
    }
    return chosen;
}

std::vector<std::string> describeNoteMap (const std::vector<std::string>& labels, const NoteMap& map)
{
    std::vector<std::string> lines;
    for (std::size_t c = 0; c < labels.size(); ++c)
    {
        const int note = map.noteOf (static_cast<int> (c));
        auto line = labels[c] + " " + describeNote (note);
        switch (c < map.origins.size() ? map.origins[c] : NoteOrigin::none)
        {
            case NoteOrigin::chosen: line += " (chosen)"; break;
            case NoteOrigin::generalMidi: line += " (General MIDI: " + std::string (generalMidiDrumName (note)) + ")"; break;
            case NoteOrigin::base:
                line += " (base note " + std::to_string (map.baseNote) + " + class " + std::to_string (c)
                        + (note == map.baseNote + static_cast<int> (c) ? ")" : ", taken: the next free note)");
                break;
            case NoteOrigin::none: line += labels[c] == kUnknownLabel ? " (no piece: plays nothing)" : " (base note + class past 127)"; break;
        }
        lines.push_back (std::move (line));
    }
    return lines;
}

} // namespace sonotype::timeline
