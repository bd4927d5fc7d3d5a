#include "engine/output/rung_finalizer.hpp"

#include <fmt/format.h>

#include <algorithm>

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

RungFinalizer::RungFinalizer(int rung_index, RungSpec rung, std::vector<std::unique_ptr<RungSink>> sinks,
                             ProgressSink& progress, SharedValue<std::int64_t>* video_frames)
    : rung_index_(rung_index),
      rung_(std::move(rung)),
      sinks_(std::move(sinks)),
      progress_(progress),
      video_frames_(video_frames) {
    for (const auto& sink : sinks_)
        if (const auto* cmaf = dynamic_cast<const CmafRungSink*>(sink.get())) cmaf_ = cmaf;
    report_.name = rung_.name;
    report_.width = rung_.width;
    report_.height = rung_.height;
    report_.bitrate_kbps = rung_.bitrate_kbps;
    report_.crf = rung_.crf;
}

void RungFinalizer::deliver(EncodedChunk chunk) {
    const std::optional<RungEnd> end = chunk.ends_rung;
    {
        std::lock_guard lock(mu_);
        if (end) end_ = end;
        const int index = chunk.index;
        waiting_.emplace(index, std::move(chunk));
    }
    cv_.notify_all();
    if (end && video_frames_) video_frames_->set(end->frames);
}

std::size_t RungFinalizer::waiting() const {
    std::lock_guard lock(mu_);
    return waiting_.size();
}

bool RungFinalizer::wait_for_room(std::size_t most, std::stop_token stop) {
    std::unique_lock lock(mu_);
    return cv_.wait(lock, stop, [&] { return waiting_.size() < most; });
}

std::optional<EncodedChunk> RungFinalizer::wait_for(int index, std::stop_token stop) {
    std::optional<EncodedChunk> c;
    {
        std::unique_lock lock(mu_);
        bool ok = cv_.wait(lock, stop, [&] {
            return waiting_.count(index) != 0 || (end_ && index >= end_->chunks);
        });
        if (!ok) throw Cancelled();
        auto it = waiting_.find(index);
        if (it == waiting_.end()) return std::nullopt;  // past the last chunk
        c = std::move(it->second);
        waiting_.erase(it);
    }
    cv_.notify_all();  // room for a producer waiting in wait_for_room
    return c;
}

void RungFinalizer::write_chunk(const EncodedChunk& chunk, std::stop_token stop) {
    if (chunk.first_frame != report_.frames)
        throw RunError(fmt::format("rung {}: chunk {} starts at frame {} but {} frames were written before it",
                                   rung_.name, chunk.index, chunk.first_frame, report_.frames));
    const std::int64_t end = chunk.first_frame + chunk.frame_count;
    const bool video_ends = chunk.ends_rung.has_value();
    for (auto& sink : sinks_) sink->write_chunk(chunk, video_ends, stop);
    report_.frames = end;
    report_.video_bytes += chunk.bytes;
    if (report_.chunks == 0) first_chunk_frames_ = chunk.frame_count;
    if (chunk.frame_count > 0 && chunk.frame_count * 2 >= first_chunk_frames_)
        report_.peak_chunk_bytes_per_frame =
            std::max(report_.peak_chunk_bytes_per_frame,
                     static_cast<double>(chunk.bytes) / static_cast<double>(chunk.frame_count));
    ++report_.chunks;
    records_.push_back(ChunkRecord{chunk.rung, chunk.index, chunk.first_frame, chunk.frame_count, chunk.bytes,
                                   chunk.slot_label, chunk.encoder, chunk.start_seconds, chunk.end_seconds,
                                   chunk.requested_kbps, chunk.session,
                                   chunk.quality ? std::optional(chunk.quality->value) : std::nullopt,
                                   chunk.frames_gpu});
    if (chunk.quality) quality_.add(*chunk.quality);
}

void RungFinalizer::run(std::stop_token stop) {
    for (int index = 0;; ++index) {
        auto chunk = wait_for(index, stop);
        if (!chunk) break;
        if (index == 0) {
            progress_.rung_state(rung_index_, rung_.name, RungState::running);
            for (auto& sink : sinks_) sink->open(*chunk);
        }
        write_chunk(*chunk, stop);
    }
    progress_.rung_state(rung_index_, rung_.name, RungState::finalizing);
    if (report_.chunks == 0) throw RunError(fmt::format("rung {}: no chunk was encoded", rung_.name));
    {
        std::lock_guard lock(mu_);
        if (!end_ || report_.frames != end_->frames)
            throw RunError(fmt::format("rung {}: wrote {} frames of {}", rung_.name, report_.frames,
                                       end_ ? end_->frames : 0));
    }
    for (auto& sink : sinks_) sink->finish(report_.frames, stop);
    if (!sinks_.empty()) report_.output = sinks_.front()->output();
    completed_ = true;
    progress_.rung_state(rung_index_, rung_.name, RungState::completed);
}

RungReport RungFinalizer::report() const {
    RungReport r = report_;
    if (quality_.chunks > 0) {
        r.quality_mean = quality_.mean();
        r.quality_min = quality_.min;
        r.quality_chunks = quality_.chunks;
    }
    return r;
}
std::vector<ChunkRecord> RungFinalizer::chunk_records() const { return records_; }

}  // namespace ladder::engine
