#include "engine/media/audio_tracks.hpp"

#include <algorithm>

extern "C" {
#include <libavformat/avformat.h>
}

namespace ladder::engine {

AudioTracks::AudioTracks(const AVFormatContext* input, std::vector<AudioRenditionSpec> renditions,
                         std::int64_t video_start)
    : specs_(std::move(renditions)) {
    for (const auto& spec : specs_)
        tracks_.push_back(std::make_unique<AudioTrack>(input->streams[spec.source_stream], video_start, spec.channels));
}

bool AudioTracks::reads(int stream_index) const {
    return std::any_of(specs_.begin(), specs_.end(),
                       [&](const AudioRenditionSpec& s) { return s.source_stream == stream_index; });
}

void AudioTracks::feed(const AVPacket* pkt) {
    for (std::size_t i = 0; i < specs_.size(); ++i)
        if (specs_[i].source_stream == pkt->stream_index) tracks_[i]->feed(pkt);
}

void AudioTracks::finish(std::int64_t video_frames, AVRational frame_rate) {
    for (auto& t : tracks_)
        t->finish(video_frames < 0 ? -1 : av_rescale_q(video_frames, av_inv_q(frame_rate), t->time_base()));
}

void AudioTracks::abandon() {
    for (auto& t : tracks_) t->abandon();
}

std::int64_t AudioTracks::packet_count() const {
    std::int64_t n = 0;
    for (const auto& t : tracks_) n += t->packet_count();
    return n;
}

}  // namespace ladder::engine
