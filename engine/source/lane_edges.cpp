// A decode lane's edges, for its DecodePump: where it starts reading (a
// seek to its key frame), which packets it leaves to the lanes beside it
// (before its key frame, that key frame's leading pictures, and what comes
// after the next lane's key frame and its leading pictures), and the
// numbers its frames have in the whole source.
#include "engine/source/decode_lanes.hpp"

#include <fmt/format.h>

#include "av/av_error.hpp"
#include "engine/base/errors.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace ladder::engine {

// At or before the lane's key frame. Containers without an index (MPEG-TS)
// seek by estimate and may land after it: each retry aims a second further
// back, then twice that.
void DecodePump::seek_to_lane_start() {
    const AVStream* vs = input_.get()->streams[source_.video_stream];
    const std::int64_t back = lane_seeks_ == 0 ? 0 : av_rescale_q(1LL << (lane_seeks_ - 1), {1, 1}, vs->time_base);
    ++lane_seeks_;
    const std::int64_t start = lane_->start_pts - back;
    const int ret = avformat_seek_file(input_.get(), source_.video_stream, INT64_MIN, start, start, 0);
    if (ret < 0)
        throw RunError(fmt::format("input {}: cannot seek to timestamp {} where a decode lane starts ({}): decode it in "
                                   "one pass with --decoders 1",
                                   source_.path, start, av::error_string(ret)));
    before_lane_ = true;
}

// Whether the lane leaves this video packet alone: before its key frame
// (the seek lands at or before it), its key frame's leading pictures (shown
// before it: the lane before decodes them), the next lane's key frame
// (held: decoded only if leading pictures follow it), and what comes after
// those, where it stops reading.
bool DecodePump::lane_stops_at(const AVPacket* pkt) {
    const bool key = (pkt->flags & AV_PKT_FLAG_KEY) != 0;
    if (before_lane_) {
        if (key && pkt->pts == lane_->start_pts) {
            before_lane_ = false;
            return false;
        }
        // At a clean cut every packet before the key frame shows before it.
        if (pkt->pts != AV_NOPTS_VALUE && pkt->pts >= lane_->start_pts) {
            if (lane_seeks_ < kLaneSeeks) {
                seek_to_lane_start();
                return true;
            }
            throw RunError(fmt::format("input {}: seeking for the decode lane that starts at timestamp {} went past "
                                       "its key frame: decode it in one pass with --decoders 1",
                                       source_.path, lane_->start_pts));
        }
        return true;
    }
    if (lane_->start_pts != AV_NOPTS_VALUE && pkt->pts != AV_NOPTS_VALUE && pkt->pts < lane_->start_pts) return true;
    if (lane_done_) {
        if (pkt->pts != AV_NOPTS_VALUE && pkt->pts < lane_end_) return false;  // a leading picture of the next lane's key frame
        lane_read_all_ = true;
        next_lane_key_.reset();
        return true;
    }
    if (lane_->bounds->ends_at(pkt->pts, key)) {
        lane_done_ = true;
        lane_end_ = pkt->pts;
        next_lane_key_ = av::make_packet();
        av::check(av_packet_ref(next_lane_key_.get(), pkt), "holding a key frame");
        return true;
    }
    return false;
}

// The next lane's key frame, before its first leading picture: those refer
// to it (its own frame is not kept: it is the next lane's first).
void DecodePump::decode_next_lane_key(std::stop_token stop) {
    av::PacketPtr key = std::move(next_lane_key_);
    ++counters_.video_packets;
    decode_video(key.get(), stop);
}

// The frame's number in the whole source. The first lane's first frame is
// frame 0; the others wait for its timestamp (decoded within the first
// packets of the source).
std::int64_t DecodePump::lane_frame_number(const AVFrame* frame, std::stop_token stop) {
    if (!lane_origin_) {
        if (lane_->start_pts == AV_NOPTS_VALUE) {
            lane_origin_ = counters_.origin_pts;
            if (lane_->origin) lane_->origin->set(*lane_origin_);
        } else {
            lane_origin_ = lane_->origin->wait(stop);
            if (!lane_origin_) throw Cancelled();
        }
    }
    const std::int64_t n = frame->pts - *lane_origin_;
    const std::int64_t expected = counters_.first_frame + counters_.frames_normalized;
    if (n < 0 || (counters_.frames_normalized > 0 && n != expected))
        throw RunError(fmt::format("input {}: a decode lane made frame {} where frame {} was due: its timestamps do "
                                   "not allow decoding it in parts; decode it in one pass with --decoders 1",
                                   source_.path, n, counters_.frames_normalized > 0 ? expected : 0));
    return n;
}

}  // namespace ladder::engine
