#pragma once
// `--progress json`: every ProgressSink event as one JSON object on one line
// (schema version 1, docs/progress-json.md), then a final job_done or
// job_failed. Every object has "event", "t" (seconds since the run started,
// 3 decimals) and "v" (1). One mutex around each write and flush: lines from
// many threads never interleave. decode_progress is throttled to 5 a second,
// except the last one (frames_decoded == frames_expected). Under budget rate
// control, pass_started opens each pass and the chunk events carry "pass".
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/progress_renderer.hpp"

namespace ladder::cli {

class JsonProgressRenderer final : public ProgressRenderer {
public:
    static constexpr int kSchemaVersion = 1;

    explicit JsonProgressRenderer(std::FILE* out,
                                  std::chrono::milliseconds decode_interval = std::chrono::milliseconds(200));

    void note(engine::NoteLevel level, const std::string& message) override;
    void rung_state(int rung, const std::string& name, engine::RungState state) override;
    void chunk_started(int rung, const std::string& rung_name, int chunk, const std::string& slot) override;
    void chunk_done(const engine::ChunkDone& event) override;
    void chunk_failed(const std::string& rung_name, int chunk, const std::string& slot,
                      const std::string& error, const std::string& cause) override;
    void decode_progress(std::int64_t frames_decoded, std::int64_t frames_expected) override;
    void pass_started(const engine::PassStarted& event) override;
    void finish(const RunOutcome& outcome) override;
    void log_line(const std::string& line) override;

private:
    // Stamps "t" and "v" and writes the line; mu_ held.
    void emit_locked(nlohmann::ordered_json& j, std::chrono::steady_clock::time_point now);
    static nlohmann::ordered_json start(const char* event);
    // Chunk events of a run of passes say which pass; mu_ held.
    void stamp_pass_locked(nlohmann::ordered_json& j) const;

    struct RungCount {
        int chunks = 0;
        std::int64_t frames = 0;
    };

    std::FILE* out_;
    std::chrono::milliseconds decode_interval_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mu_;
    std::map<int, RungCount> done_;
    std::int64_t frames_expected_ = 0;
    std::chrono::steady_clock::time_point last_decode_{};
    bool decode_emitted_ = false;
    bool finished_ = false;
    int pass_ = 0;  // the pass_started last sent; 0 in a run of one pass
};

}  // namespace ladder::cli
