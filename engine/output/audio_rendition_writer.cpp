#include "engine/output/audio_rendition_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "engine/media/audio_segment_plan.hpp"
#include "engine/base/errors.hpp"
#include "mux/hls_track_playlists.hpp"

namespace ladder::engine {

namespace {

// The packets an output of the video's length holds (clip_to_video_end);
// the track is all in memory by now.
std::vector<av::PacketPtr> packets_of_output(AudioTrack& audio, std::int64_t video_end, std::stop_token stop) {
    std::vector<av::PacketPtr> out;
    for (std::size_t i = 0;; ++i) {
        auto pkt = audio.packet(i, stop);
        if (!pkt || !clip_to_video_end(pkt->get(), video_end)) break;
        out.push_back(std::move(*pkt));
    }
    if (stop.stop_requested()) throw Cancelled();
    return out;
}

// Where each video segment but the last ends (frame (k+1)*N), in tb.
std::vector<std::int64_t> video_cuts(std::int64_t video_frames, int chunk_frames, AVRational frame_tb, AVRational tb) {
    std::vector<std::int64_t> cuts;
    for (std::int64_t end = chunk_frames; end < video_frames; end += chunk_frames)
        cuts.push_back(av_rescale_q(end, frame_tb, tb));
    return cuts;
}

std::vector<AacFrame> frames_of(const std::vector<av::PacketPtr>& packets) {
    std::vector<AacFrame> frames;
    for (const auto& p : packets) frames.push_back({p->pts, p->duration});
    return frames;
}

}  // namespace

AudioRenditionWriter::AudioRenditionWriter(mux::OutputFolder folder, AudioTrack& audio, std::string language,
                                           int chunk_frames, AVRational frame_rate,
                                           const SharedValue<std::int64_t>& video_frames)
    : folder_(std::move(folder)),
      audio_(audio),
      language_(std::move(language)),
      chunk_frames_(chunk_frames),
      frame_rate_(frame_rate),
      video_frames_(video_frames) {}

void AudioRenditionWriter::run(std::stop_token stop) {
    const auto known = video_frames_.wait(stop);
    if (!known) throw Cancelled();
    const std::int64_t video_frames = *known;
    const AVRational frame_tb = av_inv_q(frame_rate_);
    const AVRational tb = audio_.time_base();
    const std::vector<av::PacketPtr> packets =
        packets_of_output(audio_, av_rescale_q(video_frames, frame_tb, tb), stop);
    // Before 0: the encoder's priming, which the edit list hides.
    const std::int64_t priming = packets.empty() ? 0 : std::max<std::int64_t>(0, -packets.front()->pts);
    mux::CmafTrackWriter writer(folder_, audio_.codecpar(), tb, {}, language_, priming);
    // No audio decoded at all leaves an empty playlist, which validate reports.
    if (!packets.empty()) write_segments(writer, packets, video_cuts(video_frames, chunk_frames_, frame_tb, tb));
    writer.finish();
    folder_.write_atomically("index.m3u8", mux::render_media_playlist(mux::media_playlist_for(segments_)));
}

void AudioRenditionWriter::write_segments(mux::CmafTrackWriter& writer, const std::vector<av::PacketPtr>& packets,
                                          const std::vector<std::int64_t>& cuts) {
    std::vector<std::size_t> first;
    try {
        first = plan_audio_segments(frames_of(packets), cuts);
    } catch (const std::invalid_argument& e) {
        const AVRational ms{1, 1000};
        throw RunError(fmt::format("{}: {} ({} ms of video per segment, {} ms per AAC frame)", dir().string(),
                                   e.what(), av_rescale_q(chunk_frames_, av_inv_q(frame_rate_), ms),
                                   av_rescale_q(packets.front()->duration, audio_.time_base(), ms)));
    }
    for (std::size_t s = 0; s < first.size(); ++s) {
        const std::size_t end = s + 1 < first.size() ? first[s + 1] : packets.size();
        for (std::size_t i = first[s]; i < end; ++i) writer.write(packets[i].get());
        segments_.push_back(writer.close_segment());
    }
}

}  // namespace ladder::engine
