#include "cli/command_run.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include "cli/rate_note.hpp"
#include "cli/report_text.hpp"
#include "engine/base/errors.hpp"

namespace ladder::cli {

std::optional<engine::LadderSpec> ladder_from_arguments(const std::string& ladder_file,
                                                        const std::vector<std::string>& rungs) {
    if (!ladder_file.empty()) return engine::load_ladder_file(ladder_file);
    if (rungs.empty()) return std::nullopt;
    engine::LadderSpec spec;
    for (const auto& r : rungs) spec.rungs.push_back(engine::parse_rung_argument(r));
    engine::validate_ladder(spec);
    return spec;
}

namespace {

// "  CRF 19-21": the constant quality a rung's chunks were encoded at
// (budget's search, or the ladder's `crf`); none for a rate.
std::string crf_text(const engine::RungReport& r) {
    if (!r.chunk_crf.empty()) return "  CRF " + crf_range(r.chunk_crf);
    return r.crf >= 0 ? fmt::format("  CRF {}", r.crf) : "";
}

}  // namespace

void print_rung_lines(const engine::JobReport& report) {
    for (const auto& r : report.rungs) {
        const double seconds = report.frame_rate > 0 ? r.frames / report.frame_rate : 0.0;
        std::string quality;
        if (r.quality_mean && !report.quality_metric.empty()) {
            const bool db = report.quality_metric != "ssim";
            quality = fmt::format("  {} {:.{}f}{} (lowest chunk {:.{}f})", report.quality_metric, *r.quality_mean,
                                  db ? 2 : 4, db ? " dB" : "", r.quality_min.value_or(0), db ? 2 : 4);
        }
        fmt::print("  {:>6}  {}x{}  {} frames  {:.0f} kb/s{}{}{}  {}\n", r.name, r.width, r.height, r.frames,
                   seconds > 0 ? r.video_bytes * 8.0 / 1000.0 / seconds : 0.0, rate_note(r, report.frame_rate),
                   crf_text(r), quality, r.output);
    }
}

CommandRun::CommandRun(const std::string& progress, bool quiet)
    : renderer_(make_progress_renderer(
          resolve_progress_mode(progress, ::isatty(STDERR_FILENO) == 1, std::getenv("TERM")), stderr, quiet)) {}

double CommandRun::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

int CommandRun::succeed(double wall_seconds, std::optional<std::string> report_path) {
    renderer_->finish(RunOutcome{0, "", "", wall_seconds, std::move(report_path)});
    return 0;
}

int CommandRun::end(int code, const std::string& error, std::string message) {
    renderer_->finish(RunOutcome{code, error, std::move(message), seconds(), std::nullopt});
    return code;
}

int CommandRun::fail_with_current_exception(const std::string& failed, const std::string& interrupted,
                                            int interrupted_code) {
    try {
        throw;
    } catch (const engine::InputError& e) {
        return end(2, e.what(), fmt::format("ladder: error: {}", e.what()));
    } catch (const std::invalid_argument& e) {
        return end(2, e.what(), fmt::format("ladder: error: {}", e.what()));
    } catch (const engine::Cancelled&) {
        return end(interrupted_code, "interrupted", interrupted);
    } catch (const std::exception& e) {
        return end(1, e.what(), fmt::format("ladder: error: {}: {}", failed, e.what()));
    }
}

}  // namespace ladder::cli
