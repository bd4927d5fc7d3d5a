#include "cli/report_text.hpp"

#include <fmt/format.h>

namespace ladder::cli {
namespace {

std::string plural(std::size_t n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::string report_title(const ReportView& report) {
    return fmt::format("{} — wall {:.2f} s, {}, {}", report.input, report.wall_seconds,
                       plural(report.rungs.size(), "rung", "rungs"), plural(report.slots.size(), "slot", "slots"));
}

std::vector<std::string> report_notes(const ReportView& report) {
    std::vector<std::string> notes;
    if (!report.ok)
        notes.push_back(fmt::format("the run failed{}: {}", report.partial ? " (partial report)" : "",
                                    report.error.empty() ? "no error given" : report.error));
    if (!report.rate_control.empty())
        notes.push_back(fmt::format("rate control: {}{}", report.rate_control,
                                    report.source_passes && *report.source_passes > 1
                                        ? fmt::format(", {} passes over the source", *report.source_passes)
                                        : ""));
    // The report has the decode thread's busy time, not when it started and
    // ended (it also waits for room downstream), so it is a number, not a bar.
    if (report.decode_seconds)
        notes.push_back(fmt::format("decode: {:.2f} s busy{}", *report.decode_seconds,
                                    report.decode_device.empty() ? "" : " on " + report.decode_device));
    if (!report.retries.empty())
        notes.push_back(fmt::format("{}: not drawn (the report has no times for them)",
                                    plural(report.retries.size(), "failed attempt", "failed attempts")));
    if (report.chunks.empty()) notes.push_back("no chunks in this report");
    return notes;
}

std::string rung_summary(const ViewRung& rung) {
    std::string s = rung.name;
    if (rung.width && rung.height) s += fmt::format(" {}x{}", *rung.width, *rung.height);
    if (rung.bitrate_kbps) s += fmt::format("{} {} kb/s", rung.width && rung.height ? "," : "", *rung.bitrate_kbps);
    return s;
}

std::string crf_summary(const ViewRung& rung) {
    if (rung.chunk_crf.empty()) return {};
    const std::string crfs = crf_range(rung.chunk_crf);
    return rung.crf_verdict.empty() ? crfs : fmt::format("{} ({})", crfs, rung.crf_verdict);
}

std::string percent(double share) { return fmt::format("{:.0f}%", share * 100.0); }

std::string byte_size(std::uint64_t bytes) {
    if (bytes < 1000) return fmt::format("{} B", bytes);
    const double kb = static_cast<double>(bytes) / 1000.0;
    return kb < 10 ? fmt::format("{:.1f} kB", kb) : fmt::format("{:.0f} kB", kb);
}

}  // namespace ladder::cli
