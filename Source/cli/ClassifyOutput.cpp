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

    std::string jsonProbabilityRow (const ClassifyOptions& options, const std::string& file, const std::vector<std::string>& labels,
                                    const double* times, const std::vector<float>& probabilities, std::size_t top, const RowEnd& end)
    {
        using timeline::jsonNumber, timeline::jsonString;
        std::string row = "{\"file\":" + jsonString (file);
        if (times != nullptr)
            row += ",\"start_s\":" + jsonNumber (times[0], 3) + ",\"end_s\":" + jsonNumber (times[1], 3);
        row += ",\"label\":" + jsonString (labels[top]) + ",\"confidence\":" + jsonNumber (probabilities[top], 6) + ",\"probabilities\":{";
        for (std::size_t c = 0; c < probabilities.size(); ++c)
            row += (c ? "," : "") + jsonString (labels[c]) + ":" + jsonNumber (probabilities[c], 6);
        row += "}";
        if (options.toEnd && times != nullptr)
            row += std::string (",\"padded\":") + (end.padded ? "true" : "false") + ",\"tail\":" + (end.tail ? "true" : "false");
        else if (options.toEnd)
            row += ",\"duration_s\":" + jsonNumber (end.durationSeconds, 3) + ",\"windows\":" + std::to_string (end.numWindows);
        if (options.embeddings && times != nullptr)
        {
            row += ",\"embedding\":[";
            for (std::size_t i = 0; i < end.embedding.size(); ++i)
                row += (i ? "," : "") + exactNumber (end.embedding[i], true);
            row += "]";
        }
        return row + "}";
    }

    std::string csvHeader (const ClassifyOptions& options, const std::vector<std::string>& labels, int64_t embeddingSize, bool errorRows)
    {
        std::string header = options.summary  ? "file,label,confidence"
                             : options.onsets ? timeline::kHitColumns
                                              : timeline::kSegmentColumns;
        if (! options.segments)
            for (const auto& label : labels)
                header += "," + timeline::csvField (label);
        if (options.toEnd && ! options.segments)
            header += options.summary ? ",duration_s,windows" : ",padded,tail";
        if (options.embeddings)
            for (int64_t i = 0; i < embeddingSize; ++i)
                header += ",embedding_" + std::to_string (i);
        if (errorRows)
            header += ",error";
        return header;
    }
} // namespace

std::string probabilityRow (const ClassifyOptions& options, const std::string& file, const std::vector<std::string>& labels, const double* times,
                            const std::vector<float>& probabilities, const RowEnd& end)
{
    const auto top = static_cast<std::size_t> (std::max_element (probabilities.begin(), probabilities.end()) - probabilities.begin());
    if (options.json)
        return jsonProbabilityRow (options, file, labels, times, probabilities, top, end);
    std::string row = timeline::csvField (file);
    if (times != nullptr)
        row += "," + number (times[0], 3) + "," + number (times[1], 3);
    row += "," + timeline::csvField (labels[top]) + "," + number (probabilities[top], 6);
    for (float p : probabilities)
        row += "," + number (p, 6);
    if (options.toEnd && times != nullptr)
        row += std::string (end.padded ? ",1" : ",0") + (end.tail ? ",1" : ",0");
    else if (options.toEnd)
        row += "," + number (end.durationSeconds, 3) + "," + std::to_string (end.numWindows);
    if (options.embeddings && times != nullptr)
        for (const float e : end.embedding)
            row += "," + exactNumber (e, false);
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

ClassifyOutput::ClassifyOutput (std::ostream& out, const ClassifyOptions& options, const std::vector<std::string>& labels, int64_t embeddingSize)
    : out_ (out), options_ (options), labels_ (labels), errorRows_ (options.errorRows && ! options.exporting())
{
    if (options.json)
        out_ << "[";
    else if (! options.exporting())
    {
        const auto header = csvHeader (options, labels, embeddingSize, errorRows_);
        numColumns_ = static_cast<std::size_t> (std::count (header.begin(), header.end(), ',')) + 1;
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

void ClassifyOutput::fileExport (const std::vector<runtime::Segment>& segments, const std::vector<timeline::Hit>& hits)
{
    const timeline::ExportSettings settings { {}, options_.baseNote };
    out_ << (options_.onsets ? timeline::exportHits (options_.format, hits, labels_, settings)
                             : timeline::exportSegments (options_.format, segments, labels_, settings));
}

void ClassifyOutput::finish()
{
    if (options_.json)
        out_ << (firstJsonRow_ ? "]\n" : "\n]\n");
}

} // namespace sonotype::cli
