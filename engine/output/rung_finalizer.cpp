#include "engine/output/rung_finalizer.hpp"

#include <fmt/format.h>

#include "engine/media/audio_segment_plan.hpp"
#include "engine/base/errors.hpp"
#include "engine/media/language_tag.hpp"
#include "mux/hls_track_playlists.hpp"

namespace ladder::engine {

RungFinalizer::RungFinalizer(int rung_index, Rung rung, mux::OutputFolder outdir, RungOutputs outputs, AVRational frame_rate,
                             AudioTracks* audio, const SubtitleTracks* subtitles, av::HdrMetadata hdr, ProgressSink& progress)
    : hdr_(std::move(hdr)),
      rung_index_(rung_index),
      rung_(std::move(rung)),
      outdir_(std::move(outdir)),
      outputs_(std::move(outputs)),
      frame_rate_(frame_rate),
      audio_(audio),
      subtitles_(subtitles),
      progress_(progress) {
    report_.name = rung_.name;
    report_.width = rung_.width;
    report_.height = rung_.height;
    report_.bitrate_kbps = rung_.bitrate_kbps;
}

void RungFinalizer::deliver(EncodedChunk chunk) {
    {
        std::lock_guard lock(mu_);
        const int index = chunk.index;
        waiting_.emplace(index, std::move(chunk));
    }
    cv_.notify_all();
}

void RungFinalizer::set_total(int chunks, std::int64_t frames) {
    {
        std::lock_guard lock(mu_);
        total_chunks_ = chunks;
        total_frames_ = frames;
    }
    cv_.notify_all();
}

std::size_t RungFinalizer::waiting() const {
    std::lock_guard lock(mu_);
    return waiting_.size();
}

std::optional<EncodedChunk> RungFinalizer::wait_for(int index, std::stop_token stop) {
    std::unique_lock lock(mu_);
    bool ok = cv_.wait(lock, stop, [&] {
        return waiting_.count(index) != 0 || (total_chunks_ && index >= *total_chunks_);
    });
    if (!ok) throw Cancelled();
    auto it = waiting_.find(index);
    if (it == waiting_.end()) return std::nullopt;  // past the last chunk
    EncodedChunk c = std::move(it->second);
    waiting_.erase(it);
    return c;
}

void RungFinalizer::write_audio_until(std::int64_t frames, bool video_ended, std::stop_token stop) {
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
            mp4_->write_audio(t, p);
            ++audio_cursors_[t];
        }
        if (stop.stop_requested()) throw Cancelled();
    }
}

void RungFinalizer::write_subtitles_until(std::int64_t frames, std::stop_token stop) {
    if (!subtitles_) return;
    subtitle_cursors_.resize(subtitles_->size());
    const std::int64_t limit = av_rescale_q(frames, av_inv_q(frame_rate_), AVRational{1, 1000});
    bool at_end = false;
    {
        std::lock_guard lock(mu_);
        at_end = frames == total_frames_;
    }
    for (std::size_t t = 0; t < subtitles_->size(); ++t) {
        const std::vector<av::PacketPtr>* samples = subtitles_->mov_text(t, stop);
        if (!samples) throw Cancelled();
        for (std::size_t& i = subtitle_cursors_[t]; i < samples->size() && (*samples)[i]->pts < limit; ++i) {
            av::PacketPtr pkt = av::ref_packet((*samples)[i].get());
            // A cue running past the video's end is cut there.
            if (at_end && pkt->pts + pkt->duration > limit) pkt->duration = limit - pkt->pts;
            mp4_->write_subtitle(t, pkt.get());
        }
    }
}

void RungFinalizer::open_outputs(const EncodedChunk& first) {
    const AVRational tb = av_inv_q(frame_rate_);
    if (outputs_.mp4) {
        std::vector<mux::Mp4AudioTrack> audio;
        for (std::size_t t = 0; audio_ && t < audio_->size(); ++t)
            audio.push_back({audio_->track(t).codecpar(), audio_->track(t).time_base(),
                             iso639_2t_language(audio_->spec(t).language), audio_->spec(t).name,
                             audio_->spec(t).is_default});
        std::vector<mux::Mp4SubtitleTrack> subtitles;
        for (std::size_t t = 0; subtitles_ && t < subtitles_->size(); ++t) {
            const SubtitleRenditionSpec& spec = subtitles_->spec(t);
            subtitles.push_back({subtitles_->mov_text_codecpar(t), iso639_2t_language(spec.language), spec.name,
                                 spec.is_default, spec.is_forced});
        }
        mp4_ = std::make_unique<mux::SingleFileWriter>(outdir_, *outputs_.mp4, first.codecpar.get(), tb, audio, hdr_, subtitles);
    }
    if (outputs_.hls_folder)
        cmaf_ = std::make_unique<mux::CmafTrackWriter>(outdir_.folder(*outputs_.hls_folder), first.codecpar.get(), tb,
                                                       hdr_);
}

void RungFinalizer::write_chunk(EncodedChunk& chunk, std::stop_token stop) {
    if (chunk.first_frame != report_.frames)
        throw RunError(fmt::format("rung {}: chunk {} starts at frame {} but {} frames were written before it",
                                   rung_.name, chunk.index, chunk.first_frame, report_.frames));
    for (auto& pkt : chunk.packets) {
        // Muxers take the packet's reference: the second output gets its own.
        if (cmaf_) cmaf_->write(mp4_ ? av::ref_packet(pkt.get()).get() : pkt.get());
        if (mp4_) mp4_->write_video(pkt.get());
    }
    if (cmaf_) {
        hls_segments_.push_back(cmaf_->close_segment());
        if (hls_segments_.back().samples != chunk.frame_count)
            throw RunError(fmt::format("rung {}: segment {} holds {} samples, chunk {} has {} frames", rung_.name,
                                       hls_segments_.back().uri, hls_segments_.back().samples, chunk.index,
                                       chunk.frame_count));
    }
    report_.frames += chunk.frame_count;
    report_.video_bytes += chunk.bytes;
    ++report_.chunks;
    records_.push_back(ChunkRecord{chunk.rung, chunk.index, chunk.first_frame, chunk.frame_count, chunk.bytes,
                                   chunk.slot_label, chunk.encoder, chunk.start_seconds, chunk.end_seconds,
                                   chunk.requested_kbps, chunk.session,
                                   chunk.quality ? std::optional(chunk.quality->value) : std::nullopt,
                                   chunk.frames_gpu});
    if (chunk.quality) quality_.add(*chunk.quality);
    if (mp4_) {
        write_audio_until(report_.frames, false, stop);
        write_subtitles_until(report_.frames, stop);
    }
}

void RungFinalizer::finish_hls() {
    cmaf_->finish();
    cmaf_->folder().write_atomically("iframes.m3u8",
                                     mux::render_media_playlist(mux::iframe_playlist_for(hls_segments_)));
    cmaf_->folder().write_atomically("index.m3u8", mux::render_media_playlist(mux::media_playlist_for(hls_segments_)));
}

void RungFinalizer::run(std::stop_token stop) {
    for (int index = 0;; ++index) {
        auto chunk = wait_for(index, stop);
        if (!chunk) break;
        if (index == 0) {
            progress_.rung_state(rung_index_, rung_.name, RungState::running);
            open_outputs(*chunk);
        }
        write_chunk(*chunk, stop);
    }
    progress_.rung_state(rung_index_, rung_.name, RungState::finalizing);
    if (report_.chunks == 0) throw RunError(fmt::format("rung {}: no chunk was encoded", rung_.name));
    {
        std::lock_guard lock(mu_);
        if (report_.frames != total_frames_)
            throw RunError(fmt::format("rung {}: wrote {} frames of {}", rung_.name, report_.frames, total_frames_));
    }
    if (mp4_) {
        // Audio that runs on after the video is cut at its end.
        write_audio_until(report_.frames, true, stop);
        write_subtitles_until(report_.frames, stop);
        mp4_->finish();
        report_.output = mp4_->final_path().string();
    }
    if (cmaf_) {
        finish_hls();
        if (report_.output.empty()) report_.output = (cmaf_->dir() / "index.m3u8").string();
    }
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
