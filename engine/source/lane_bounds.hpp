#pragma once
// Where a decode lane stops, shared by its pump (which reads up to it) and
// the lanes' owner (which may start another lane on the rest of this one's
// range): the end moves earlier only to a cut the lane has not read yet, so
// the two lanes never both decode a frame.
#include <cstdint>
#include <mutex>
#include <optional>

extern "C" {
#include <libavutil/avutil.h>
}

namespace ladder::engine {

class LaneBounds {
public:
    // end_pts: the next lane's key frame (AV_NOPTS_VALUE: the source's end).
    explicit LaneBounds(std::int64_t start_pts, std::int64_t end_pts)
        : end_(end_pts), read_(start_pts == AV_NOPTS_VALUE ? INT64_MIN : start_pts), ends_source_(end_pts == AV_NOPTS_VALUE) {}

    // The lane read a video packet (pts, key frame or not): true when it is
    // the key frame where the lane ends.
    bool ends_at(std::int64_t pts, bool key) {
        std::lock_guard lock(mu_);
        if (key && end_ != AV_NOPTS_VALUE && pts == end_) return true;
        if (pts != AV_NOPTS_VALUE && pts > read_) read_ = pts;
        return false;
    }
    // Ends the lane at cut instead, when every packet it has read shows
    // before cut; returns its end until now (AV_NOPTS_VALUE: the source's).
    // after_cut runs under the lane's lock, before the lane can see its new end.
    template <typename F>
    std::optional<std::int64_t> cut_at(std::int64_t cut, F&& after_cut) {
        std::lock_guard lock(mu_);
        if (read_ >= cut || (end_ != AV_NOPTS_VALUE && cut >= end_)) return std::nullopt;
        const std::int64_t old = end_;
        after_cut();
        end_ = cut;
        ends_source_ = false;
        return old;
    }
    std::int64_t end() const {
        std::lock_guard lock(mu_);
        return end_;
    }
    std::int64_t read() const {
        std::lock_guard lock(mu_);
        return read_;
    }
    // Whether the lane's frames end with the source's (its end is the source's).
    bool ends_source() const {
        std::lock_guard lock(mu_);
        return ends_source_;
    }

private:
    mutable std::mutex mu_;  // the bounds' own: guards what follows; held around cut_at's callback
    std::int64_t end_;
    std::int64_t read_;
    bool ends_source_;
};

}  // namespace ladder::engine
