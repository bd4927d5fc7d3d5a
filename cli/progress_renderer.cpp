#include "cli/progress_renderer.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "cli/bars_renderer.hpp"
#include "cli/json_progress_renderer.hpp"

namespace ladder::cli {

ProgressMode resolve_progress_mode(const std::string& name, bool stderr_is_terminal, const char* term) {
    if (name == "bars") return ProgressMode::bars;
    if (name == "plain") return ProgressMode::plain;
    if (name == "json") return ProgressMode::json;
    if (name == "none") return ProgressMode::none;
    if (name == "auto") {
        const bool capable = term != nullptr && *term != '\0' && std::string(term) != "dumb";
        return stderr_is_terminal && capable ? ProgressMode::bars : ProgressMode::plain;
    }
    throw std::invalid_argument(fmt::format("unknown progress mode '{}': use auto, bars, plain, json or none", name));
}

std::unique_ptr<ProgressRenderer> make_progress_renderer(ProgressMode mode, std::FILE* out, bool quiet) {
    switch (mode) {
        case ProgressMode::bars:
            // Quiet means warnings and errors only: no live display.
            if (quiet) return std::make_unique<PlainProgressRenderer>(out, true);
            return std::make_unique<BarsProgressRenderer>(out);
        case ProgressMode::plain: return std::make_unique<PlainProgressRenderer>(out, quiet);
        case ProgressMode::json: return std::make_unique<JsonProgressRenderer>(out);
        case ProgressMode::none: return std::make_unique<SilentProgressRenderer>(out);
    }
    return std::make_unique<SilentProgressRenderer>(out);
}

bool progress_captures_stderr(ProgressMode mode, bool quiet) {
    return mode == ProgressMode::json || (mode == ProgressMode::bars && !quiet);
}

// --- plain

PlainProgressRenderer::PlainProgressRenderer(std::FILE* out, bool quiet, std::chrono::milliseconds summary_interval)
    : out_(out), quiet_(quiet), interval_(summary_interval), start_(std::chrono::steady_clock::now()) {
    if (!quiet_) ticker_ = std::jthread([this](std::stop_token stop) { run(stop); });
}

PlainProgressRenderer::~PlainProgressRenderer() {
    if (ticker_.joinable()) {
        ticker_.request_stop();
        ticker_.join();
    }
}

double PlainProgressRenderer::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void PlainProgressRenderer::run(std::stop_token stop) {
    std::unique_lock lock(mu_);
    while (!stop.stop_requested()) {
        wake_.wait_for(lock, stop, interval_, [] { return false; });
        if (stop.stop_requested()) break;
        if (model_.version() != summarized_version_ && !model_.rungs().empty()) print_summary_locked();
    }
}

void PlainProgressRenderer::print_summary_locked() {
    const double now = elapsed();
    summarized_version_ = model_.version();
    std::string line = fmt::format("[{:7.1f}s] progress:", now);
    if (!model_.pass_text().empty()) line += fmt::format(" {} |", model_.pass_text());
    if (auto p = model_.decode_percent())
        line += fmt::format(" decode {:.0f}%", *p);
    else
        line += fmt::format(" decode {} frames", model_.frames_decoded());
    for (const auto& r : model_.rungs()) {
        line += " | " + r.name;
        if (auto p = model_.percent(r))
            line += fmt::format(" {:.0f}%", *p);
        else
            line += " --%";
        // (Chunks taken from the journal took no encoding: no rate to show.)
        if (r.frames_done > 0 && r.encode_seconds > 0) line += fmt::format(" {:.1f} fps", model_.fps(r, now));
        if (r.state == engine::RungState::pending || r.state == engine::RungState::finalizing ||
            r.state == engine::RungState::failed)
            line += fmt::format(" ({})", engine::to_string(r.state));
    }
    if (!model_.slots().empty()) {
        int busy = 0;
        for (const auto& s : model_.slots()) busy += s.current ? 1 : 0;
        line += fmt::format(" | slots busy {}/{}", busy, model_.slots().size());
    }
    fmt::print(out_, "{}\n", line);
    std::fflush(out_);
}

void PlainProgressRenderer::note(engine::NoteLevel level, const std::string& message) {
    std::lock_guard lock(mu_);
    if (finished_ || (quiet_ && level == engine::NoteLevel::info)) return;
    fmt::print(out_, "ladder: {}{}\n", level == engine::NoteLevel::warning ? "warning: " : "", message);
    std::fflush(out_);
}

void PlainProgressRenderer::rung_state(int rung, const std::string& name, engine::RungState state) {
    std::lock_guard lock(mu_);
    const double now = elapsed();
    model_.rung_state(rung, name, state, now);
    if (finished_ || quiet_ || state == engine::RungState::pending) return;
    fmt::print(out_, "[{:7.1f}s] rung {} {}\n", now, name, engine::to_string(state));
    std::fflush(out_);
}

void PlainProgressRenderer::chunk_started(int rung, const std::string& rung_name, int chunk, const std::string& slot) {
    std::lock_guard lock(mu_);
    model_.chunk_started(rung, rung_name, chunk, slot, elapsed());
}

void PlainProgressRenderer::chunk_done(const engine::ChunkDone& e) {
    std::lock_guard lock(mu_);
    model_.chunk_done(e, elapsed());
}

void PlainProgressRenderer::chunk_failed(const std::string& rung_name, int chunk, const std::string& slot,
                                         const std::string& error, const std::string& cause) {
    std::lock_guard lock(mu_);
    const double now = elapsed();
    model_.chunk_failed(rung_name, chunk, slot, now);
    if (finished_) return;
    fmt::print(out_, "[{:7.1f}s] ladder: warning: rung {} chunk {} failed on {}{}: {}\n", now, rung_name, chunk, slot,
               failure_cause_text(cause), error);
    std::fflush(out_);
}

void PlainProgressRenderer::decode_progress(std::int64_t decoded, std::int64_t expected) {
    std::lock_guard lock(mu_);
    const bool was_finished = model_.decode_finished();
    const double now = elapsed();
    model_.decode_progress(decoded, expected, now);
    if (finished_ || quiet_ || was_finished || !model_.decode_finished()) return;
    fmt::print(out_, "[{:7.1f}s] source decoded: {} frames\n", now, decoded);
    std::fflush(out_);
}

void PlainProgressRenderer::pass_started(const engine::PassStarted& event) {
    std::lock_guard lock(mu_);
    model_.pass_started(event);
    if (finished_ || quiet_) return;
    fmt::print(out_, "[{:7.1f}s] {}\n", elapsed(), model_.pass_text());
    std::fflush(out_);
}

void PlainProgressRenderer::finish(const RunOutcome& outcome) {
    {
        std::lock_guard lock(mu_);
        if (finished_) return;
        finished_ = true;
    }
    if (ticker_.joinable()) {
        ticker_.request_stop();
        ticker_.join();
    }
    std::lock_guard lock(mu_);
    if (!quiet_ && model_.version() != summarized_version_ && !model_.rungs().empty()) print_summary_locked();
    if (!quiet_ && outcome.report_path) fmt::print(out_, "ladder: report written to {}\n", *outcome.report_path);
    if (!outcome.message.empty()) fmt::print(out_, "{}\n", outcome.message);
    std::fflush(out_);
}

// --- none

void SilentProgressRenderer::finish(const RunOutcome& outcome) {
    if (finished_) return;
    finished_ = true;
    if (!outcome.message.empty()) {
        fmt::print(out_, "{}\n", outcome.message);
        std::fflush(out_);
    }
}

}  // namespace ladder::cli
