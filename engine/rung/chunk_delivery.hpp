#pragma once
// The one way into a rung's writer, for every chunk whatever made it: the
// encoder workers' (encoded), --resume's route and `ladder stitch` (read
// back from the journal). In this order, once: the rung's contract checks
// the chunk (a refused one goes nowhere), a newly encoded one is journaled,
// it is reported done (ProgressSink::chunk_done), and it is handed to the
// rung's finalizer (none in a shard: the journal is its output). What is
// each caller's own stays with it: the worker's encode, rate and slot
// bookkeeping and refusals; the route's and stitch's reads of the journal.
#include <optional>
#include <string>
#include <vector>

#include "engine/base/chunk.hpp"
#include "engine/base/progress_sink.hpp"
#include "engine/output/chunk_journal.hpp"
#include "engine/rung/rung_runtime.hpp"

namespace ladder::engine {

// Where a chunk comes from: an encoder now, or a journal (--resume, stitch).
enum class ChunkOrigin { encoded, journal };

// A chunk the rung's contract accepted. Only ChunkDelivery::check makes
// one and only ChunkDelivery::deliver takes one, so nothing reaches a
// writer unchecked.
class AcceptedChunk {
public:
    EncodedChunk& chunk() { return chunk_; }
    const EncodedChunk& chunk() const { return chunk_; }

private:
    friend class ChunkDelivery;
    explicit AcceptedChunk(EncodedChunk chunk) : chunk_(std::move(chunk)) {}
    EncodedChunk chunk_;
};

class ChunkDelivery {
public:
    // rung_index: the rung's place in the ladder. journal: where encoded
    // chunks are recorded (null: nowhere); journaled ones are never written
    // again.
    ChunkDelivery(int rung_index, RungRuntime& rung, ChunkJournal* journal, ProgressSink& progress);

    struct Checked {
        std::optional<AcceptedChunk> accepted;  // empty: refused
        std::vector<std::string> differences;   // refused: what differs from the rung's contract
    };
    // The rung's contract (the first chunk checked sets it). A refused
    // chunk is dropped here: the caller still has its frames or its file.
    Checked check(EncodedChunk chunk);
    // An accepted chunk journaled (encoded ones, with a journal), reported
    // done (encode_seconds: how long its encode took; 0 for journaled ones)
    // and handed to the rung's writer.
    void deliver(AcceptedChunk accepted, ChunkOrigin origin, double encode_seconds = 0);

private:
    int rung_index_;
    RungRuntime& rung_;
    ChunkJournal* journal_;
    ProgressSink& progress_;
};

}  // namespace ladder::engine
