#include "cli/ClassifyOutput.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sonotype::cli
{
namespace
{
    std::string number (double value, int decimals)
    {
        return timeline::csvNumber (value, decimals);
    }

    /** An embedding's number as the float it is (9 significant digits read back to the same float). */
    std::string exactNumber (float value, bool json)
    {
        if (! std::isfinite (value))
            return json ? "null" : "nan";
        char text[32];
        std::snprintf (text, sizeof text, "%.9g", static_cast<double> (value));
        return text;
    }

    std::string jsonWindowRow (const ClassifyOptions& options, const std::string& file, const std::vector<std::string>& labels, double startSeconds,
                               double endSeconds, const std::vector<float>& probabilities, std::size_t top, const WindowExtras& extras)
    {
        using timeline::jsonNumber, timeline::jsonString;
        std::string row = "{\"file\":" + jsonString (file) + ",\"start_s\":" + jsonNumber (startSeconds, 3) + ",\"end_s\":" + jsonNumber (endSeconds, 3);
        row += ",\"label\":" + jsonString (labels[top]) + ",\"confidence\":" + jsonNumber (probabilities[top], 6) + ",\"probabilities\":{";
        for (std::size_t c = 0; c < probabilities.size(); ++c)
            row += (c ? "," : "") + jsonString (labels[c]) + ":" + jsonNumber (probabilities[c], 6);
        row += "}";
        if (options.analysis.toEnd)
            row += std::string (",\"padded\":") + (extras.padded ? "true" : "false") + ",\"tail\":" + (extras.tail ? "true" : "false");
        if (options.embeddings)
        {
            row += ",\"embedding\":[";
            for (std::size_t i = 0; i < extras.embedding.size(); ++i)
                row += (i ? "," : "") + exactNumber (extras.embedding[i], true);
            row += "]";
        }
        return row + "}";
    }

    /** A JSON object of one number per class, by label. */
    template <typename Value>
    std::string jsonByLabel (const std::vector<std::string>& labels, Value&& value)
    {
        std::string text = "{";
        for (std::size_t c = 0; c < labels.size(); ++c)
            text += (c ? "," : "") + timeline::jsonString (labels[c]) + ":" + value (c);
        return text + "}";
    }

    std::string csvHeaderLine (const ClassifyOptions& options, const std::vector<std::string>& labels, int64_t embeddingSize, bool errorRows)
    {
        std::string header = options.summary  ? "file,label,share"
                             : options.onsets ? timeline::kHitColumns
                                              : timeline::kSegmentColumns;
        if (! options.segments)
            for (const auto& label : labels)
                header += "," + timeline::csvField (label);
        if (options.summary)
        {
            header += ",duration_s,windows";
            for (const auto& label : labels)
                header += "," + timeline::csvField ("mean_" + label);
        }
        else if (options.analysis.toEnd && ! options.segments && ! options.onsets)
            header += ",padded,tail";
        if (options.embeddings)
            for (int64_t i = 0; i < embeddingSize; ++i)
                header += ",embedding_" + std::to_string (i);
        if (errorRows)
            header += ",error";
        return header;
    }
} // namespace

std::size_t topClass (const std::vector<float>& probabilities)
{
    return static_cast<std::size_t> (std::max_element (probabilities.begin(), probabilities.end()) - probabilities.begin());
}

std::string windowRow (const ClassifyOptions& options, const std::string& file, const std::vector<std::string>& labels, double startSeconds,
                       double endSeconds, const std::vector<float>& probabilities, const WindowExtras& extras)
{
    const auto top = topClass (probabilities);
    if (options.json)
        return jsonWindowRow (options, file, labels, startSeconds, endSeconds, probabilities, top, extras);
    std::string row = timeline::csvField (file) + "," + number (startSeconds, 3) + "," + number (endSeconds, 3);
    row += "," + timeline::csvField (labels[top]) + "," + number (probabilities[top], 6);
    for (float p : probabilities)
        row += "," + number (p, 6);
    if (options.analysis.toEnd)
        row += std::string (extras.padded ? ",1" : ",0") + (extras.tail ? ",1" : ",0");
    if (options.embeddings)
        for (const float e : extras.embedding)
            row += "," + exactNumber (e, false);
    return row + "\n";
}

std::string summaryRow (const ClassifyOptions& options, const std::string& file, const std::vector<std::string>& labels,
                        const timeline::FileShares& shares, int64_t numWindows, const std::vector<double>& meanProbabilities)
{
    const bool named = shares.top >= 0;
    const auto top = static_cast<std::size_t> (std::max (shares.top, 0));
    const auto mean = [&] (std::size_t c) { return c < meanProbabilities.size() ? meanProbabilities[c] : 0.0; };
    if (options.json)
    {
        using timeline::jsonNumber;
        return "{\"file\":" + timeline::jsonString (file) + ",\"label\":" + (named ? timeline::jsonString (labels[top]) : "null")
               + ",\"share\":" + jsonNumber (named ? shares.share (top) : 0.0, 3)
               + ",\"shares\":" + jsonByLabel (labels, [&] (std::size_t c) { return jsonNumber (shares.share (c), 3); })
               + ",\"duration_s\":" + jsonNumber (shares.durationSeconds, 3) + ",\"windows\":" + std::to_string (numWindows)
               + ",\"mean_probabilities\":" + jsonByLabel (labels, [&] (std::size_t c) { return jsonNumber (mean (c), 6); }) + "}";
    }
    std::string row = timeline::csvField (file) + "," + (named ? timeline::csvField (labels[top]) : "") + "," + number (named ? shares.share (top) : 0.0, 3);
    for (std::size_t c = 0; c < labels.size(); ++c)
        row += "," + number (shares.share (c), 3);
    row += "," + number (shares.durationSeconds, 3) + "," + std::to_string (numWindows);
    for (std::size_t c = 0; c < labels.size(); ++c)
        row += "," + number (mean (c), 6);
    return row + "\n";
}

std::string segmentRow (const ClassifyOptions& options, const std::string& file, const std::vector<std::string>& labels,
                        const runtime::Segment& segment)
{
    return options.json ? timeline::segmentJsonRow (file, segment, labels) : timeline::segmentCsvRow (file, segment, labels);
}

std::string hitRow (const ClassifyOptions& options, const std::string& file, const std::vector<std::string>& labels, const timeline::Hit& hit)
{
    return options.json ? timeline::hitJsonRow (file, hit, labels) : timeline::hitCsvRow (file, hit, labels);
}

std::string csvHeader (const ClassifyOptions& options, const std::vector<std::string>& labels, int64_t embeddingSize)
{
    return csvHeaderLine (options, labels, embeddingSize, options.errorRows && ! options.exporting());
}

ClassifyOutput::ClassifyOutput (std::ostream& out, const ClassifyOptions& options, const std::vector<std::string>& labels, int64_t embeddingSize,
                                bool withHeader)
    : out_ (out), options_ (options), labels_ (labels), errorRows_ (options.errorRows && ! options.exporting())
{
    if (options.json)
        out_ << "[";
    else if (! options.exporting())
    {
        const auto header = csvHeaderLine (options, labels, embeddingSize, errorRows_);
        numColumns_ = static_cast<std::size_t> (std::count (header.begin(), header.end(), ',')) + 1;
        if (withHeader)
            out_ << header << "\n";
    }
}

void ClassifyOutput::row (std::string text)
{
    if (options_.json)
        out_ << (firstJsonRow_ ? "\n" : ",\n");
    else if (errorRows_)
        text.insert (text.size() - 1, ","); // an empty error column before the line's end
    out_ << text;
    firstJsonRow_ = false;
}

void ClassifyOutput::errorRow (const std::string& path, const std::string& message)
{
    if (! errorRows_)
        return;
    if (options_.json)
    {
        out_ << (firstJsonRow_ ? "\n" : ",\n") << "{\"file\":" << timeline::jsonString (path) << ",\"error\":" << timeline::jsonString (message) << "}";
        firstJsonRow_ = false;
    }
    else
        out_ << timeline::csvField (path) << std::string (numColumns_ - 1, ',') << timeline::csvField (message) << "\n";
}

void ClassifyOutput::fileExport (const std::string& file, const std::vector<runtime::Segment>& segments, const std::vector<timeline::Hit>& hits)
{
    const timeline::ExportSettings settings { file, options_.baseNote, options_.chosenNotes };
    out_ << (options_.onsets ? timeline::exportHits (options_.format, hits, labels_, settings)
                             : timeline::exportSegments (options_.format, segments, labels_, settings));
}

void ClassifyOutput::finish()
{
    if (options_.json)
        out_ << (firstJsonRow_ ? "]\n" : "\n]\n");
}

} // namespace sonotype::cli
