#include "engine/source/decode_cuts.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "av/av_error.hpp"
#include "av/compat.hpp"
#include "av/input_file.hpp"
#include "av/logging.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

namespace ladder::engine {

namespace {

// A key frame and the packets after it up to the next key frame. Its
// leading pictures (shown before the key frame, coded after it: an open
// GOP) are read by the lane before the cut, which has what they refer to;
// a cut is taken only where they all come before the pictures shown after
// the key frame, so that the first of those ends that lane's reading.
struct Group {
    std::int64_t key_pts = 0;
    bool nothing_before_shows_after = false;  // known only when the group before it was read
    bool trailing_seen = false;
    bool leading_after_trailing = false;
    std::int64_t max_pts = 0;

    void add(std::int64_t pts) {
        if (pts > key_pts) trailing_seen = true;
        if (pts < key_pts && trailing_seen) leading_after_trailing = true;
        max_pts = std::max(max_pts, pts);
    }
    bool is_cut_at_or_after(std::int64_t target) const {
        return nothing_before_shows_after && !leading_after_trailing && key_pts >= target;
    }
    // Its first packets, for starts_clean (kPacketsTried at most).
    std::vector<av::PacketPtr> first_packets;
};

// Packets of a group a decoder is given to show its key frame.
constexpr std::size_t kPacketsTried = 24;

// Whether a decoder that starts at the group's key frame shows that frame
// first, whole: the flag says "key" also where a decoder starting there
// shows nothing, or damaged pictures, for a while (an H.264 recovery point
// with a count, as x264's intra refresh writes: a gradual refresh, no clean
// start; a lane from there lost frames and the run failed). Pictures shown
// before the key frame (an open GOP's leading ones) do not count: the lane
// before the cut decodes them. What the decoder logs here is dropped.
bool starts_clean(const AVStream* stream, const Group& group) {
    const av::LibraryLogCapture quiet;
    av::CodecContextPtr decoder = av::open_decoder(stream, 1);
    av::FramePtr frame = av::make_frame();
    std::optional<bool> clean;
    const auto receive = [&] {
        while (!clean && avcodec_receive_frame(decoder.get(), frame.get()) == 0) {
            const std::int64_t ts = frame->best_effort_timestamp;
            if (ts == AV_NOPTS_VALUE || ts >= group.key_pts)
                clean = ts == group.key_pts && frame->decode_error_flags == 0 && !(frame->flags & AV_FRAME_FLAG_CORRUPT);
            av_frame_unref(frame.get());
        }
    };
    for (const av::PacketPtr& pkt : group.first_packets) {
        if (clean) break;
        avcodec_send_packet(decoder.get(), pkt.get());  // a refused packet shows in what comes out
        receive();
    }
    if (!clean) {
        avcodec_send_packet(decoder.get(), nullptr);
        receive();
    }
    return clean.value_or(false);
}

// Key frames a search looks at before it gives up on a cut near target.
constexpr int kKeysSearched = 12;

// The first clean cut at or after target and at most limit: from the key
// frame before target (a seek just before it, so that a key frame at target
// comes with the group before it), group by group.
std::optional<std::int64_t> clean_cut_after(av::InputFile& in, int video_stream, std::int64_t target,
                                            std::int64_t limit) {
    AVFormatContext* ic = in.get();
    if (avformat_seek_file(ic, video_stream, std::numeric_limits<std::int64_t>::min(), target - 1, target - 1, 0) < 0)
        return std::nullopt;
    const AVStream* stream = ic->streams[video_stream];
    const auto is_cut = [&](const Group& g) { return g.is_cut_at_or_after(target) && starts_clean(stream, g); };
    av::PacketPtr pkt = av::make_packet();
    std::optional<Group> group;
    int keys = 0;
    while (in.read(pkt.get())) {
        const bool video = pkt->stream_index == video_stream;
        const std::int64_t pts = pkt->pts;
        const bool key = (pkt->flags & AV_PKT_FLAG_KEY) != 0;
        if (!video) {
            av_packet_unref(pkt.get());
            continue;
        }
        if (pts == AV_NOPTS_VALUE) return std::nullopt;  // no timestamps to cut by
        if (!key) {
            if (group) {
                group->add(pts);
                if (group->first_packets.size() < kPacketsTried) group->first_packets.push_back(std::move(pkt));
            }
            pkt = av::make_packet();
            continue;
        }
        bool before_ok = false;
        if (group) {
            if (is_cut(*group)) return group->key_pts;
            before_ok = group->max_pts < pts;
        }
        if (pts > limit || ++keys > kKeysSearched) return std::nullopt;
        group.emplace();
        group->key_pts = pts;
        group->nothing_before_shows_after = before_ok;
        group->max_pts = pts;
        group->first_packets.push_back(std::move(pkt));
        pkt = av::make_packet();
    }
    // The source's last group is whole at its end.
    if (group && is_cut(*group)) return group->key_pts;
    return std::nullopt;
}

}  // namespace

std::pair<std::int64_t, std::int64_t> video_span(AVFormatContext* ic, int video_stream) {
    const AVStream* vs = ic->streams[video_stream];
    const std::int64_t start = vs->start_time == AV_NOPTS_VALUE ? 0 : vs->start_time;
    std::int64_t duration = vs->duration;
    if (duration == AV_NOPTS_VALUE || duration <= 0)
        duration = ic->duration == AV_NOPTS_VALUE ? 0 : av_rescale_q(ic->duration, av::kTimeBaseQ, vs->time_base);
    return {start, start + std::max<std::int64_t>(0, duration)};
}

namespace {
void video_only(AVFormatContext* ic, int video_stream) {
    for (unsigned i = 0; i < ic->nb_streams; ++i)
        if (static_cast<int>(i) != video_stream) ic->streams[i]->discard = AVDISCARD_ALL;
}
}  // namespace

std::optional<std::int64_t> find_decode_cut(const av::InputSpec& source, int video_stream, std::int64_t target,
                                            std::int64_t limit) {
    try {
        av::InputFile in(source);
        video_only(in.get(), video_stream);
        return clean_cut_after(in, video_stream, target, limit);
    } catch (const av::AvError&) {
        return std::nullopt;
    }
}

std::vector<std::int64_t> find_decode_cuts(const av::InputSpec& source, int video_stream, int ranges, double min_seconds) {
    std::vector<std::int64_t> cuts;
    if (ranges < 2) return cuts;
    try {
        av::InputFile in(source);
        AVFormatContext* ic = in.get();
        video_only(ic, video_stream);
        const AVStream* vs = ic->streams[video_stream];
        const auto [start, stream_end] = video_span(ic, video_stream);
        const std::int64_t duration = stream_end - start;
        const std::int64_t min_gap = av_rescale_q(static_cast<std::int64_t>(min_seconds * 1000), {1, 1000}, vs->time_base);
        if (duration <= 0 || min_gap <= 0) return cuts;
        const std::int64_t end = stream_end;
        std::int64_t last = start;
        for (int i = 1; i < ranges; ++i) {
            const std::int64_t target = std::max(start + duration / ranges * i, last + min_gap);
            if (target > end - min_gap) break;
            if (auto cut = clean_cut_after(in, video_stream, target, end - min_gap)) {
                cuts.push_back(*cut);
                last = *cut;
            }
        }
    } catch (const av::AvError&) {
        cuts.clear();  // a source the cut search cannot read is decoded in one range
    }
    return cuts;
}

}  // namespace ladder::engine
