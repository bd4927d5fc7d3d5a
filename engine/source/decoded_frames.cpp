#include "engine/source/decoded_frames.hpp"

extern "C" {
#include <libavutil/frame.h>
}

namespace ladder::engine {

DecodedFrames::DecodedFrames(BudgetReservation reservation, std::uint64_t limit)
    : reservation_(std::move(reservation)), limit_(limit) {}

std::uint64_t DecodedFrames::frame_bytes(const AVFrame* frame) {
    std::uint64_t bytes = 0;
    for (const AVBufferRef* buf : frame->buf)
        if (buf) bytes += buf->size;
    return bytes;
}

void DecodedFrames::keep(const AVFrame* frame) {
    const std::uint64_t bytes = frame_bytes(frame);
    std::lock_guard lock(mu_);
    if (sealed_ || overflowed_) return;
    if (bytes_ + bytes > limit_ || frames_.count(frame->pts)) {
        // More than the source was estimated to hold, or a number twice:
        // the later passes decode after all.
        overflowed_ = true;
        frames_.clear();
        bytes_ = 0;
        return;
    }
    frames_.emplace(frame->pts, av::ref_frame(frame));
    bytes_ += bytes;
}

void DecodedFrames::seal(const PumpCounters& totals, bool pass_completed) {
    std::lock_guard lock(mu_);
    if (sealed_) return;
    sealed_ = true;
    const bool whole = pass_completed && !overflowed_ && !frames_.empty() &&
                       frames_.begin()->first == totals.first_frame && frames_.rbegin()->first + 1 == totals.end_frame &&
                       static_cast<std::int64_t>(frames_.size()) == totals.end_frame - totals.first_frame;
    if (!whole) {
        overflowed_ = true;
        frames_.clear();
        bytes_ = 0;
        reservation_ = BudgetReservation();
        return;
    }
    decoded_ = totals;
}

bool DecodedFrames::complete() const {
    std::lock_guard lock(mu_);
    return sealed_ && !overflowed_;
}

bool DecodedFrames::keeping() const {
    std::lock_guard lock(mu_);
    return !sealed_ && !overflowed_;
}

std::vector<const AVFrame*> DecodedFrames::frames() const {
    std::lock_guard lock(mu_);
    std::vector<const AVFrame*> out;
    if (!sealed_ || overflowed_) return out;
    out.reserve(frames_.size());
    for (const auto& [number, frame] : frames_) out.push_back(frame.get());
    return out;
}

std::uint64_t DecodedFrames::bytes() const {
    std::lock_guard lock(mu_);
    return bytes_;
}

}  // namespace ladder::engine
