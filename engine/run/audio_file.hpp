#pragma once
// --audio-file: the sound track from a file of its own, in place of the
// input's own audio (an image sequence has none). The file's first sample
// lines up with the first video frame; the track is cut or padded to the
// video's length like any other.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stop_token>

#include "av/input_file.hpp"
#include "engine/source/source_info.hpp"

namespace ladder::engine {

// Opens the file and describes its audio into src (audio_path, audio_tracks
// and the rest, replacing the input's own). Throws InputError for a missing
// file, anything but a regular file (a FIFO...), one that is not media, or
// one without audio ladder can decode; Cancelled when stop is requested
// while it is probed.
std::unique_ptr<av::InputFile> open_audio_file(const std::filesystem::path& file, SourceInfo& src,
                                               std::stop_token stop = {});

// Time 0 of the outputs on the audio's clock, in AV_TIME_BASE units: the
// first video frame's timestamp when the audio is the input's own (one
// clock), the audio file's start with --audio-file (audio_file not null).
std::int64_t audio_time_zero(const av::InputFile& video_input, const av::InputFile* audio_file, const SourceInfo& src);

}  // namespace ladder::engine
