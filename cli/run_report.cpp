#include "cli/run_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "mux/output_folder.hpp"

namespace ladder::cli {

// --- tee

void ProgressTee::note(engine::NoteLevel level, const std::string& message) {
    a_.note(level, message);
    b_.note(level, message);
}
void ProgressTee::rung_state(int rung, const std::string& name, engine::RungState state) {
    a_.rung_state(rung, name, state);
    b_.rung_state(rung, name, state);
}
void ProgressTee::chunk_started(int rung, const std::string& rung_name, int chunk, const std::string& slot) {
    a_.chunk_started(rung, rung_name, chunk, slot);
    b_.chunk_started(rung, rung_name, chunk, slot);
}
void ProgressTee::chunk_done(const engine::ChunkDone& event) {
    a_.chunk_done(event);
    b_.chunk_done(event);
}
void ProgressTee::chunk_failed(const std::string& rung_name, int chunk, const std::string& slot,
                               const std::string& error, const std::string& cause) {
    a_.chunk_failed(rung_name, chunk, slot, error, cause);
    b_.chunk_failed(rung_name, chunk, slot, error, cause);
}
void ProgressTee::decode_progress(std::int64_t frames_decoded, std::int64_t frames_expected) {
    a_.decode_progress(frames_decoded, frames_expected);
    b_.decode_progress(frames_decoded, frames_expected);
}

void ProgressTee::pass_started(const engine::PassStarted& event) {
    a_.pass_started(event);
    b_.pass_started(event);
}

// --- collector

ReportCollector::ReportCollector() : start_(std::chrono::steady_clock::now()) {}

double ReportCollector::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ReportCollector::rung_state(int rung, const std::string& name, engine::RungState) {
    std::lock_guard lock(mu_);
    if (rung < 0) return;
    if (rung_names_.size() <= static_cast<std::size_t>(rung)) rung_names_.resize(static_cast<std::size_t>(rung) + 1);
    rung_names_[static_cast<std::size_t>(rung)] = name;
}

void ReportCollector::chunk_done(const engine::ChunkDone& e) {
    const double now = elapsed();
    std::lock_guard lock(mu_);
    engine::ChunkRecord c;
    c.rung = e.rung;
    c.index = e.chunk;
    c.frames = e.frames;
    c.bytes = e.bytes;
    c.slot = e.slot;
    c.start_seconds = std::max(0.0, now - e.encode_seconds);
    c.end_seconds = now;
    chunks_.push_back(std::move(c));
    if (e.rung >= 0 && rung_names_.size() <= static_cast<std::size_t>(e.rung))
        rung_names_.resize(static_cast<std::size_t>(e.rung) + 1);
    if (e.rung >= 0 && rung_names_[static_cast<std::size_t>(e.rung)].empty())
        rung_names_[static_cast<std::size_t>(e.rung)] = e.rung_name;
}

// Each pass goes over every chunk again: a failed run's report lists the
// chunks of the pass it failed in, each once.
void ReportCollector::pass_started(const engine::PassStarted&) {
    std::lock_guard lock(mu_);
    chunks_.clear();
}

void ReportCollector::chunk_failed(const std::string& rung_name, int chunk, const std::string& slot,
                                   const std::string& error, const std::string& cause) {
    std::lock_guard lock(mu_);
    retries_.push_back(engine::RetryRecord{rung_name, chunk, slot, error, cause});
}

void ReportCollector::decode_progress(std::int64_t frames_decoded, std::int64_t) {
    std::lock_guard lock(mu_);
    frames_decoded_ = frames_decoded;
}

std::vector<engine::SlotReport> ReportCollector::slots_locked() const {
    std::vector<engine::SlotReport> slots;
    auto slot = [&slots](const std::string& label) -> engine::SlotReport& {
        for (auto& s : slots)
            if (s.label == label) return s;
        engine::SlotReport s;
        s.label = label;
        slots.push_back(std::move(s));
        return slots.back();
    };
    for (const auto& c : chunks_) {
        engine::SlotReport& s = slot(c.slot);
        s.chunks += 1;
        s.busy_seconds += c.end_seconds - c.start_seconds;
    }
    for (const auto& r : retries_) slot(r.slot).failures += 1;
    return slots;
}

engine::JobReport ReportCollector::partial_report(const std::string& input, double wall_seconds) const {
    std::lock_guard lock(mu_);
    engine::JobReport report;
    report.input = input;
    report.frames_normalized = frames_decoded_;
    report.wall_seconds = wall_seconds;
    for (const auto& name : rung_names_) {
        engine::RungReport r;
        r.name = name;
        report.rungs.push_back(std::move(r));
    }
    std::vector<engine::ChunkRecord> chunks = chunks_;
    std::sort(chunks.begin(), chunks.end(),
              [](const auto& a, const auto& b) { return std::tie(a.rung, a.index) < std::tie(b.rung, b.index); });
    for (const auto& c : chunks) {
        if (c.rung < 0 || static_cast<std::size_t>(c.rung) >= report.rungs.size()) continue;
        engine::RungReport& r = report.rungs[static_cast<std::size_t>(c.rung)];
        r.chunks += 1;
        r.frames += c.frames;
        r.video_bytes += c.bytes;
    }
    report.chunks = std::move(chunks);
    report.slots = slots_locked();
    report.retries = retries_;
    return report;
}

nlohmann::json ReportCollector::partial_report_json(const std::string& input, double wall_seconds,
                                                    const std::string& error) const {
    nlohmann::json j = report_json(partial_report(input, wall_seconds), false, error);
    j["partial"] = true;
    for (const char* key : {"source_video_packets", "source_frames_decoded", "audio_packets", "frame_rate",
                            "encoder_slots", "decode_seconds"})
        j.erase(key);
    for (auto& r : j["rungs"])
        for (const char* key : {"width", "height", "bitrate_kbps", "output", "average_kbps", "encoders"}) r.erase(key);
    for (auto& c : j["chunks"])
        for (const char* key : {"first_frame", "encoder"}) c.erase(key);
    for (auto& s : j["slots"]) s.erase("encoder");
    return j;
}

void ReportCollector::fill_missing(engine::JobReport& report) const {
    std::lock_guard lock(mu_);
    if (report.slots.empty()) {
        report.slots = slots_locked();
        // Busy time from the engine's own chunk records when it has them.
        for (auto& s : report.slots) {
            double busy = 0;
            int chunks = 0;
            std::string encoder;
            for (const auto& c : report.chunks)
                if (c.slot == s.label) {
                    busy += c.end_seconds - c.start_seconds;
                    ++chunks;
                    if (encoder.empty()) encoder = c.encoder;
                }
            if (chunks > 0) {
                s.busy_seconds = busy;
                s.chunks = chunks;
                s.encoder = encoder;
            }
        }
    }
    if (report.retries.empty()) report.retries = retries_;
}

// --- writing

std::optional<std::filesystem::path> report_path_for(const std::string& arg, const std::filesystem::path& outdir) {
    if (arg == "none") return std::nullopt;
    if (arg.empty()) return outdir / "report.json";
    return std::filesystem::path(arg);
}

nlohmann::json report_json(const engine::JobReport& report, bool ok, const std::string& error) {
    nlohmann::json j = report;
    j["ok"] = ok;
    j["error"] = ok ? nlohmann::json(nullptr) : nlohmann::json(error);
    return j;
}

void write_report(const std::filesystem::path& path, const nlohmann::json& json, bool create_parent) {
    const auto parent = path.parent_path();
    std::error_code ec;
    if (create_parent && !parent.empty()) {
        std::filesystem::create_directories(parent, ec);
        if (ec)
            throw std::runtime_error(
                fmt::format("cannot create the report's folder {}: {}", parent.string(), ec.message()));
    }
    std::string text = json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    text += '\n';
    try {
        mux::write_file_atomically(path, std::string_view(text));
    } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("cannot write the report {}: {}", path.string(), e.what()));
    }
}

}  // namespace ladder::cli
