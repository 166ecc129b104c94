// What `sonotype classify` writes to stdout (or --output): the rows of each file (windows, a
// summary, segments or hits) in CSV or JSON, error rows, or one file's export (Audacity, REAPER,
// MIDI: timeline::exportSegments and exportHits, the app's Export... too). Segment and hit rows are
// timeline's (TimelineExport.h), shared with the app; window and summary rows are the CLI's alone
// (a summary's label and shares are timeline::fileShares').
// One thread: classify's, which writes each file's rows in file order.
#pragma once

#include "cli/ClassifyOptions.h"

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace sonotype::cli
{

/** What a window's row carries beyond its times and probabilities. */
struct WindowExtras
{
    bool padded = false, tail = false;   // the file's true end (the default; not with --grid): columns padded, tail
    std::span<const float> embedding {}; // --embeddings: the window's
};

/** A window's label: its most probable class (the first on a tie). */
std::size_t topClass (const std::vector<float>& probabilities);

/** A window's row: its start and end, the top class, the probabilities; CSV (a line) or JSON (an
    object), as the options say. */
std::string windowRow (const ClassifyOptions& options, const std::string& file, const std::vector<std::string>& labels, double startSeconds,
                       double endSeconds, const std::vector<float>& probabilities, const WindowExtras& extras = {});

/** A file's summary row: the label by time (timeline::fileShares), its share, each class's share,
    the duration and number of windows, then the mean probability of each class over the windows. */
std::string summaryRow (const ClassifyOptions& options, const std::string& file, const std::vector<std::string>& labels,
                        const timeline::FileShares& shares, int64_t numWindows, const std::vector<double>& meanProbabilities);

/** A segment's or a hit's row, CSV or JSON (timeline's rows). */
std::string segmentRow (const ClassifyOptions& options, const std::string& file, const std::vector<std::string>& labels,
                        const runtime::Segment& segment);
std::string hitRow (const ClassifyOptions& options, const std::string& file, const std::vector<std::string>& labels, const timeline::Hit& hit);

/** The CSV header line classify writes for these options (no line break). */
std::string csvHeader (const ClassifyOptions& options, const std::vector<std::string>& labels, int64_t embeddingSize);

/** The output stream as classify fills it: the CSV header (or JSON's opening bracket) when made,
    then rows and error rows in order, then finish(). An export format (Audacity, REAPER, MIDI) has
    no header and no rows: each file's export goes out whole. */
class ClassifyOutput
{
public:
    /** withHeader false: no CSV header, the rows of a part of an output gathered elsewhere (the
        header then comes from csvHeader()). */
    ClassifyOutput (std::ostream& out, const ClassifyOptions& options, const std::vector<std::string>& labels, int64_t embeddingSize,
                    bool withHeader = true);

    /** Audacity, REAPER or MIDI: one file's export instead of rows. */
    bool exporting() const noexcept { return options_.exporting(); }

    /** One formatted row (CSV: a line; JSON: an object). */
    void row (std::string text);
    /** A file or folder that could not be classified: a row with its error (not in an export format). */
    void errorRow (const std::string& path, const std::string& message);
    /** One file's segments or hits in the export format (MIDI: its track named after `file`, its
        notes the options' chosen notes over the note map). */
    void fileExport (const std::string& file, const std::vector<runtime::Segment>& segments, const std::vector<timeline::Hit>& hits);
    /** JSON's closing bracket. */
    void finish();

private:
    std::ostream& out_;
    const ClassifyOptions& options_;
    const std::vector<std::string>& labels_;
    bool errorRows_ = false;
    std::size_t numColumns_ = 0; // CSV
    bool firstJsonRow_ = true;
};

} // namespace sonotype::cli
