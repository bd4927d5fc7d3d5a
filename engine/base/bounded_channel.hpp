#pragma once
// A bounded FIFO between two threads (decode pump -> rung scaler). push()
// blocks while full, pop() blocks while empty; both wake on stop. close() ends
// the stream: pop() returns nullopt once it is drained.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <stop_token>

namespace ladder::engine {

template <typename T>
class BoundedChannel {
public:
    explicit BoundedChannel(std::size_t capacity) : capacity_(capacity ? capacity : 1) {}

    // False when stopped before there was room.
    bool push(T value, std::stop_token stop) {
        std::unique_lock lock(mu_);
        if (!cv_.wait(lock, stop, [&] { return items_.size() < capacity_; })) return false;
        items_.push_back(std::move(value));
        cv_.notify_all();
        return true;
    }

    std::optional<T> pop(std::stop_token stop) {
        std::unique_lock lock(mu_);
        if (!cv_.wait(lock, stop, [&] { return !items_.empty() || closed_; })) return std::nullopt;
        if (items_.empty()) return std::nullopt;
        T v = std::move(items_.front());
        items_.pop_front();
        cv_.notify_all();
        return v;
    }

    void close() {
        std::lock_guard lock(mu_);
        closed_ = true;
        cv_.notify_all();
    }

    bool closed() const {
        std::lock_guard lock(mu_);
        return closed_;
    }

private:
    std::size_t capacity_;
    mutable std::mutex mu_;  // the channel's own: guards what follows; a leaf
    std::condition_variable_any cv_;
    std::deque<T> items_;
    bool closed_ = false;
};

}  // namespace ladder::engine
