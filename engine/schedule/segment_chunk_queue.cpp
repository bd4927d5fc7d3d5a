#include "engine/schedule/segment_chunk_queue.hpp"

namespace ladder::engine {

SegmentChunkQueue::SegmentChunkQueue(std::size_t capacity) : capacity_(capacity ? capacity : 1) {}

bool SegmentChunkQueue::push(RawChunk chunk, std::stop_token stop) {
    {
        std::unique_lock lock(mu_);
        if (!cv_.wait(lock, stop, [&] { return chunks_.size() < capacity_; })) return false;
        chunks_.push_back(std::move(chunk));
    }
    cv_.notify_all();
    return true;
}

void SegmentChunkQueue::push_front(RawChunk chunk) {
    {
        std::lock_guard lock(mu_);
        chunks_.push_front(std::move(chunk));
    }
    cv_.notify_all();
}

std::optional<RawChunk> SegmentChunkQueue::pop(std::stop_token stop) {
    std::optional<RawChunk> out;
    {
        std::unique_lock lock(mu_);
        if (!cv_.wait(lock, stop, [&] { return !chunks_.empty() || closed_; })) return std::nullopt;
        if (chunks_.empty()) return std::nullopt;
        out = std::move(chunks_.front());
        chunks_.pop_front();
    }
    cv_.notify_all();
    return out;
}

std::optional<RawChunk> SegmentChunkQueue::try_pop() {
    std::optional<RawChunk> out;
    {
        std::lock_guard lock(mu_);
        if (chunks_.empty()) return std::nullopt;
        out = std::move(chunks_.front());
        chunks_.pop_front();
    }
    cv_.notify_all();
    return out;
}

void SegmentChunkQueue::close() {
    {
        std::lock_guard lock(mu_);
        closed_ = true;
    }
    cv_.notify_all();
}

bool SegmentChunkQueue::closed() const {
    std::lock_guard lock(mu_);
    return closed_;
}

bool SegmentChunkQueue::drained() const {
    std::lock_guard lock(mu_);
    return closed_ && chunks_.empty();
}

std::size_t SegmentChunkQueue::size() const {
    std::lock_guard lock(mu_);
    return chunks_.size();
}

int SegmentChunkQueue::front_index() const {
    std::lock_guard lock(mu_);
    return chunks_.empty() ? -1 : chunks_.front().index;
}

}  // namespace ladder::engine
