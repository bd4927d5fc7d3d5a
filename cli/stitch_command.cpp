#include "cli/stitch_command.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "cli/command_run.hpp"
#include "engine/output/output_formats.hpp"
#include "cli/run_report.hpp"
#include "cli/signal_stop.hpp"
#include "engine/base/errors.hpp"
#include "engine/output/output_lock.hpp"
#include "engine/run/stitch_job.hpp"

namespace ladder::cli {

CLI::App* add_stitch_command(CLI::App& app, StitchArgs& a) {
    CLI::App* cmd = app.add_subcommand(
        "stitch", "Assemble the outputs of a plan whose shards encoded every chunk into WORKDIR; names the chunks "
                  "that are missing or bad (exit 1) before writing anything");
    cmd->add_option("workdir", a.workdir, "The plan's work folder (holds plan.json and the shards' chunks)")
        ->required();
    cmd->add_option("-o,--output", a.outdir, "Output directory (created if missing)")->required();
    cmd->add_option("--format", a.format,
                    "Output packaging: a comma list of hls, dash and mp4 (both = hls,mp4), as for ladder encode")
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
    std::optional<CommandRun> run;
    try {
        run.emplace(a.progress, a.quiet);
    } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "ladder: error: {}\n", e.what());
        return 2;
    }
    // Held until the report is written; the plan's folder too, so no shard
    // writes into the journal while it is read.
    std::optional<engine::OutputLock> out_lock, work_lock;
    try {
        out_lock.emplace(engine::OutputLock::whole(a.outdir));
        if (!out_lock->holds(a.workdir)) work_lock.emplace(engine::OutputLock::whole(a.workdir));
        engine::StitchOptions o;
        o.workdir = a.workdir;
        o.outdir = a.outdir;
        o.overwrite = a.overwrite;
        o.formats = engine::parse_output_formats(a.format);
        const auto report_path = report_path_for(a.report, a.outdir);
        if (report_path) o.other_outputs.push_back(*report_path);
        engine::JobReport report = engine::stitch_job(o, run->progress(), signals.token());
        std::optional<std::string> written;
        if (report_path) {
            write_report(*report_path, report_json(report, true, ""), true);
            written = report_path->string();
        }
        run->succeed(report.wall_seconds, written);
        fmt::print("ladder: stitched {} rung{} from {} chunks in {:.1f} s ({} frames)\n", report.rungs.size(),
                   report.rungs.size() == 1 ? "" : "s", report.resumed_chunks, report.wall_seconds,
                   report.frames_normalized);
        print_rung_lines(report);
        return 0;
    } catch (...) {
        // Nothing in WORKDIR changed: the same command (with --overwrite if
        // OUTDIR has parts of this attempt) starts again from the chunks.
        return run->fail_with_current_exception(
            "stitching failed", interrupted_line(signals, "no output was left looking complete"), signals.exit_code());
    }
}

}  // namespace ladder::cli
