#include "engine/plan_job.hpp"

#include <fmt/format.h>

#include "engine/decode_pump.hpp"
#include "engine/encoder_backend.hpp"
#include "engine/errors.hpp"
#include "gpu/cpu_info.hpp"

namespace ladder::engine {

JobPlan make_plan(const JobOptions& options, ProgressSink& progress, std::stop_token stop) {
    auto input = open_source(options.input);
    const SourceInfo src = describe_source(*input);
    JobPlan plan;
    plan.input = std::filesystem::absolute(options.input).lexically_normal();
    plan.source_bytes = std::filesystem::file_size(options.input);
    plan.width = src.display_width;
    plan.height = src.display_height;
    plan.frame_rate = src.frame_rate;
    plan.segment_seconds = options.segment_seconds;
    plan.chunk_frames = chunk_frames_for(options.segment_seconds, src.frame_rate);
    FittedLadder fitted = fit_to_source(options.ladder ? *options.ladder : default_ladder(), src.display_width,
                                        src.display_height);
    validate_ladder(fitted.ladder);
    for (const auto& n : fitted.notes) progress.note(options.ladder ? NoteLevel::warning : NoteLevel::info, n);
    plan.ladder = fitted.ladder;
    plan.encoder = options.encoder;
    if (!gpu::encoder_available(plan.encoder))
        throw InputError(fmt::format("encoder {} is not in this FFmpeg build: install one with it or pick another "
                                     "--encoder",
                                     plan.encoder));
    for (const auto& r : plan.ladder.rungs)
        if (auto problem = encoder_size_problem(plan.encoder, r.width, r.height); !problem.empty())
            throw InputError(fmt::format("rung {}: {}: make the rung larger or use --encoder aom", r.name, problem));
    plan.preset = options.preset;
    plan.splice_check = options.splice_check;
    plan.audio = options.audio && src.audio_stream >= 0;

    // The frames exactly as a run makes them (same pump, no consumers).
    progress.note(NoteLevel::info, fmt::format("{}: decoding the source once to count its frames", src.path));
    DecodePump pump(*input, src, {}, nullptr, progress);
    pump.run(stop);
    plan.frames = pump.counters().frames_normalized;
    plan.origin_pts = pump.counters().origin_pts;
    return plan;
}

void check_source_matches_plan(const JobPlan& plan, const SourceInfo& src) {
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(plan.input, ec);
    std::string differs;
    if (!ec && bytes != plan.source_bytes) differs = fmt::format("{} bytes, the plan says {}", bytes, plan.source_bytes);
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
    base.outdir = workdir;
    base.ladder = plan.ladder;
    base.encoder = plan.encoder;
    base.cpu_encoders.clear();
    base.preset = plan.preset;
    base.splice_check = plan.splice_check;
    base.segment_seconds = plan.segment_seconds;
    base.audio = false;
    base.resume = false;
    base.overwrite = false;
    const auto [first, end] = shard_chunks(plan.chunk_count(), shard);
    base.shard = JobOptions::Shard{plan, shard, first, end};
    return base;
}

}  // namespace ladder::engine
