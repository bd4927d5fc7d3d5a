#include "engine/audio_rendition_writer.hpp"

#include <limits>

#include "engine/errors.hpp"
#include "mux/hls_track_playlists.hpp"

namespace ladder::engine {

AudioRenditionWriter::AudioRenditionWriter(mux::OutputFolder folder, AudioTrack& audio, std::string language,
                                           int chunk_frames, AVRational frame_rate)
    : folder_(std::move(folder)),
      audio_(audio),
      language_(std::move(language)),
      chunk_frames_(chunk_frames),
      frame_rate_(frame_rate) {}

void AudioRenditionWriter::run(std::stop_token stop) {
    const auto known = video_frames_.wait(stop);
    if (!known) throw Cancelled();
    const std::int64_t video_frames = *known;
    const std::int64_t chunks = (video_frames + chunk_frames_ - 1) / chunk_frames_;
    const AVRational frame_tb = av_inv_q(frame_rate_);
    // Segment k ends at frame (k+1)*N; the last one takes whatever audio is left.
    auto boundary = [&](std::int64_t k) {
        return k + 1 >= chunks ? std::numeric_limits<std::int64_t>::max()
                               : av_rescale_q((k + 1) * chunk_frames_, frame_tb, audio_.time_base());
    };
    // Audio that runs on after the video is cut at its end.
    const std::int64_t video_end = av_rescale_q(video_frames, frame_tb, audio_.time_base());
    mux::CmafTrackWriter writer(folder_, audio_.codecpar(), audio_.time_base(), {}, language_);
    std::int64_t k = 0;
    bool open_segment = false;
    for (std::size_t i = 0;; ++i) {
        auto pkt = audio_.packet(i, stop);
        if (!pkt || (*pkt)->pts >= video_end) break;
        while ((*pkt)->pts >= boundary(k)) {
            if (open_segment) segments_.push_back(writer.close_segment());
            open_segment = false;
            ++k;
        }
        writer.write(pkt->get());
        open_segment = true;
    }
    if (stop.stop_requested()) throw Cancelled();
    if (open_segment) segments_.push_back(writer.close_segment());
    writer.finish();
    folder_.write_atomically("index.m3u8", mux::render_media_playlist(mux::media_playlist_for(segments_)));
}

}  // namespace ladder::engine
