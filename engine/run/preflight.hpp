#pragma once
// What `ladder plan` and `ladder encode` check before a thread starts or a
// file is written, with the same messages: the source opens and describes
// itself (a shard's is the planned one), the ladder fits it, and the
// encoders exist in this FFmpeg and can make every rung.
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "av/input_file.hpp"
#include "engine/run/job.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/source/source_info.hpp"

namespace ladder::engine {

struct CheckedSource {
    std::unique_ptr<av::InputFile> input;
    // --audio-file's demuxer (info's audio fields describe it); null: the
    // audio, if any, is the input's own.
    std::unique_ptr<av::InputFile> audio_input;
    SourceInfo info;
    LadderSpec ladder;  // fitted to the source and valid
    int chunk_frames = 0;
};

// Opens the source and fits the ladder (options.ladder, else the default
// one) to it; what fitting changed is a note (a warning for the user's own
// ladder). A shard's source must be its plan's. Throws InputError;
// Cancelled when stop is requested meanwhile (the source's readers all
// watch it: InputSpec::stop).
CheckedSource check_source_and_ladder(const JobOptions& options, ProgressSink& progress, std::stop_token stop);

// Each encoder is one ladder drives (gpu/encoder_traits.hpp), is in this
// FFmpeg build and can make every rung
// (check_rungs_within_limits). Throws InputError.
void check_encoders(const std::vector<std::string>& encoders, const LadderSpec& ladder);

// Every rung's size, rate and buffer are within each encoder's limits
// (their records' limits). Throws InputError naming the rung, the encoder and the
// limit.
void check_rungs_within_limits(const std::vector<std::string>& encoders, const LadderSpec& ladder);

}  // namespace ladder::engine
