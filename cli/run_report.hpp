#pragma once
// `ladder encode --report FILE`: the JobReport as JSON (engine::to_json plus
// "ok" and "error"), written atomically. The engine returns a JobReport only
// when the run succeeds; for a failed run (exit 1) the report is rebuilt from
// the progress events the cli saw (marked "partial": true).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/base/job_report.hpp"
#include "engine/base/progress_sink.hpp"

namespace ladder::cli {

// Passes every event to both sinks, in order.
class ProgressTee final : public engine::ProgressSink {
public:
    ProgressTee(engine::ProgressSink& a, engine::ProgressSink& b) : a_(a), b_(b) {}
    void note(engine::NoteLevel level, const std::string& message) override;
    void rung_state(int rung, const std::string& name, engine::RungState state) override;
    void chunk_started(int rung, const std::string& rung_name, int chunk, const std::string& slot) override;
    void chunk_done(const engine::ChunkDone& event) override;
    void chunk_failed(const std::string& rung_name, int chunk, const std::string& slot,
                      const std::string& error, const std::string& cause) override;
    void decode_progress(std::int64_t frames_decoded, std::int64_t frames_expected) override;
    void pass_started(const engine::PassStarted& event) override;

private:
    engine::ProgressSink& a_;
    engine::ProgressSink& b_;
};

// Records what the events say, for a report of a run that failed and to fill
// in per-slot data and retries the engine did not report.
class ReportCollector final : public engine::ProgressSink {
public:
    ReportCollector();
    void rung_state(int rung, const std::string& name, engine::RungState state) override;
    void chunk_done(const engine::ChunkDone& event) override;
    void chunk_failed(const std::string& rung_name, int chunk, const std::string& slot,
                      const std::string& error, const std::string& cause) override;
    void decode_progress(std::int64_t frames_decoded, std::int64_t frames_expected) override;
    void pass_started(const engine::PassStarted& event) override;

    // A JobReport from the events alone: rungs (name, chunks, frames, bytes),
    // chunks (encoder left empty: the events do not say), slots, retries.
    engine::JobReport partial_report(const std::string& input, double wall_seconds) const;
    // Its JSON for a failed run: report_json(..., false, error) with
    // "partial": true and without the keys the events cannot fill (rung
    // sizes and outputs, chunk first_frame and encoder, source counters).
    nlohmann::json partial_report_json(const std::string& input, double wall_seconds, const std::string& error) const;
    // Fills `report.slots` and `report.retries` from the events when the
    // engine left them empty.
    void fill_missing(engine::JobReport& report) const;

private:
    double elapsed() const;
    std::vector<engine::SlotReport> slots_locked() const;

    std::chrono::steady_clock::time_point start_;
    mutable std::mutex mu_;
    std::vector<std::string> rung_names_;  // by index
    std::vector<engine::ChunkRecord> chunks_;
    std::vector<engine::RetryRecord> retries_;
    std::int64_t frames_decoded_ = 0;
};

// The report's path: `arg` empty means OUTDIR/report.json; "none" means no report.
std::optional<std::filesystem::path> report_path_for(const std::string& arg, const std::filesystem::path& outdir);

// engine::to_json(report) with "ok" and "error" (null when ok) added.
nlohmann::json report_json(const engine::JobReport& report, bool ok, const std::string& error);

// Writes `json` (indent 2) to `path` atomically; creates the folder when
// `create_parent`. Throws std::runtime_error naming the path.
void write_report(const std::filesystem::path& path, const nlohmann::json& json, bool create_parent);

}  // namespace ladder::cli
