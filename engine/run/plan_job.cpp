#include "engine/run/plan_job.hpp"

#include <fmt/format.h>

#include "engine/source/decode_lanes.hpp"
#include "engine/base/errors.hpp"
#include "engine/source/image_sequence.hpp"
#include "engine/run/preflight.hpp"

namespace ladder::engine {

JobPlan make_plan(const JobOptions& options, ProgressSink& progress, std::stop_token stop) {
    CheckedSource checked = check_source_and_ladder(options, progress, stop);
    const SourceInfo& src = checked.info;
    check_encoders({options.encoder}, checked.ladder);
    JobPlan plan;
    plan.input = std::filesystem::absolute(options.input).lexically_normal();
    plan.image_sequence = options.frame_rate.has_value();
    if (checked.audio_input) plan.audio_file = std::filesystem::absolute(options.audio_file).lexically_normal();
    plan.source_bytes = input_bytes(options.input);
    plan.width = src.display_width;
    plan.height = src.display_height;
    plan.frame_rate = src.frame_rate;
    plan.segment_seconds = options.segment_seconds;
    plan.chunk_frames = checked.chunk_frames;
    plan.ladder = std::move(checked.ladder);
    plan.encoder = options.encoder;
    plan.preset = options.preset;
    plan.splice_check = options.splice_check;
    // Checked now (languages the source lacks are an error), encoded by `ladder stitch`.
    plan.audio = options.audio;
    if (select_audio(src.audio_tracks, options.audio, src.path).renditions.empty()) plan.audio.enabled = false;
    plan.subtitles = options.subtitles;
    if (select_subtitles(src.subtitle_tracks, options.subtitles, src.path).renditions.empty())
        plan.subtitles.enabled = false;

    // The frames exactly as a run makes them (same pump, no consumers).
    progress.note(NoteLevel::info, fmt::format("{}: decoding the source once to count its frames", src.path));
    DecodePump pump(*checked.input, src, {}, nullptr, progress);
    pump.run(stop);
    plan.frames = pump.counters().frames_normalized;
    plan.origin_pts = pump.counters().origin_pts;
    return plan;
}

JobPlan search_plan_budgets(JobPlan plan, const std::filesystem::path& workdir, const JobOptions& base,
                            ProgressSink& progress, std::stop_token stop) {
    plan.budget = true;  // in the fingerprint the search journals under
    plan.chunk_crf.clear();
    JobOptions options = shard_job_options(plan, workdir, ShardSpec{0, 1}, base);
    progress.note(NoteLevel::info, "--rate-control budget: searching each rung's quality over the whole source");
    const JobReport report = run_job(options, progress, stop);
    if (report.settled_chunk_crf.size() != plan.ladder.rungs.size())
        throw RunError(fmt::format("the budget search settled {} rungs of {}", report.settled_chunk_crf.size(),
                                   plan.ladder.rungs.size()));
    for (std::size_t r = 0; r < plan.ladder.rungs.size(); ++r) {
        const auto& crfs = report.settled_chunk_crf[r];
        if (static_cast<int>(crfs.size()) != plan.chunk_count())
            throw RunError(fmt::format("rung {}: the budget search settled {} chunks of {}", plan.ladder.rungs[r].name,
                                       crfs.size(), plan.chunk_count()));
        plan.chunk_crf.push_back(crfs);
    }
    return plan;
}

void check_source_matches_plan(const JobPlan& plan, const SourceInfo& src) {
    const auto bytes = input_bytes(plan.input);
    std::string differs;
    if (bytes != 0 && bytes != plan.source_bytes) differs = fmt::format("{} bytes, the plan says {}", bytes, plan.source_bytes);
    else if (src.display_width != plan.width || src.display_height != plan.height)
        differs = fmt::format("{}x{}, the plan says {}x{}", src.display_width, src.display_height, plan.width,
                              plan.height);
    else if (av_cmp_q(src.frame_rate, plan.frame_rate) != 0)
        differs = fmt::format("{}/{} fps, the plan says {}/{}", src.frame_rate.num, src.frame_rate.den,
                              plan.frame_rate.num, plan.frame_rate.den);
    if (!differs.empty())
        throw InputError(fmt::format("input {} is not the source that was planned ({}): make a new plan for it",
                                     plan.input.string(), differs));
}

JobOptions shard_job_options(const JobPlan& plan, const std::filesystem::path& workdir, ShardSpec shard,
                             JobOptions base) {
    base.input = plan.input;
    base.frame_rate = plan.input_frame_rate();
    base.audio_file.clear();  // a shard encodes no audio
    base.outdir = workdir;
    base.ladder = plan.ladder;
    base.encoder = plan.encoder;
    base.cpu_encoders.clear();
    base.preset = plan.preset;
    base.splice_check = plan.splice_check;
    base.segment_seconds = plan.segment_seconds;
    base.audio.enabled = false;
    base.subtitles.enabled = false;
    base.resume = false;
    base.overwrite = false;
    if (base.rate_mode == RateMode::budget && !plan.budget)
        throw InputError("--rate-control budget: this plan was made for vbr; the plan decides each chunk's quality, "
                         "so make it with ladder plan --rate-control budget");
    base.rate_mode = plan.budget ? RateMode::budget : RateMode::vbr;
    const auto [first, end] = shard_chunks(plan.chunk_count(), shard);
    base.shard = JobOptions::Shard{plan, shard, first, end};
    return base;
}

}  // namespace ladder::engine
