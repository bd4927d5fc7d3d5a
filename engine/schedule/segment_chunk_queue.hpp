#pragma once
// Per-rung queue of raw chunks waiting for an encoder. push() blocks while
// the queue holds `capacity` chunks (backpressure up to the pump);
// push_front() requeues a chunk a worker could not finish, ahead of the rest,
// and never blocks; pop() returns nothing only when the queue is closed and
// drained (or the run stops).
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>

#include "engine/base/chunk.hpp"

namespace ladder::engine {

class SegmentChunkQueue {
public:
    // on_change is called (without the queue's lock) after every push and
    // close: what the producer did, so a consumer watching many queues can
    // wake. Pops and requeues are the consumer's own moves and call nothing
    // back: a consumer that moves a chunk under its own lock (the
    // ChunkDispatcher, together with its in-flight count) publishes the move
    // itself, and a callback would have to take that lock again.
    explicit SegmentChunkQueue(std::size_t capacity, std::function<void()> on_change = {});

    bool push(RawChunk chunk, std::stop_token stop = {});
    void push_front(RawChunk chunk);
    std::optional<RawChunk> pop(std::stop_token stop = {});
    std::optional<RawChunk> try_pop();
    // Which chunks a consumer can take (an NVENC session only those in its
    // own GPU's memory); empty: any.
    using Eligible = std::function<bool(const RawChunk&)>;
    // The queued chunk with this index, taken out of its turn (an encoder
    // session goes on with the next chunk of its rung), when eligible.
    std::optional<RawChunk> try_take(int index, const Eligible& eligible = {});
    // The lowest index among the queued chunks that `eligible` accepts; -1
    // when none.
    int first_index(const Eligible& eligible) const;
    bool holds(int index) const;  // a chunk with this index is queued
    void close();

    bool closed() const;
    bool drained() const;  // closed and empty
    std::size_t size() const;
    // Index of the chunk at the front, or -1 when empty.
    int front_index() const;

private:
    void produced();  // wakes waiters, then on_change

    std::size_t capacity_;
    std::function<void()> on_change_;
    mutable std::mutex mu_;
    std::condition_variable_any cv_;
    std::deque<RawChunk> chunks_;
    bool closed_ = false;
};

}  // namespace ladder::engine
