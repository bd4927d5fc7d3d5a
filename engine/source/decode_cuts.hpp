#pragma once
// Where the source can be cut into time ranges that decode on their own: at
// key frames that nothing coded before is shown after, and that a decoder
// starting there shows first, whole (tried on the group's first packets:
// "key" also flags recovery points a decoder needs many frames to recover
// from, such as an H.264 intra refresh's). Every packet before
// such a key frame in decode order is shown before it; the packets after it
// that are shown before it (the leading pictures of an open GOP, which may
// refer to the frames before the key frame) all come before the ones shown
// after it. A range reads from one cut, leaving out its key frame's leading
// pictures, and past the next cut's key frame through that key frame's
// leading pictures, keeping only the frames shown before it: so the ranges
// together give the frames of one pass over the whole source, each decoded
// with what it refers to (an open cut's key frame is decoded by both).
#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "av/input_file.hpp"

struct AVFormatContext;

namespace ladder::engine {

// Up to `ranges - 1` cut timestamps (the video stream's time base),
// ascending, near the even split of the stream's duration, each range at
// least min_seconds long. Empty when the stream has no such key frames or no
// timestamps, or the file cannot seek.
std::vector<std::int64_t> find_decode_cuts(const av::InputSpec& source, int video_stream, int ranges, double min_seconds);

// The first cut at or after target and at most limit (the video stream's
// time base), searched from the key frame before target.
std::optional<std::int64_t> find_decode_cut(const av::InputSpec& source, int video_stream, std::int64_t target,
                                            std::int64_t limit);

// The video stream's first and end timestamps from the container (end:
// start + duration; equal when the container does not say).
std::pair<std::int64_t, std::int64_t> video_span(AVFormatContext* ic, int video_stream);

}  // namespace ladder::engine
