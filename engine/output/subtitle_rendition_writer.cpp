#include "engine/output/subtitle_rendition_writer.hpp"

#include <fmt/format.h>

#include "engine/base/errors.hpp"
#include "mux/hls_bandwidth.hpp"
#include "mux/hls_playlist.hpp"
#include "mux/hls_track_playlists.hpp"

namespace ladder::engine {

SubtitleRenditionWriter::SubtitleRenditionWriter(mux::OutputFolder folder, const SubtitleTracks& tracks,
                                                 std::size_t track, int chunk_frames, AVRational frame_rate,
                                                 const SharedValue<std::int64_t>& video_frames)
    : folder_(std::move(folder)),
      tracks_(tracks),
      track_(track),
      chunk_frames_(chunk_frames),
      frame_rate_(frame_rate),
      video_frames_(video_frames) {}

void SubtitleRenditionWriter::run(std::stop_token stop) {
    const auto known = video_frames_.wait(stop);
    if (!known) throw Cancelled();
    const std::int64_t video_frames = *known;
    const std::vector<mux::WebVttCue>* cues = tracks_.cues(track_, stop);
    if (!cues) throw Cancelled();
    const AVRational ms{1, 1000};
    const AVRational frame_tb = av_inv_q(frame_rate_);
    const auto at_ms = [&](std::int64_t frame) { return av_rescale_q(frame, frame_tb, ms); };
    mux::MediaPlaylist playlist;
    playlist.version = 7;
    playlist.playlist_type = "VOD";
    playlist.endlist = true;
    std::vector<double> durations;
    int n = 0;
    for (std::int64_t first = 0; first < video_frames; first += chunk_frames_) {
        const std::int64_t end = std::min(video_frames, first + chunk_frames_);
        const std::string name = fmt::format("seg_{:05d}.vtt", ++n);
        folder_.write_atomically(name,
                                   mux::render_webvtt(mux::cues_between(*cues, at_ms(first), at_ms(end)), true));
        const double seconds = static_cast<double>(end - first) * av_q2d(frame_tb);
        playlist.segments.push_back({seconds, name, std::nullopt});
        durations.push_back(seconds);
    }
    playlist.target_duration = mux::target_duration(durations);
    duration_seconds_ = static_cast<double>(video_frames) * av_q2d(frame_tb);
    std::vector<mux::WebVttCue> whole = mux::cues_between(*cues, 0, at_ms(video_frames));
    for (auto& c : whole) c.end_ms = std::min(c.end_ms, at_ms(video_frames));
    folder_.write_atomically(whole_track_name, mux::render_webvtt(whole, false));
    folder_.write_atomically("index.m3u8", mux::render_media_playlist(playlist));
}

}  // namespace ladder::engine
