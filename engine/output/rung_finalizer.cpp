#include "engine/output/rung_finalizer.hpp"

#include <fmt/format.h>

#include "engine/base/errors.hpp"

namespace ladder::engine {

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
