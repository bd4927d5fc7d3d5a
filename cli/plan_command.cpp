#include "cli/plan_command.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "cli/command_run.hpp"
#include "cli/input_options.hpp"
#include "cli/signal_stop.hpp"
#include "engine/base/errors.hpp"
#include "engine/output/output_lock.hpp"
#include "engine/output/output_paths.hpp"
#include "engine/run/plan_job.hpp"
#include "gpu/cpu_info.hpp"

namespace ladder::cli {

CLI::App* add_plan_command(CLI::App& app, PlanArgs& a) {
    CLI::App* cmd = app.add_subcommand(
        "plan", "Plan INPUT for encoding on many machines: WORKDIR/plan.json (ladder, chunk boundaries, source "
                "fingerprint, encoder settings); then `ladder encode --plan WORKDIR/plan.json --shard I/N` on each "
                "machine and `ladder stitch WORKDIR -o OUTDIR`");
    cmd->add_option("input", a.input,
                    "Source video file, or an image sequence's printf pattern (with --frame-rate), at a path every "
                    "machine sees (stored absolute)")
        ->required();
    add_frame_rate_option(*cmd, a.frame_rate);
    add_audio_file_option(*cmd, a.audio_file)->description(
        "Take the audio from FILE instead of INPUT's own, as for ladder encode (stored absolute: ladder stitch reads "
        "it)");
    cmd->add_option("-o,--output", a.workdir, "Work folder on a volume every machine shares (created if missing)")
        ->required();
    auto* ladder = cmd->add_option("--ladder", a.ladder_file, "Ladder preset JSON, as for ladder encode");
    auto* rung = cmd->add_option("--rung", a.rungs, "A rung NAME=WxH@KBPS, repeatable, as for ladder encode");
    ladder->excludes(rung);
    cmd->add_option("--encoder", a.encoder, "CPU AV1 encoder every shard uses: svt (SVT-AV1) or aom (libaom)")
        ->check(CLI::IsMember({"svt", "aom"}))
        ->capture_default_str();
    cmd->add_option("--preset", a.preset, "Encoder speed preset, as for ladder encode")->check(CLI::Range(-1, 13));
    cmd->add_option("--segment-seconds", a.segment_seconds,
                    "Chunk (and segment) length in seconds; the plan's chunks are what shards share out")
        ->capture_default_str();
    cmd->add_option("--audio", a.audio,
                    "As for ladder encode (aac, aac:LANG[,LANG...] or none); ladder stitch encodes the audio")
        ->capture_default_str();
    cmd->add_option("--subtitles", a.subtitles,
                    "As for ladder encode (all, LANG[,LANG...] or none); ladder stitch converts them")
        ->capture_default_str();
    cmd->add_option("--splice-check", a.splice_check, "How chunks of one rung must agree, as for ladder encode")
        ->check(CLI::IsMember({"strict", "config"}))
        ->capture_default_str();
    cmd->add_option("--rate-control", a.rate_control,
                    "vbr = each shard's sessions at a share of the rate; budget = each rung's constant quality "
                    "(SVT-AV1 CRF per chunk) searched here over the whole source, as ladder encode does, and stored "
                    "in the plan (the search's chunks stay in WORKDIR, where the shards find them)")
        ->check(CLI::IsMember({"vbr", "budget"}))
        ->capture_default_str();
    cmd->add_flag("--overwrite", a.overwrite,
                  "Replace a plan already in WORKDIR, and remove the chunks encoded for it");
    cmd->add_flag("-q,--quiet", a.quiet, "Print only warnings, errors and the result");
    cmd->add_option("--progress", a.progress, "Progress on stderr: auto, bars, plain, json or none")
        ->check(CLI::IsMember({"auto", "bars", "plain", "json", "none"}))
        ->capture_default_str();
    return cmd;
}

int run_plan(const PlanArgs& a) {
    SignalStop signals;
    std::optional<CommandRun> run;
    try {
        run.emplace(a.progress, a.quiet);
    } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "ladder: error: {}\n", e.what());
        return 2;
    }
    try {
        const std::filesystem::path workdir = a.workdir;
        const auto plan_file = workdir / engine::kPlanFileName;
        engine::refuse_outputs_over_inputs(workdir, engine::ladder_own_names(), {a.input, a.audio_file}, {});
        // One run per folder: shards of an older plan, or another plan, may be at work there.
        const engine::OutputLock lock = engine::OutputLock::whole(workdir);
        std::error_code ec;
        if (std::filesystem::exists(plan_file, ec) && !a.overwrite)
            throw engine::InputError(fmt::format("{} already holds a plan: use another folder, or --overwrite to "
                                                 "replace it (and the chunks encoded for it)",
                                                 workdir.string()));
        engine::JobOptions o;
        o.input = a.input;
        o.ladder = ladder_from_arguments(a.ladder_file, a.rungs);
        o.encoder = gpu::cpu_encoder_name(a.encoder);
        o.preset = a.preset;
        o.segment_seconds = a.segment_seconds;
        o.audio = engine::parse_audio_choice(a.audio);
        o.subtitles = engine::parse_subtitle_choice(a.subtitles);
        set_input_options(o, a.frame_rate, a.audio_file, a.audio);
        o.splice_check = a.splice_check == "config" ? mux::SpliceCheck::config : mux::SpliceCheck::strict;
        engine::JobPlan plan = engine::make_plan(o, run->progress(), signals.token());
        // A new plan's chunks would not match the old ones: they go.
        if (a.overwrite) lock.folder().remove_tree(".ladder");
        if (a.rate_control == "budget") {
            o.rate_mode = engine::RateMode::budget;
            // As ladder encode runs them: a crash in an encoder (SVT-AV1's
            // start-up race, docs/hardening.md) costs a chunk, not the plan.
            o.isolation = engine::EncoderIsolation::process;
            plan = engine::search_plan_budgets(std::move(plan), workdir, o, run->progress(), signals.token());
        }
        engine::write_plan(plan, workdir);
        run->succeed(run->seconds());
        fmt::print("ladder: planned {} frames ({:.2f} s at {:.3f} fps) of {}: {} rung(s) x {} chunk(s) of {} frames; "
                   "{}\n",
                   plan.frames, static_cast<double>(plan.frames) * av_q2d(av_inv_q(plan.frame_rate)),
                   av_q2d(plan.frame_rate), plan.input.string(), plan.ladder.rungs.size(), plan.chunk_count(),
                   plan.chunk_frames,
                   plan.budget ? "rate control budget (each chunk's CRF searched here, as ladder encode's default)"
                               : "rate control vbr (one-pass VBR in every shard; --rate-control budget searches "
                                 "each rung's quality here, as ladder encode does by default)");
        fmt::print("  plan: {}\n  next: ladder encode --plan {} --shard I/N  (each I in 0..N-1, on any machines), "
                   "then: ladder stitch {} -o OUTDIR\n",
                   plan_file.string(), plan_file.string(), workdir.string());
        return 0;
    } catch (...) {
        return run->fail_with_current_exception("planning failed", interrupted_line(signals, "no plan was written"),
                                                signals.exit_code());
    }
}

}  // namespace ladder::cli
