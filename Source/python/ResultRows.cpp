#include "python/ResultRows.h"

namespace py = pybind11;

namespace sonotype::python
{
namespace
{
    /** A class's label as the rows write it ("?" for none, as timeline's rows do). */
    std::string labelOf (int classIndex, const std::vector<std::string>& labels)
    {
        return classIndex >= 0 && classIndex < static_cast<int> (labels.size()) ? labels[static_cast<std::size_t> (classIndex)] : "?";
    }

    template <typename Number>
    void addByLabel (py::dict& row, const std::vector<std::string>& labels, const std::string& prefix, const std::vector<Number>& values)
    {
        for (std::size_t c = 0; c < labels.size() && c < values.size(); ++c)
            row[py::str (prefix + labels[c])] = static_cast<double> (values[c]);
    }

    py::dict windowRow (const cli::WindowResultRow& window, const cli::ClassifyOptions& options, const py::object& file,
                        const std::vector<std::string>& labels)
    {
        const auto top = cli::topClass (window.probabilities);
        py::dict row;
        row["file"] = file;
        row["start_s"] = window.startSeconds;
        row["end_s"] = window.endSeconds;
        row["label"] = labels[top];
        row["confidence"] = static_cast<double> (window.probabilities[top]);
        addByLabel (row, labels, "", window.probabilities);
        if (options.analysis.toEnd)
        {
            row["padded"] = window.padded;
            row["tail"] = window.tail;
        }
        for (std::size_t i = 0; i < window.embedding.size(); ++i)
            row[py::str ("embedding_" + std::to_string (i))] = static_cast<double> (window.embedding[i]);
        return row;
    }

    py::dict summaryRow (const cli::FileSummary& summary, const py::object& file, const std::vector<std::string>& labels)
    {
        const auto& shares = summary.shares;
        const bool named = shares.top >= 0;
        py::dict row;
        row["file"] = file;
        row["label"] = named ? py::object (py::str (labels[static_cast<std::size_t> (shares.top)])) : py::object (py::none());
        row["share"] = named ? shares.share (static_cast<std::size_t> (shares.top)) : 0.0;
        for (std::size_t c = 0; c < labels.size(); ++c)
            row[py::str (labels[c])] = shares.share (c);
        row["duration_s"] = shares.durationSeconds;
        row["windows"] = summary.numWindows;
        std::vector<double> means (labels.size(), 0.0); // a class the mean lacks: 0, as the CSV says
        std::copy_n (summary.meanProbabilities.begin(), std::min (means.size(), summary.meanProbabilities.size()), means.begin());
        addByLabel (row, labels, "mean_", means);
        return row;
    }

    py::dict segmentRow (const runtime::Segment& segment, const py::object& file, const std::vector<std::string>& labels)
    {
        py::dict row;
        row["file"] = file;
        row["start_s"] = segment.startSeconds;
        row["end_s"] = segment.endSeconds;
        row["label"] = labelOf (segment.classIndex, labels);
        row["confidence"] = static_cast<double> (segment.confidence);
        return row;
    }

    py::dict hitRow (const timeline::Hit& hit, const py::object& file, const std::vector<std::string>& labels)
    {
        py::dict row;
        row["file"] = file;
        row["time_s"] = hit.seconds;
        row["label"] = labelOf (hit.classIndex, labels);
        row["confidence"] = static_cast<double> (hit.confidence);
        row["level_db"] = static_cast<double> (hit.levelDb);
        addByLabel (row, labels, "", hit.probabilities);
        return row;
    }
} // namespace

py::list resultRows (const cli::FileOutcome& outcome, const cli::ClassifyOptions& options, const py::object& file,
                     const std::vector<std::string>& labels)
{
    py::list rows;
    for (const auto& window : outcome.windows)
        rows.append (windowRow (window, options, file, labels));
    if (outcome.summary.has_value())
        rows.append (summaryRow (*outcome.summary, file, labels));
    for (const auto& segment : outcome.segments)
        rows.append (segmentRow (segment, file, labels));
    for (const auto& hit : outcome.hits)
        rows.append (hitRow (hit, file, labels));
    return rows;
}

} // namespace sonotype::python
