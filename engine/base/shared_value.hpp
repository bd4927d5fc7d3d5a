#pragma once
// A value one thread publishes once and others wait for: the decode lanes'
// frame numbering (the first lane's first timestamp) and the source's end
// (known to the last lane, wanted by the audio reader).
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stop_token>

namespace ladder::engine {

template <typename T>
class SharedValue {
public:
    void set(T value) {
        {
            std::lock_guard lock(mu_);
            if (value_) return;  // the first one stays
            value_ = std::move(value);
        }
        cv_.notify_all();
    }
    // Nothing when stopped before the value came.
    std::optional<T> wait(std::stop_token stop) const {
        std::unique_lock lock(mu_);
        if (!cv_.wait(lock, stop, [&] { return value_.has_value(); })) return std::nullopt;
        return value_;
    }
    std::optional<T> get() const {
        std::lock_guard lock(mu_);
        return value_;
    }

private:
    mutable std::mutex mu_;  // the value's own: guards what follows; a leaf
    mutable std::condition_variable_any cv_;
    std::optional<T> value_;
};

}  // namespace ladder::engine
