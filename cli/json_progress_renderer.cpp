#include "cli/json_progress_renderer.hpp"

#include <cmath>

namespace ladder::cli {

using ordered_json = nlohmann::ordered_json;

JsonProgressRenderer::JsonProgressRenderer(std::FILE* out, std::chrono::milliseconds decode_interval)
    : out_(out), decode_interval_(decode_interval), start_(std::chrono::steady_clock::now()) {}

ordered_json JsonProgressRenderer::start(const char* event) {
    ordered_json j;
    j["event"] = event;
    j["t"] = 0.0;  // stamped in emit_locked; here to keep the key order event, t, v
    j["v"] = kSchemaVersion;
    return j;
}

void JsonProgressRenderer::emit_locked(ordered_json& j, std::chrono::steady_clock::time_point now) {
    if (finished_ && j["event"] != "job_done" && j["event"] != "job_failed") return;  // job_* is the last line
    const double t = std::chrono::duration<double>(now - start_).count();
    j["t"] = std::round(t * 1000.0) / 1000.0;
    // Invalid UTF-8 (a file name, an FFmpeg message) must not throw here.
    std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), out_);
    std::fflush(out_);
}

void JsonProgressRenderer::stamp_pass_locked(ordered_json& j) const {
    if (pass_ > 0) j["pass"] = pass_;
}

void JsonProgressRenderer::note(engine::NoteLevel level, const std::string& message) {
    auto j = start("note");
    j["level"] = level == engine::NoteLevel::warning ? "warning" : "info";
    j["message"] = message;
    std::lock_guard lock(mu_);
    emit_locked(j, std::chrono::steady_clock::now());
}

void JsonProgressRenderer::rung_state(int rung, const std::string& name, engine::RungState state) {
    auto j = start("rung_state");
    j["rung"] = rung;
    j["name"] = name;
    j["state"] = engine::to_string(state);
    std::lock_guard lock(mu_);
    emit_locked(j, std::chrono::steady_clock::now());
}

void JsonProgressRenderer::chunk_started(int rung, const std::string& rung_name, int chunk, const std::string& slot) {
    auto j = start("chunk_started");
    j["rung"] = rung;
    j["rung_name"] = rung_name;
    j["chunk"] = chunk;
    j["slot"] = slot;
    std::lock_guard lock(mu_);
    stamp_pass_locked(j);
    emit_locked(j, std::chrono::steady_clock::now());
}

void JsonProgressRenderer::chunk_done(const engine::ChunkDone& e) {
    auto j = start("chunk_done");
    j["rung"] = e.rung;
    j["rung_name"] = e.rung_name;
    j["chunk"] = e.chunk;
    j["slot"] = e.slot;
    j["frames"] = e.frames;
    j["bytes"] = e.bytes;
    j["encode_seconds"] = std::round(e.encode_seconds * 1000.0) / 1000.0;
    if (e.crf >= 0) j["crf"] = e.crf;
    std::lock_guard lock(mu_);
    RungCount& c = done_[e.rung];
    c.chunks += 1;
    c.frames += e.frames;
    // The engine's own counts when it gives them, else the renderer's.
    j["chunks_done"] = e.chunks_done > 0 ? e.chunks_done : c.chunks;
    if (e.chunks_expected > 0) j["chunks_expected"] = e.chunks_expected;
    j["rung_frames_done"] = c.frames;
    j["frames_expected"] = frames_expected_ > 0 ? ordered_json(frames_expected_) : ordered_json(nullptr);
    stamp_pass_locked(j);
    emit_locked(j, std::chrono::steady_clock::now());
}

void JsonProgressRenderer::chunk_failed(const std::string& rung_name, int chunk, const std::string& slot,
                                        const std::string& error, const std::string& cause) {
    auto j = start("chunk_failed");
    j["rung_name"] = rung_name;
    j["chunk"] = chunk;
    j["slot"] = slot;
    j["cause"] = cause;
    j["error"] = error;
    std::lock_guard lock(mu_);
    stamp_pass_locked(j);
    emit_locked(j, std::chrono::steady_clock::now());
}

void JsonProgressRenderer::decode_progress(std::int64_t decoded, std::int64_t expected) {
    const bool final = decoded == expected;
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();  // under the lock: "t" never goes back
    frames_expected_ = std::max(expected, decoded);
    if (!final && decode_emitted_ && now - last_decode_ < decode_interval_) return;
    decode_emitted_ = true;
    last_decode_ = now;
    auto j = start("decode_progress");
    j["frames_decoded"] = decoded;
    j["frames_expected"] = expected;
    j["done"] = final;
    emit_locked(j, now);
}

void JsonProgressRenderer::pass_started(const engine::PassStarted& event) {
    auto j = start("pass_started");
    j["pass"] = event.pass;
    j["writes_outputs"] = event.writes_outputs;
    j["searching"] = event.searching;
    std::lock_guard lock(mu_);
    pass_ = event.pass;
    done_.clear();  // chunks_done and rung_frames_done count within the pass
    emit_locked(j, std::chrono::steady_clock::now());
}

void JsonProgressRenderer::log_line(const std::string& line) {
    auto j = start("log");
    j["message"] = line;
    std::lock_guard lock(mu_);
    emit_locked(j, std::chrono::steady_clock::now());
}

void JsonProgressRenderer::finish(const RunOutcome& o) {
    std::lock_guard lock(mu_);
    if (finished_) return;
    finished_ = true;
    auto j = start(o.exit_code == 0 ? "job_done" : "job_failed");
    j["ok"] = o.exit_code == 0;
    j["exit_code"] = o.exit_code;
    if (o.exit_code != 0) j["error"] = o.error;
    j["wall_seconds"] = std::round(o.wall_seconds * 1000.0) / 1000.0;
    j["report"] = o.report_path ? ordered_json(*o.report_path) : ordered_json(nullptr);
    emit_locked(j, std::chrono::steady_clock::now());
}

}  // namespace ladder::cli
