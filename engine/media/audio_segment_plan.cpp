#include "engine/media/audio_segment_plan.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "engine/base/errors.hpp"

namespace ladder::engine {

bool clip_to_video_end(AVPacket* pkt, std::int64_t video_end) {
    if (pkt->pts >= video_end) return false;
    if (pkt->duration > video_end - pkt->pts) pkt->duration = video_end - pkt->pts;
    return true;
}

std::vector<std::size_t> plan_audio_segments(const std::vector<AacFrame>& frames,
                                             const std::vector<std::int64_t>& video_cuts) {
    if (frames.empty()) throw std::invalid_argument("no audio frames to cut into segments");
    const std::size_t segments = video_cuts.size() + 1;
    std::vector<std::size_t> first{0};
    std::size_t k = 0;  // the segment the frame before i went to
    for (std::size_t i = 0; i < frames.size(); ++i) {
        // Twice the middle: no rounding for odd durations.
        const std::int64_t middle2 = 2 * frames[i].pts + frames[i].duration;
        while (k + 1 < segments && middle2 >= 2 * video_cuts[k]) {
            ++k;
            first.push_back(i);
        }
    }
    if (first.size() + 1 == segments && frames.size() > 1)
        first.push_back(frames.size() - 1);  // the last segment takes the last frame
    for (std::size_t s = 0; s < segments; ++s) {
        const std::size_t end = s + 1 < first.size() ? first[s + 1] : frames.size();
        if (s >= first.size() || first[s] >= end)
            throw std::invalid_argument(
                fmt::format("audio segment {} of {} would hold no AAC frame: its video segment is shorter than one",
                            s + 1, segments));
    }
    return first;
}

void check_segments_hold_aac_frames(const std::vector<AudioRenditionSpec>& renditions, std::int64_t chunk_frames,
                                    AVRational frame_rate) {
    constexpr std::int64_t kAacFrame = 1024;
    if (chunk_frames <= 0 || frame_rate.num <= 0 || frame_rate.den <= 0) return;
    for (const auto& r : renditions) {
        if (r.sample_rate <= 0) continue;
        // Segment seconds × rate >= 1024, in integers: chunk_frames × den × rate >= 1024 × num.
        if (chunk_frames * frame_rate.den * r.sample_rate >= kAacFrame * frame_rate.num) continue;
        const std::int64_t fewest_frames =
            (kAacFrame * frame_rate.num + frame_rate.den * r.sample_rate - 1) / (frame_rate.den * r.sample_rate);
        const double shortest = static_cast<double>(fewest_frames) * frame_rate.den / frame_rate.num;
        throw InputError(fmt::format(
            "audio track {} (\"{}\", AAC at {} Hz): segments of {} frames ({:.0f} ms) are shorter than one AAC "
            "frame ({:.0f} ms), so some segment would have no audio: use --segment-seconds {:.3f} or longer, or "
            "--audio none",
            r.ordinal, r.name, r.sample_rate, chunk_frames, 1000.0 * chunk_frames * frame_rate.den / frame_rate.num,
            1000.0 * kAacFrame / r.sample_rate, shortest));
    }
}

}  // namespace ladder::engine
