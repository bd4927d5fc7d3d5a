#include "engine/rung_finalizer.hpp"

#include <fmt/format.h>

#include "engine/errors.hpp"

namespace ladder::engine {

RungFinalizer::RungFinalizer(int rung_index, Rung rung, std::filesystem::path output, AVRational frame_rate,
                             AudioTrack* audio, ProgressSink& progress)
    : rung_index_(rung_index),
      rung_(std::move(rung)),
      output_(std::move(output)),
      frame_rate_(frame_rate),
      audio_(audio),
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

void RungFinalizer::write_audio_until(std::int64_t limit, std::stop_token stop) {
    if (!audio_) return;
    while (auto pkt = audio_->packet(audio_cursor_, stop)) {
        if ((*pkt)->pts >= limit) break;
        writer_->write_audio(pkt->get());
        ++audio_cursor_;
    }
    if (stop.stop_requested()) throw Cancelled();
}

void RungFinalizer::write_chunk(EncodedChunk& chunk, std::stop_token stop) {
    if (!writer_) {
        writer_ = std::make_unique<mux::SingleFileWriter>(output_, chunk.codecpar.get(), av_inv_q(frame_rate_),
                                                          audio_ ? audio_->codecpar() : nullptr,
                                                          audio_ ? audio_->time_base() : AVRational{1, 1});
    }
    if (chunk.first_frame != report_.frames)
        throw RunError(fmt::format("rung {}: chunk {} starts at frame {} but {} frames were written before it",
                                   rung_.name, chunk.index, chunk.first_frame, report_.frames));
    for (auto& pkt : chunk.packets) writer_->write_video(pkt.get());
    report_.frames += chunk.frame_count;
    report_.video_bytes += chunk.bytes;
    ++report_.chunks;
    records_.push_back(ChunkRecord{chunk.rung, chunk.index, chunk.first_frame, chunk.frame_count, chunk.bytes,
                                   chunk.slot_label, chunk.encoder, chunk.start_seconds, chunk.end_seconds});
    if (audio_) write_audio_until(av_rescale_q(report_.frames, av_inv_q(frame_rate_), audio_->time_base()), stop);
}

void RungFinalizer::run(std::stop_token stop) {
    for (int index = 0;; ++index) {
        auto chunk = wait_for(index, stop);
        if (!chunk) break;
        if (index == 0) progress_.rung_state(rung_index_, rung_.name, RungState::running);
        write_chunk(*chunk, stop);
    }
    progress_.rung_state(rung_index_, rung_.name, RungState::finalizing);
    if (!writer_) throw RunError(fmt::format("rung {}: no chunk was encoded", rung_.name));
    {
        std::lock_guard lock(mu_);
        if (report_.frames != total_frames_)
            throw RunError(fmt::format("rung {}: wrote {} frames of {}", rung_.name, report_.frames, total_frames_));
    }
    write_audio_until(INT64_MAX, stop);
    writer_->finish();
    report_.output = output_.string();
    progress_.rung_state(rung_index_, rung_.name, RungState::completed);
}

RungReport RungFinalizer::report() const { return report_; }
std::vector<ChunkRecord> RungFinalizer::chunk_records() const { return records_; }

}  // namespace ladder::engine
