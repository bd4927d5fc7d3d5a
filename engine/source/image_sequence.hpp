#pragma once
// Numbered image files as a video: an input such as frames/img_%05d.png (a
// printf pattern, as FFmpeg's image2 demuxer reads it). The numbering is
// checked here, from the folder's listing, before anything is decoded: the
// demuxer itself stops at the first gap, or jumps over it, without a word.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "av/input_file.hpp"

extern "C" {
#include <libavutil/rational.h>
}

namespace ladder::engine {

// The numbered files a pattern matches, without gaps.
struct ImageSequence {
    std::filesystem::path pattern;
    std::int64_t first = 0;  // the first and last frame numbers present
    std::int64_t last = 0;
    std::uintmax_t bytes = 0;  // all frames together
    std::filesystem::file_time_type newest{};

    std::int64_t frames() const { return last - first + 1; }
    // The file of frame number n, in the pattern's folder.
    std::filesystem::path frame_file(std::int64_t n) const;
};

// Whether the input names an image sequence: its file name holds one %d or
// %0Nd (%% is a literal percent sign) and no file has that very name.
bool is_image_sequence(const std::filesystem::path& input);

// Lists the pattern's folder. Throws InputError for a folder that is not
// there, a pattern that matches no file, and a gap in the numbering (naming
// the first missing frame).
ImageSequence scan_image_sequence(const std::filesystem::path& pattern);

// How FFmpeg's image2 demuxer opens the sequence at this frame rate: from
// its first number, each file one frame (timestamp = frame number - first).
av::InputSpec image_sequence_input(const ImageSequence& sequence, AVRational frame_rate);

// What identifies the input's contents for a plan and a resumed run without
// reading them: a file's size, or the sum of an image sequence's sizes.
std::uintmax_t input_bytes(const std::filesystem::path& input);
// The same with the latest modification time (and, for a sequence, its
// numbers), for the resume journal's fingerprint.
std::string input_identity(const std::filesystem::path& input);

}  // namespace ladder::engine
