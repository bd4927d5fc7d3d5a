#pragma once
// How the engine tells the outside world what is happening. The engine never
// prints: cli/ renders these events (terminal lines today, JSON later).
// Calls come from many threads; implementations synchronize themselves.
#include <cstdint>
#include <string>
#include <vector>

namespace ladder::engine {

enum class RungState { pending, running, finalizing, completed, failed };
enum class NoteLevel { info, warning };

const char* to_string(RungState s);

struct ChunkDone {
    int rung = 0;
    std::string rung_name;
    int chunk = 0;
    std::int64_t frames = 0;
    std::size_t bytes = 0;
    std::string slot;
    double encode_seconds = 0;
    int crf = -1;              // budget rate control: the CRF it was encoded at; -1 otherwise
    int chunks_done = 0;       // of this rung, including this one
    int chunks_expected = 0;   // estimate until the source is fully read
};

// Budget rate control runs passes over the source (a rung's chunks
// encoded at trial CRFs, then the pass that writes the outputs); every
// chunk event after this one belongs to this pass. Not sent by a run of
// one pass.
struct PassStarted {
    int pass = 0;  // from 1
    bool writes_outputs = false;
    std::vector<std::string> searching;  // rungs that encode trial chunks in it
};

class ProgressSink {
public:
    virtual ~ProgressSink() = default;
    virtual void note(NoteLevel, const std::string& message) { (void)message; }
    virtual void rung_state(int rung, const std::string& name, RungState state) {
        (void)rung, (void)name, (void)state;
    }
    virtual void chunk_started(int rung, const std::string& rung_name, int chunk, const std::string& slot) {
        (void)rung, (void)rung_name, (void)chunk, (void)slot;
    }
    virtual void chunk_done(const ChunkDone& event) { (void)event; }
    // A chunk attempt failed (it is retried elsewhere unless the run fails);
    // cause as in RetryRecord: error, crash or hang.
    virtual void chunk_failed(const std::string& rung_name, int chunk, const std::string& slot,
                              const std::string& error, const std::string& cause) {
        (void)rung_name, (void)chunk, (void)slot, (void)error, (void)cause;
    }
    virtual void decode_progress(std::int64_t frames_decoded, std::int64_t frames_expected) {
        (void)frames_decoded, (void)frames_expected;
    }
    virtual void pass_started(const PassStarted& event) { (void)event; }
};

// A sink that ignores everything (tests, library use).
class NullProgressSink final : public ProgressSink {};

}  // namespace ladder::engine
