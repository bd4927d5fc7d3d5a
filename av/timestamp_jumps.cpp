#include "av/timestamp_jumps.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "av/handles.hpp"
#include "av/input_file.hpp"

namespace ladder::av {

namespace {

// A jump as read, before offsets are decided.
struct RawJump {
    std::int64_t pos = -1;
    double from_seconds = 0;  // where the stream was expected to go on
    double to_seconds = 0;    // where it went
    std::int64_t delta = 0;   // to - from, stream time base
};

struct StreamWalk {
    AVRational tb{1, 1};
    std::int64_t first = AV_NOPTS_VALUE;
    std::int64_t last = AV_NOPTS_VALUE;
    std::int64_t last_duration = 0;
    std::int64_t packets = 0;
    std::vector<RawJump> jumps;
};

// The video jump an audio jump belongs to: the same cut seen in the other
// stream (within a second on both sides), if any.
const RawJump* matching(const std::vector<RawJump>& video, const RawJump& j) {
    for (const auto& v : video)
        if (std::fabs(v.from_seconds - j.from_seconds) < 1.0 && std::fabs(v.to_seconds - j.to_seconds) < 1.0)
            return &v;
    return nullptr;
}

}  // namespace

std::int64_t PacketPositions::of(const AVPacket* pkt) {
    const auto stream = static_cast<std::size_t>(pkt->stream_index);
    if (stream >= last_.size()) last_.resize(stream + 1, -1);
    if (pkt->pos >= 0) last_[stream] = pkt->pos;
    return last_[stream];
}

void TimelineRepair::apply(AVPacket* pkt, std::int64_t pos) const {
    if (pos < 0) return;
    const TimestampJump* last = nullptr;
    for (const auto& j : jumps)
        if (j.stream == pkt->stream_index && j.pos <= pos && (!last || j.pos >= last->pos)) last = &j;
    if (!last) return;
    if (pkt->pts != AV_NOPTS_VALUE) pkt->pts += last->offset;
    if (pkt->dts != AV_NOPTS_VALUE) pkt->dts += last->offset;
}

std::vector<TimestampJump> TimelineRepair::of_stream(int stream) const {
    std::vector<TimestampJump> out;
    for (const auto& j : jumps)
        if (j.stream == stream) out.push_back(j);
    return out;
}

TimelineRepair find_timestamp_jumps(const InputSpec& spec, int video_stream, const std::vector<int>& streams,
                                    AVRational frame_rate, int frames) {
    InputSpec as_written = spec;
    as_written.timeline.reset();
    InputFile input(as_written);
    AVFormatContext* ctx = input.get();
    std::map<int, StreamWalk> walks;
    walks[video_stream].tb = ctx->streams[video_stream]->time_base;
    for (int s : streams)
        if (s >= 0 && s < static_cast<int>(ctx->nb_streams)) walks[s].tb = ctx->streams[s]->time_base;
    for (unsigned i = 0; i < ctx->nb_streams; ++i)
        if (!walks.count(static_cast<int>(i))) ctx->streams[i]->discard = AVDISCARD_ALL;
    const double tolerance = frames / av_q2d(frame_rate);
    const AVRational frame_time = av_inv_q(frame_rate);

    PacketPtr pkt = make_packet();
    PacketPositions positions;
    while (input.read(pkt.get())) {
        const std::int64_t pos = positions.of(pkt.get());
        const auto it = walks.find(pkt->stream_index);
        const std::int64_t ts = pkt->dts != AV_NOPTS_VALUE ? pkt->dts : pkt->pts;
        if (it == walks.end() || ts == AV_NOPTS_VALUE) {
            av_packet_unref(pkt.get());
            continue;
        }
        StreamWalk& w = it->second;
        const bool video = pkt->stream_index == video_stream;
        const std::int64_t duration =
            pkt->duration > 0 ? pkt->duration : (video ? av_rescale_q(1, frame_time, w.tb) : 0);
        if (w.last != AV_NOPTS_VALUE) {
            const std::int64_t expected = w.last + w.last_duration;
            const double delta = static_cast<double>(ts - expected) * av_q2d(w.tb);
            // Forward: more than a few frames (a variable rate may hold a
            // frame a little longer). Back: any step behind the last packet
            // (decode order never goes back; timestamps that did would make
            // later frames overwrite earlier ones).
            if (delta > tolerance || ts < w.last || delta < -tolerance)
                w.jumps.push_back({pos, expected * av_q2d(w.tb), ts * av_q2d(w.tb), ts - expected});
        } else {
            w.first = ts;
        }
        // Decode order (dts, which MPEG-TS carries for video): each packet
        // follows the one before.
        w.last = ts;
        w.last_duration = duration;
        ++w.packets;
        av_packet_unref(pkt.get());
    }

    TimelineRepair repair;
    const StreamWalk& v = walks[video_stream];
    std::int64_t offset = 0;
    for (const auto& j : v.jumps) {
        offset -= j.delta;
        repair.jumps.push_back({video_stream, j.pos, offset, j.delta * av_q2d(v.tb),
                                (j.from_seconds - v.first * av_q2d(v.tb)) + (offset + j.delta) * av_q2d(v.tb)});
    }
    if (v.last != AV_NOPTS_VALUE)
        repair.video_seconds = static_cast<double>(v.last + v.last_duration + offset - v.first) * av_q2d(v.tb);
    repair.video_packets = v.packets;
    for (const auto& [stream, w] : walks) {
        if (stream == video_stream) continue;
        std::int64_t own = 0;
        for (const auto& j : w.jumps) {
            if (const RawJump* cut = matching(v.jumps, j)) {
                // The video's offset there, so audio and video stay as the source had them.
                std::int64_t video_offset = 0;
                for (const auto& vj : v.jumps) {
                    video_offset -= vj.delta;
                    if (&vj == cut) break;
                }
                own = av_rescale_q(video_offset, v.tb, w.tb);
            } else {
                own -= j.delta;
            }
            repair.jumps.push_back({stream, j.pos, own, j.delta * av_q2d(w.tb), 0});
        }
    }
    return repair;
}

}  // namespace ladder::av
