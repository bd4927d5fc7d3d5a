#include "cli/stitch_command.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "cli/progress_renderer.hpp"
#include "cli/run_report.hpp"
#include "cli/signal_stop.hpp"
#include "engine/errors.hpp"
#include "engine/stitch_job.hpp"

namespace ladder::cli {

CLI::App* add_stitch_command(CLI::App& app, StitchArgs& a) {
    CLI::App* cmd = app.add_subcommand(
        "stitch", "Assemble the outputs of a plan whose shards encoded every chunk into WORKDIR; names the chunks "
                  "that are missing or bad (exit 1) before writing anything");
    cmd->add_option("workdir", a.workdir, "The plan's work folder (holds plan.json and the shards' chunks)")
        ->required();
    cmd->add_option("-o,--output", a.outdir, "Output directory (created if missing)")->required();
    cmd->add_option("--format", a.format, "Output packaging: hls, mp4 or both, as for ladder encode")
        ->check(CLI::IsMember({"hls", "mp4", "both"}))
        ->capture_default_str();
    cmd->add_flag("--overwrite", a.overwrite, "Replace outputs that already exist in OUTDIR");
    cmd->add_flag("-q,--quiet", a.quiet, "Print only warnings, errors and the result");
    cmd->add_option("--progress", a.progress, "Progress on stderr: auto, bars, plain, json or none")
        ->check(CLI::IsMember({"auto", "bars", "plain", "json", "none"}))
        ->capture_default_str();
    cmd->add_option("--report", a.report, "Write the report (JSON) to FILE; default OUTDIR/report.json; none = no report")
        ->type_name("FILE|none");
    return cmd;
}

int run_stitch(const StitchArgs& a) {
    SignalStop signals;
    const auto started = std::chrono::steady_clock::now();
    ProgressMode mode;
    try {
        mode = resolve_progress_mode(a.progress, ::isatty(STDERR_FILENO) == 1, std::getenv("TERM"));
    } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "ladder: error: {}\n", e.what());
        return 2;
    }
    auto renderer = make_progress_renderer(mode, stderr, a.quiet);
    auto end = [&](int code, const std::string& error, std::string message) {
        renderer->finish(RunOutcome{code, error, std::move(message),
                                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
                                    std::nullopt});
        return code;
    };
    try {
        engine::StitchOptions o;
        o.workdir = a.workdir;
        o.outdir = a.outdir;
        o.overwrite = a.overwrite;
        o.format = a.format == "mp4"    ? engine::OutputFormat::mp4
                   : a.format == "both" ? engine::OutputFormat::both
                                        : engine::OutputFormat::hls;
        const auto report_path = report_path_for(a.report, a.outdir);
        engine::JobReport report = engine::stitch_job(o, *renderer, signals.token());
        std::optional<std::string> written;
        if (report_path) {
            write_report(*report_path, report_json(report, true, ""), true);
            written = report_path->string();
        }
        renderer->finish(RunOutcome{0, "", "", report.wall_seconds, written});
        fmt::print("ladder: stitched {} rung{} from {} chunks in {:.1f} s ({} frames)\n", report.rungs.size(),
                   report.rungs.size() == 1 ? "" : "s", report.resumed_chunks, report.wall_seconds,
                   report.frames_normalized);
        for (const auto& r : report.rungs) {
            const double seconds = report.frame_rate > 0 ? r.frames / report.frame_rate : 0.0;
            fmt::print("  {:>6}  {}x{}  {} frames  {:.0f} kb/s  {}\n", r.name, r.width, r.height, r.frames,
                       seconds > 0 ? r.video_bytes * 8.0 / 1000.0 / seconds : 0.0, r.output);
        }
        return 0;
    } catch (const engine::InputError& e) {
        return end(2, e.what(), fmt::format("ladder: error: {}", e.what()));
    } catch (const std::invalid_argument& e) {
        return end(2, e.what(), fmt::format("ladder: error: {}", e.what()));
    } catch (const engine::Cancelled&) {
        return end(130, "interrupted", "ladder: interrupted; no output was left looking complete");
    } catch (const std::exception& e) {
        // Nothing in WORKDIR changed: the same command (with --overwrite if
        // OUTDIR has parts of this attempt) starts again from the chunks.
        return end(1, e.what(), fmt::format("ladder: error: stitching failed: {}", e.what()));
    }
}

}  // namespace ladder::cli
