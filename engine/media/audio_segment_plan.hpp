#pragma once
// Where the audio of an output ends and where an audio rendition's segments
// are cut, in AAC frames (1024 samples each). The packets' times are
// presentation times: 0 is the video's first frame, and the first packet
// (pts -1024, the encoder's priming) is before it (engine/media/audio_track.hpp).
//
// The audio ends with the video's last frame: the frames that start at or
// after it are left out, and the one across it lasts only up to it (its
// encoder padding is not presented). A segment holds the frames whose
// middle falls within its video segment, so each cut is on the frame
// boundary nearest the video's, at most half a frame away (at 8 kHz a frame
// is 128 ms: cutting at the first frame at or after the boundary would make
// segments up to a frame longer than the video's).
#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" {
#include <libavcodec/packet.h>
#include <libavutil/rational.h>
}

#include "engine/media/audio_selection.hpp"

namespace ladder::engine {

// False when pkt starts at or after video_end (it is not part of the
// output); otherwise shortens its duration so that it ends there at the
// latest. Both in the packet's time base.
bool clip_to_video_end(AVPacket* pkt, std::int64_t video_end);

struct AacFrame {
    std::int64_t pts = 0;
    std::int64_t duration = 0;
};

// The index of each segment's first frame. frames: the output's (clipped
// with clip_to_video_end), in order; video_cuts: where each video segment
// but the last ends, in the frames' time base. The last segment holds at
// least the last frame (a last video segment shorter than half a frame
// would otherwise get none), so that cut may be up to a frame early.
// Throws std::invalid_argument when a segment would hold no frame (video
// segments shorter than an AAC frame) or there are no frames.
std::vector<std::size_t> plan_audio_segments(const std::vector<AacFrame>& frames,
                                             const std::vector<std::int64_t>& video_cuts);

// Before anything is encoded: throws InputError (exit 2) when a segment of
// chunk_frames at frame_rate is shorter than one AAC frame of a rendition
// (a cut per frame boundary then leaves a segment without audio), naming
// the shortest --segment-seconds that works. Renditions of an unknown rate
// are not checked here (plan_audio_segments still is, at the end).
void check_segments_hold_aac_frames(const std::vector<AudioRenditionSpec>& renditions, std::int64_t chunk_frames,
                                    AVRational frame_rate);

}  // namespace ladder::engine
