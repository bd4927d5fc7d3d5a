#include "engine/run/preflight.hpp"

#include <fmt/format.h>

#include "engine/media/audio_segment_plan.hpp"
#include "engine/run/audio_file.hpp"
#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/base/errors.hpp"
#include "engine/run/plan_job.hpp"
#include "gpu/cpu_info.hpp"

namespace ladder::engine {

CheckedSource check_source_and_ladder(const JobOptions& options, ProgressSink& progress, std::stop_token stop) {
    CheckedSource checked;
    checked.input = open_source(options.input, options.frame_rate, stop);
    checked.info = describe_source(*checked.input);
    repair_timeline(checked.input, checked.info);
    read_source_hdr(checked.info);
    if (!options.audio_file.empty() && options.audio.enabled)
        checked.audio_input = open_audio_file(options.audio_file, checked.info, stop);
    if (options.shard) check_source_matches_plan(options.shard->plan, checked.info);
    checked.chunk_frames = options.shard ? options.shard->plan.chunk_frames
                                         : chunk_frames_for(options.segment_seconds, checked.info.frame_rate);
    if (!options.shard)  // a shard's plan was checked when it was made
        check_segments_hold_aac_frames(
            select_audio(checked.info.audio_tracks, options.audio, checked.info.path).renditions,
            checked.chunk_frames, checked.info.frame_rate);
    FittedLadder fitted = fit_to_source(options.ladder ? *options.ladder : default_ladder(),
                                        checked.info.display_width, checked.info.display_height);
    validate_ladder(fitted.ladder);
    // Trimming the default ladder is expected; trimming the user's own is worth a warning.
    for (const auto& n : fitted.notes) progress.note(options.ladder ? NoteLevel::warning : NoteLevel::info, n);
    checked.ladder = std::move(fitted.ladder);
    // Nothing is written and no thread started yet: a stop now leaves nothing.
    if (stop.stop_requested()) throw Cancelled();
    return checked;
}

void check_encoders(const std::vector<std::string>& encoders, const LadderSpec& ladder) {
    for (const auto& encoder : encoders)
        if (!gpu::find_encoder_traits(encoder) || !gpu::encoder_available(encoder))
            throw InputError(fmt::format("encoder {} is not in this FFmpeg build: install one with it or pick another "
                                         "--encoder",
                                         encoder));
    check_rungs_within_limits(encoders, ladder);
}

void check_rungs_within_limits(const std::vector<std::string>& encoders, const LadderSpec& ladder) {
    for (const auto& encoder : encoders) {
        const gpu::EncoderTraits& traits = gpu::encoder_traits(encoder);
        for (const auto& r : ladder.rungs)
            if (auto problem = encoder_rung_problem(traits, r); !problem.empty())
                throw InputError(
                    fmt::format("rung {}: {}: change the rung{}", r.name, problem, traits.wider_alternative));
    }
}

}  // namespace ladder::engine
