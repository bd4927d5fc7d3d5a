#pragma once
// What the progress events said so far: per rung (state, frames and chunks
// done, which slots work on it), per encoder slot (busy time, what it does
// now) and the decode. Fed by a renderer under its own lock; not thread-safe
// by itself. Times are seconds since the renderer started (the run's start).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/job_report.hpp"
#include "engine/base/progress_sink.hpp"

namespace ladder::cli {

// " (encoder process crashed)" / " (encoder process hung)" for a failed
// attempt's cause, nothing for an error the encoder reported itself.
std::string failure_cause_text(const std::string& cause);

// "3 failed chunk attempts were retried: 2 encoder process crashes, 1 hang,
// 0 errors"; empty when nothing failed.
std::string retry_summary(const std::vector<engine::RetryRecord>& retries);

struct RungProgress {
    int index = 0;
    std::string name;
    engine::RungState state = engine::RungState::pending;
    std::int64_t frames_done = 0;
    int chunks_done = 0;
    int failures = 0;
    double encode_seconds = 0;                 // sum over its chunks
    std::optional<double> first_start;         // earliest chunk start seen
    std::optional<double> finished_at;         // completed or failed
    std::map<std::string, int> working_slots;  // slot label -> chunk it encodes now
};

struct SlotWork {
    int rung = 0;
    std::string rung_name;
    int chunk = 0;
    double since = 0;
};

struct SlotProgress {
    std::string label;
    double busy_seconds = 0;  // finished attempts (done or failed)
    int chunks = 0;
    int failures = 0;
    std::optional<SlotWork> current;
};

class ProgressModel {
public:
    void rung_state(int rung, const std::string& name, engine::RungState state, double now);
    void chunk_started(int rung, const std::string& rung_name, int chunk, const std::string& slot, double now);
    void chunk_done(const engine::ChunkDone& e, double now);
    void chunk_failed(const std::string& rung_name, int chunk, const std::string& slot, double now);
    void decode_progress(std::int64_t decoded, std::int64_t expected, double now);
    // A pass of budget rate control starts: rungs count frames and chunks
    // of this pass only (each pass goes over the whole source again).
    void pass_started(const engine::PassStarted& event);

    // Rungs in ladder order (by index); slots in the order they were first seen.
    const std::vector<RungProgress>& rungs() const { return rungs_; }
    const std::vector<SlotProgress>& slots() const { return slots_; }
    std::int64_t frames_decoded() const { return decoded_; }
    std::int64_t frames_expected() const { return expected_; }
    bool decode_finished() const { return decode_finished_; }
    // Bumped by every event: a renderer can tell whether anything moved.
    std::uint64_t version() const { return version_; }
    // "pass 2, searching 720p 1080p" / "pass 5, writing the outputs"; empty
    // in a run of one pass.
    const std::string& pass_text() const { return pass_text_; }

    // 0..100 of the frames every rung will have (an estimate until the
    // source is fully read); nullopt while unknown. A completed rung is 100.
    std::optional<double> percent(const RungProgress& r) const;
    std::optional<double> decode_percent() const;
    // Frames done per wall-clock second, from the rung's first chunk start to
    // now (or to its end): the rung's throughput over all slots on it.
    double fps(const RungProgress& r, double now) const;
    // Busy seconds (finished attempts + the current one) over `now`.
    double busy_seconds(const SlotProgress& s, double now) const;
    double busy_share(const SlotProgress& s, double now) const;

private:
    RungProgress& rung_at(int index, const std::string& name);
    RungProgress* rung_named(const std::string& name);
    SlotProgress& slot(const std::string& label);

    std::vector<RungProgress> rungs_;
    std::vector<SlotProgress> slots_;
    std::int64_t decoded_ = 0;
    std::int64_t expected_ = 0;
    bool decode_finished_ = false;
    std::uint64_t version_ = 0;
    std::string pass_text_;
};

}  // namespace ladder::cli
