#pragma once
// Timestamps that jump: MPEG-TS (and other demuxers FFmpeg marks
// AVFMT_TS_DISCONT) from concatenated recordings or broadcast captures jump
// forwards or backwards where one recording ends and the next begins. Taken
// as they are, a jump forward becomes minutes of repeated frames and a jump
// back drops what follows. find_timestamp_jumps() reads the file once
// (packets only, nothing decoded) and finds every jump of the video stream
// forward by more than a few frame durations, and every step back;
// TimelineRepair then moves
// every packet after a jump, in every stream read, so that the content
// continues where it was: the jump is taken out, the source's own alignment
// of audio and video within each part is kept.
#include <cstdint>
#include <vector>

extern "C" {
#include <libavcodec/packet.h>
#include <libavutil/rational.h>
}

namespace ladder::av {

struct InputSpec;

struct TimestampJump {
    int stream = -1;
    std::int64_t pos = -1;     // byte position of the stream's first packet after the jump
    std::int64_t offset = 0;   // added to that stream's timestamps from there on (cumulative, stream time base)
    double jump_seconds = 0;   // what the timestamps did there (+ forward, - back)
    double at_seconds = 0;     // where, on the repaired timeline (video streams)
};

// A packet's position in the file as the repair counts it: its own, else
// that of the last packet of its stream that had one.
class PacketPositions {
public:
    std::int64_t of(const AVPacket* pkt);

private:
    std::vector<std::int64_t> last_;
};

struct TimelineRepair {
    std::vector<TimestampJump> jumps;
    // The video's length on the repaired timeline (0 when unknown).
    double video_seconds = 0;
    std::int64_t video_packets = 0;

    bool empty() const { return jumps.empty(); }
    // Moves the packet's timestamps by the offset of the last jump of its
    // stream at or before `pos`: its position in the file, or (a parser's
    // later frames carry none) that of the last packet of its stream that had one.
    void apply(AVPacket* pkt, std::int64_t pos) const;
    // The jumps of one stream, in file order.
    std::vector<TimestampJump> of_stream(int stream) const;
};

// streams: those to repair besides the video (the audio ladder reads).
// frame_rate: the video's; jumps forward larger than `frames` frame
// durations count, and any step back.
TimelineRepair find_timestamp_jumps(const InputSpec& spec, int video_stream, const std::vector<int>& streams,
                                    AVRational frame_rate, int frames = 5);

}  // namespace ladder::av
