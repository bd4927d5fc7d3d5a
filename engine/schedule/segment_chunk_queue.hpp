#pragma once
// Where a producer (a RungScaler) puts its chunks: ChunkInlet. Two kinds:
// a rung's queue inside the ChunkDispatcher (ChunkDispatcher::queue()), and
// SegmentChunkQueue, a queue of its own for one consumer (the complexity
// analysis) and for tests.
//
// SegmentChunkQueue: per-rung queue of raw chunks waiting for one consumer.
// push() blocks while the queue holds `capacity` chunks (backpressure up to
// the pump); push_front() requeues a chunk a consumer could not finish,
// ahead of the rest, and never blocks; pop() returns nothing only when the
// queue is closed and drained (or the run stops). It calls nobody back.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <stop_token>

#include "engine/base/chunk.hpp"

namespace ladder::engine {

class ChunkInlet {
public:
    virtual ~ChunkInlet() = default;
    // Blocks while the queue is full; false on stop (the chunk is dropped).
    virtual bool push(RawChunk chunk, std::stop_token stop = {}) = 0;
    // Nothing more will be pushed.
    virtual void close() = 0;
    // The producer waits for memory before its next push (true), or no
    // longer (false): a consumer should not wait for a chunk that cannot come
    // until it frees memory. Called holding no lock.
    virtual void waiting_for_memory(bool /*waiting*/) {}
};

class SegmentChunkQueue final : public ChunkInlet {
public:
    explicit SegmentChunkQueue(std::size_t capacity);

    bool push(RawChunk chunk, std::stop_token stop = {}) override;
    void push_front(RawChunk chunk);
    std::optional<RawChunk> pop(std::stop_token stop = {});
    std::optional<RawChunk> try_pop();
    void close() override;

    bool closed() const;
    bool drained() const;  // closed and empty
    std::size_t size() const;
    // Index of the chunk at the front, or -1 when empty.
    int front_index() const;

private:
    std::size_t capacity_;
    mutable std::mutex mu_;  // the queue's own: guards chunks_ and closed_; a leaf
    std::condition_variable_any cv_;
    std::deque<RawChunk> chunks_;
    bool closed_ = false;
};

}  // namespace ladder::engine
