#include "cli/bars_renderer.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace ladder::cli {

namespace {

constexpr int kBarWidth = 20;

std::string bar(std::optional<double> percent) {
    const int filled = percent ? std::clamp(static_cast<int>(*percent / 100.0 * kBarWidth + 0.5), 0, kBarWidth) : 0;
    return "[" + std::string(static_cast<std::size_t>(filled), '#') +
           std::string(static_cast<std::size_t>(kBarWidth - filled), '-') + "]";
}

std::string percent_text(std::optional<double> percent) {
    return percent ? fmt::format("{:3.0f}%", *percent) : std::string(" --%");
}

std::string fit(std::string line, int width) {
    const auto max = static_cast<std::size_t>(std::max(width - 1, 10));
    if (line.size() > max) line.resize(max);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line;
}

// The engine's state, except that a pending rung some slot already works on
// reads "starting" (it turns "running" when its first chunk is delivered).
const char* state_text(const RungProgress& r) {
    if (r.state == engine::RungState::pending && (!r.working_slots.empty() || r.chunks_done > 0)) return "starting";
    return engine::to_string(r.state);
}

}  // namespace

BarsProgressRenderer::BarsProgressRenderer(std::FILE* out, BarsOptions options)
    : out_(out), options_(options), start_(std::chrono::steady_clock::now()) {
    thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
}

BarsProgressRenderer::~BarsProgressRenderer() {
    if (thread_.joinable()) {
        thread_.request_stop();
        thread_.join();
    }
}

double BarsProgressRenderer::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

int BarsProgressRenderer::columns() const {
    if (options_.width > 0) return options_.width;
    winsize ws{};
    if (::ioctl(fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    if (const char* env = std::getenv("COLUMNS")) {
        const int c = std::atoi(env);
        if (c > 0) return c;
    }
    return 100;
}

std::vector<std::string> BarsProgressRenderer::frame_lines(const ProgressModel& m, double now, int width) {
    std::vector<std::string> lines;
    lines.push_back(fit(m.pass_text().empty() ? fmt::format("ladder  {:.1f} s", now)
                                              : fmt::format("ladder  {:.1f} s  {}", now, m.pass_text()),
                        width));
    std::size_t name_w = 6;
    for (const auto& r : m.rungs()) name_w = std::max(name_w, r.name.size());
    std::size_t slot_w = 4;
    for (const auto& s : m.slots()) slot_w = std::max(slot_w, s.label.size());
    const std::int64_t expected = std::max(m.frames_expected(), m.frames_decoded());
    const std::string expected_text = expected > 0 ? fmt::format("{}", expected) : std::string("?");
    for (const auto& r : m.rungs()) {
        const auto p = m.percent(r);
        std::string line = fmt::format("{:<{}} {} {} {:>13} {:6.1f} fps  {:<10}", r.name, name_w, bar(p),
                                       percent_text(p), fmt::format("{}/{} fr", r.frames_done, expected_text),
                                       m.fps(r, now), state_text(r));
        if (!r.working_slots.empty()) {
            line += " on";
            for (const auto& [label, chunk] : r.working_slots) line += " " + label;
        }
        if (r.failures > 0) line += fmt::format("  ({} failed attempt{})", r.failures, r.failures == 1 ? "" : "s");
        lines.push_back(fit(std::move(line), width));
    }
    for (const auto& s : m.slots()) {
        std::string line = fmt::format("{:<{}} busy {:3.0f}%  {} chunk{}  ", s.label, std::max(slot_w, name_w),
                                       100.0 * m.busy_share(s, now), s.chunks, s.chunks == 1 ? " " : "s");
        if (s.current)
            line += fmt::format("{} chunk {} ({:.1f} s)", s.current->rung_name, s.current->chunk,
                                std::max(0.0, now - s.current->since));
        else
            line += "idle";
        if (s.failures > 0) line += fmt::format("  {} failure{}", s.failures, s.failures == 1 ? "" : "s");
        lines.push_back(fit(std::move(line), width));
    }
    const auto dp = m.decode_percent();
    lines.push_back(fit(fmt::format("{:<{}} {} {} {:>13}  {}", "decode", name_w, bar(dp), percent_text(dp),
                                    fmt::format("{}/{} fr", m.frames_decoded(), expected_text),
                                    m.decode_finished() ? "done" : "decoding"),
                        width));
    return lines;
}

void BarsProgressRenderer::erase_block_locked() {
    // Back to the start of the block's first line, and clear what is below.
    if (lines_drawn_ > 1) fmt::print(out_, "\r\x1b[{}A", lines_drawn_ - 1);
    else if (lines_drawn_ == 1) std::fputs("\r", out_);
    if (lines_drawn_ > 0) std::fputs("\x1b[J", out_);
}

void BarsProgressRenderer::draw_locked() {
    const auto lines = frame_lines(model_, elapsed(), columns());
    std::string text;
    if (lines_drawn_ > 1) text += fmt::format("\r\x1b[{}A", lines_drawn_ - 1);
    else if (lines_drawn_ == 1) text += "\r";
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (i > 0) text += "\n";
        text += "\x1b[2K" + lines[i];
    }
    // The block never shrinks (rungs and slots are only added), but stay
    // correct if it did: clear the leftover lines below.
    if (static_cast<int>(lines.size()) < lines_drawn_) text += "\x1b[J";
    std::fwrite(text.data(), 1, text.size(), out_);
    std::fflush(out_);
    lines_drawn_ = static_cast<int>(lines.size());
    last_draw_ = std::chrono::steady_clock::now();
    dirty_ = false;
}

void BarsProgressRenderer::print_above_locked(const std::string& line) {
    if (lines_drawn_ == 0) {
        fmt::print(out_, "{}\n", line);
        std::fflush(out_);
        return;
    }
    erase_block_locked();
    fmt::print(out_, "\x1b[2K{}\n", line);
    lines_drawn_ = 0;
    draw_locked();
}

void BarsProgressRenderer::changed_locked() {
    dirty_ = true;
    wake_.notify_one();
}

void BarsProgressRenderer::run(std::stop_token stop) {
    std::unique_lock lock(mu_);
    while (!stop.stop_requested()) {
        // A tick every interval, sooner after an event, but never two draws
        // closer than the interval.
        wake_.wait_for(lock, stop, options_.interval, [this] { return dirty_; });
        if (stop.stop_requested()) break;
        const auto earliest = last_draw_ + options_.interval;
        if (std::chrono::steady_clock::now() < earliest) {
            wake_.wait_until(lock, stop, earliest, [] { return false; });
            if (stop.stop_requested()) break;
        }
        // Nothing to show before the ladder is known (a usage error may still come).
        if (model_.rungs().empty()) {
            dirty_ = false;
            continue;
        }
        draw_locked();
    }
}

void BarsProgressRenderer::note(engine::NoteLevel level, const std::string& message) {
    std::lock_guard lock(mu_);
    if (finished_) return;
    print_above_locked(fmt::format("ladder: {}{}", level == engine::NoteLevel::warning ? "warning: " : "", message));
}

void BarsProgressRenderer::log_line(const std::string& line) {
    std::lock_guard lock(mu_);
    if (finished_) return;
    print_above_locked(line);
}

void BarsProgressRenderer::rung_state(int rung, const std::string& name, engine::RungState state) {
    std::lock_guard lock(mu_);
    model_.rung_state(rung, name, state, elapsed());
    if (finished_) return;
    if (state == engine::RungState::failed)
        print_above_locked(fmt::format("ladder: rung {} failed", name));
    else
        changed_locked();
}

void BarsProgressRenderer::chunk_started(int rung, const std::string& rung_name, int chunk, const std::string& slot) {
    std::lock_guard lock(mu_);
    model_.chunk_started(rung, rung_name, chunk, slot, elapsed());
    changed_locked();
}

void BarsProgressRenderer::chunk_done(const engine::ChunkDone& e) {
    std::lock_guard lock(mu_);
    model_.chunk_done(e, elapsed());
    changed_locked();
}

void BarsProgressRenderer::chunk_failed(const std::string& rung_name, int chunk, const std::string& slot,
                                        const std::string& error, const std::string& cause) {
    std::lock_guard lock(mu_);
    model_.chunk_failed(rung_name, chunk, slot, elapsed());
    if (finished_) return;
    print_above_locked(
        fmt::format("ladder: warning: rung {} chunk {} failed on {}{}: {}", rung_name, chunk, slot,
                    failure_cause_text(cause), error));
}

void BarsProgressRenderer::decode_progress(std::int64_t decoded, std::int64_t expected) {
    std::lock_guard lock(mu_);
    model_.decode_progress(decoded, expected, elapsed());
    changed_locked();
}

void BarsProgressRenderer::pass_started(const engine::PassStarted& event) {
    std::lock_guard lock(mu_);
    model_.pass_started(event);
    changed_locked();
}

void BarsProgressRenderer::finish(const RunOutcome& outcome) {
    {
        std::lock_guard lock(mu_);
        if (finished_) return;
        finished_ = true;
    }
    if (thread_.joinable()) {
        thread_.request_stop();
        thread_.join();
    }
    std::lock_guard lock(mu_);
    if (lines_drawn_ > 0 || !model_.rungs().empty()) {
        draw_locked();
        std::fputs("\n", out_);
    }
    lines_drawn_ = 0;
    if (outcome.report_path) fmt::print(out_, "ladder: report written to {}\n", *outcome.report_path);
    if (!outcome.message.empty()) fmt::print(out_, "{}\n", outcome.message);
    std::fflush(out_);
}

}  // namespace ladder::cli
