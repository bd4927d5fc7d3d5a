#pragma once
// `ladder report` reads a report.json (docs/progress-json.md, "The report")
// back into the few things its pictures and tables show. Both kinds of
// report are accepted: a successful run's and the partial one of a failed
// run, which lacks rung sizes, target rates and measured rates (those stay
// empty here). Anything else — not JSON, a missing key, a wrong type, a chunk
// pointing at a rung or slot the report does not list — is a ReportError.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ladder::cli {

// What is wrong with a report, for one error line ("no 'chunks' array").
class ReportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ViewRung {
    std::string name;
    std::optional<std::int64_t> width, height;  // absent in a partial report
    std::optional<std::int64_t> bitrate_kbps;   // target; absent in a partial report
    std::optional<double> average_kbps;         // measured; absent in a partial report
    std::int64_t chunks = 0;
    std::int64_t frames = 0;
    double encode_fps = 0;
    std::vector<std::string> slots;  // labels of the slots that encoded it
    // Constant quality: each chunk's CRF (budget's search) or the ladder's
    // one CRF; empty for a rate. crf_verdict: how budget's search ended.
    std::vector<std::int64_t> chunk_crf;
    std::string crf_verdict;
};

struct ViewSlot {
    std::string label;    // "cpu0:svt", "gpu0:nvenc"
    std::string encoder;  // empty in a partial report
    std::int64_t chunks = 0;
    double busy_share = 0;  // busy seconds / wall seconds
    std::int64_t failures = 0;
    bool quarantined = false;
};

struct ViewChunk {
    std::size_t rung = 0;    // index into ReportView::rungs
    std::int64_t index = 0;  // chunk number within the rung
    std::size_t slot = 0;  // index into ReportView::slots
    std::int64_t frames = 0;
    std::uint64_t bytes = 0;
    double start_seconds = 0;  // since the run started
    double end_seconds = 0;
};

// A failed attempt. The report gives no times for these.
struct ViewRetry {
    std::string rung;
    std::int64_t chunk = 0;
    std::string slot;
    std::string error;
    std::string cause;  // error, crash, hang; empty in reports written before causes were recorded
};

struct ReportView {
    std::string input;
    bool ok = true;
    bool partial = false;
    std::string error;  // what went wrong, for a failed run
    double wall_seconds = 0;
    std::optional<double> decode_seconds;  // busy time of the decode, not a span
    std::string decode_device;
    std::string rate_control;                     // "budget", "vbr"; empty in older reports
    std::optional<std::int64_t> source_passes;    // passes over the source (budget: more than 1)
    std::vector<ViewRung> rungs;
    std::vector<ViewSlot> slots;
    std::vector<ViewChunk> chunks;  // in report order
    std::vector<ViewRetry> retries;
};

// Checks and converts a parsed report. Throws ReportError.
ReportView report_view_from_json(const nlohmann::json& report);

// Parses JSON text, then report_view_from_json. Throws ReportError.
ReportView parse_report(std::string_view text);

// Reads the file and parses it. Throws ReportError (without the file name:
// the caller names the file).
ReportView read_report(const std::filesystem::path& path);

}  // namespace ladder::cli
