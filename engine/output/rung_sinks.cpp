#include "engine/output/rung_sinks.hpp"

#include <fmt/format.h>

#include "engine/base/errors.hpp"
#include "engine/media/audio_segment_plan.hpp"
#include "engine/media/language_tag.hpp"
#include "mux/hls_track_playlists.hpp"

namespace ladder::engine {

CmafRungSink::CmafRungSink(mux::OutputFolder outdir, std::string folder, std::string rung_name, AVRational frame_rate,
                           av::HdrMetadata hdr)
    : outdir_(std::move(outdir)),
      folder_(std::move(folder)),
      rung_name_(std::move(rung_name)),
      frame_rate_(frame_rate),
      hdr_(std::move(hdr)) {}

void CmafRungSink::open(const EncodedChunk& first) {
    writer_ = std::make_unique<mux::CmafTrackWriter>(outdir_.folder(folder_), first.codecpar.get(), av_inv_q(frame_rate_),
                                                     hdr_);
}

void CmafRungSink::write_chunk(const EncodedChunk& chunk, bool, std::stop_token) {
    // The muxer gets a reference of its own: the chunk's packets feed every sink.
    for (const auto& pkt : chunk.packets) writer_->write(av::ref_packet(pkt.get()).get());
    segments_.push_back(writer_->close_segment());
    if (segments_.back().samples != chunk.frame_count)
        throw RunError(fmt::format("rung {}: segment {} holds {} samples, chunk {} has {} frames", rung_name_,
                                   segments_.back().uri, segments_.back().samples, chunk.index, chunk.frame_count));
}

void CmafRungSink::finish(std::int64_t, std::stop_token) {
    writer_->finish();
    writer_->folder().write_atomically("iframes.m3u8", mux::render_media_playlist(mux::iframe_playlist_for(segments_)));
    writer_->folder().write_atomically("index.m3u8", mux::render_media_playlist(mux::media_playlist_for(segments_)));
}

std::string CmafRungSink::output() const { return (writer_->dir() / "index.m3u8").string(); }

Mp4RungSink::Mp4RungSink(mux::OutputFolder outdir, std::string name, AVRational frame_rate, AudioTracks* audio,
                         const SubtitleTracks* subtitles, av::HdrMetadata hdr)
    : outdir_(std::move(outdir)),
      name_(std::move(name)),
      frame_rate_(frame_rate),
      audio_(audio),
      subtitles_(subtitles),
      hdr_(std::move(hdr)) {}

void Mp4RungSink::open(const EncodedChunk& first) {
    std::vector<mux::Mp4AudioTrack> audio;
    for (std::size_t t = 0; audio_ && t < audio_->size(); ++t)
        audio.push_back({audio_->track(t).codecpar(), audio_->track(t).time_base(),
                         iso639_2t_language(audio_->spec(t).language), audio_->spec(t).name, audio_->spec(t).is_default});
    std::vector<mux::Mp4SubtitleTrack> subtitles;
    for (std::size_t t = 0; subtitles_ && t < subtitles_->size(); ++t) {
        const SubtitleRenditionSpec& spec = subtitles_->spec(t);
        subtitles.push_back({subtitles_->mov_text_codecpar(t), iso639_2t_language(spec.language), spec.name,
                             spec.is_default, spec.is_forced});
    }
    writer_ = std::make_unique<mux::SingleFileWriter>(outdir_, name_, first.codecpar.get(), av_inv_q(frame_rate_), audio,
                                                      hdr_, subtitles);
}

void Mp4RungSink::write_chunk(const EncodedChunk& chunk, bool video_ends, std::stop_token stop) {
    for (const auto& pkt : chunk.packets) writer_->write_video(av::ref_packet(pkt.get()).get());
    const std::int64_t end = chunk.first_frame + chunk.frame_count;
    write_audio_until(end, false, stop);
    write_subtitles_until(end, video_ends, stop);
}

void Mp4RungSink::finish(std::int64_t frames, std::stop_token stop) {
    // Audio that runs on after the video is cut at its end.
    write_audio_until(frames, true, stop);
    write_subtitles_until(frames, true, stop);
    writer_->finish();
}

std::string Mp4RungSink::output() const { return writer_->final_path().string(); }

void Mp4RungSink::write_audio_until(std::int64_t frames, bool video_ended, std::stop_token stop) {
    if (!audio_) return;
    audio_cursors_.resize(audio_->size());
    for (std::size_t t = 0; t < audio_->size(); ++t) {
        AudioTrack& track = audio_->track(t);
        const std::int64_t limit = av_rescale_q(frames, av_inv_q(frame_rate_), track.time_base());
        while (auto pkt = track.packet(audio_cursors_[t], stop)) {
            // The frame across a chunk's end waits for the next chunk; the
            // one across the video's end is cut there, so that the audio
            // ends with the video (the muxer's edit list ends with it).
            AVPacket* p = pkt->get();
            if (video_ended ? !clip_to_video_end(p, limit) : p->pts + p->duration > limit) break;
            writer_->write_audio(t, p);
            ++audio_cursors_[t];
        }
        if (stop.stop_requested()) throw Cancelled();
    }
}

void Mp4RungSink::write_subtitles_until(std::int64_t frames, bool video_ended, std::stop_token stop) {
    if (!subtitles_) return;
    subtitle_cursors_.resize(subtitles_->size());
    const std::int64_t limit = av_rescale_q(frames, av_inv_q(frame_rate_), AVRational{1, 1000});
    for (std::size_t t = 0; t < subtitles_->size(); ++t) {
        const std::vector<av::PacketPtr>* samples = subtitles_->mov_text(t, stop);
        if (!samples) throw Cancelled();
        for (std::size_t& i = subtitle_cursors_[t]; i < samples->size() && (*samples)[i]->pts < limit; ++i) {
            av::PacketPtr pkt = av::ref_packet((*samples)[i].get());
            // A cue running past the video's end is cut there.
            if (video_ended && pkt->pts + pkt->duration > limit) pkt->duration = limit - pkt->pts;
            writer_->write_subtitle(t, pkt.get());
        }
    }
}

}  // namespace ladder::engine
