#pragma once
// Renders the engine's ProgressSink events for a person or a program, on
// stderr. Four renderers, picked with `ladder encode --progress`:
//   bars   live terminal bars (cli/bars_renderer.hpp)
//   plain  one line per event plus a periodic summary line, no ANSI (CI logs)
//   json   one JSON object per line (cli/json_progress_renderer.hpp,
//          schema in docs/progress-json.md)
//   none   nothing but the error, if the run fails
// Every renderer is told how the run ended with finish(), exactly once; it
// stops its own thread (if any) there and prints the final state.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "cli/progress_model.hpp"
#include "engine/base/progress_sink.hpp"

namespace ladder::cli {

enum class ProgressMode { bars, plain, json, none };

// "auto" resolves to bars when stderr is a terminal and TERM is set and not
// "dumb", else plain. Throws std::invalid_argument for an unknown name.
ProgressMode resolve_progress_mode(const std::string& name, bool stderr_is_terminal, const char* term);

// How the run ended, for finish().
struct RunOutcome {
    int exit_code = 0;                       // 0, 1, 2, or 130 / 143 (SIGINT / SIGTERM)
    std::string error;                       // the error itself (empty on success)
    std::string message;                     // the line a person reads ("ladder: error: ...")
    double wall_seconds = 0;
    std::optional<std::string> report_path;  // the JobReport written, if any
};

class ProgressRenderer : public engine::ProgressSink {
public:
    // Called once, after the run returned or threw and before the summary is
    // printed to stdout; later calls do nothing.
    virtual void finish(const RunOutcome& outcome) = 0;
    // A line a library wrote to stderr while it was captured
    // (cli/stderr_capture.hpp): json wraps it in a "log" event, bars print
    // it above the bars. Called from the capture's reader thread.
    virtual void log_line(const std::string& line) { (void)line; }
};

// A plain line per event on `out` (no ANSI), and every `summary_interval`
// (when something moved) a summary line with each rung's percent.
// quiet: warnings, chunk failures and errors only.
class PlainProgressRenderer final : public ProgressRenderer {
public:
    PlainProgressRenderer(std::FILE* out, bool quiet,
                          std::chrono::milliseconds summary_interval = std::chrono::seconds(2));
    ~PlainProgressRenderer() override;

    void note(engine::NoteLevel level, const std::string& message) override;
    void rung_state(int rung, const std::string& name, engine::RungState state) override;
    void chunk_started(int rung, const std::string& rung_name, int chunk, const std::string& slot) override;
    void chunk_done(const engine::ChunkDone& event) override;
    void chunk_failed(const std::string& rung_name, int chunk, const std::string& slot,
                      const std::string& error, const std::string& cause) override;
    void decode_progress(std::int64_t frames_decoded, std::int64_t frames_expected) override;
    void pass_started(const engine::PassStarted& event) override;
    void finish(const RunOutcome& outcome) override;

private:
    void run(std::stop_token stop);
    void print_summary_locked();
    double elapsed() const;

    std::FILE* out_;
    bool quiet_;
    std::chrono::milliseconds interval_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mu_;
    std::condition_variable_any wake_;
    ProgressModel model_;
    std::uint64_t summarized_version_ = 0;
    bool finished_ = false;
    std::jthread ticker_;  // last: it starts once everything above exists
};

// Prints nothing but the error line when the run fails.
class SilentProgressRenderer final : public ProgressRenderer {
public:
    explicit SilentProgressRenderer(std::FILE* out) : out_(out) {}
    void finish(const RunOutcome& outcome) override;

private:
    std::FILE* out_;
    bool finished_ = false;
};

std::unique_ptr<ProgressRenderer> make_progress_renderer(ProgressMode mode, std::FILE* out, bool quiet);

// Whether that renderer owns stderr during the run (json, bars): then what
// libraries print there is captured and handed to its log_line(), so that
// its own output is never broken up.
bool progress_captures_stderr(ProgressMode mode, bool quiet);

}  // namespace ladder::cli
