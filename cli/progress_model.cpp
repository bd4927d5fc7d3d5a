#include "cli/progress_model.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace ladder::cli {

std::string failure_cause_text(const std::string& cause) {
    if (cause == "crash") return " (encoder process crashed)";
    if (cause == "hang") return " (encoder process hung)";
    if (cause == "undecodable") return " (the chunk it made did not decode)";
    return "";
}

std::string retry_summary(const std::vector<engine::RetryRecord>& retries) {
    if (retries.empty()) return "";
    int crashes = 0, hangs = 0, undecodable = 0;
    for (const auto& r : retries) {
        crashes += r.cause == "crash" ? 1 : 0;
        hangs += r.cause == "hang" ? 1 : 0;
        undecodable += r.cause == "undecodable" ? 1 : 0;
    }
    const auto n = static_cast<int>(retries.size());
    const int errors = n - crashes - hangs - undecodable;
    // Undecodable chunks are named only when there were some (a rare
    // encoder fault), so the usual line stays as it was.
    const std::string corrupt =
        undecodable ? fmt::format(", {} undecodable chunk{}", undecodable, undecodable == 1 ? "" : "s") : "";
    return fmt::format("{} failed chunk attempt{} retried: {} encoder process crash{}, {} hang{}{}, {} error{}", n,
                       n == 1 ? " was" : "s were", crashes, crashes == 1 ? "" : "es", hangs, hangs == 1 ? "" : "s",
                       corrupt, errors, errors == 1 ? "" : "s");
}

RungProgress& ProgressModel::rung_at(int index, const std::string& name) {
    for (auto& r : rungs_)
        if (r.index == index) {
            if (r.name.empty()) r.name = name;
            return r;
        }
    RungProgress r;
    r.index = index;
    r.name = name;
    auto at = std::find_if(rungs_.begin(), rungs_.end(), [&](const RungProgress& x) { return x.index > index; });
    return *rungs_.insert(at, std::move(r));
}

RungProgress* ProgressModel::rung_named(const std::string& name) {
    for (auto& r : rungs_)
        if (r.name == name) return &r;
    return nullptr;
}

SlotProgress& ProgressModel::slot(const std::string& label) {
    for (auto& s : slots_)
        if (s.label == label) return s;
    SlotProgress s;
    s.label = label;
    slots_.push_back(std::move(s));
    return slots_.back();
}

void ProgressModel::pass_started(const engine::PassStarted& event) {
    ++version_;
    pass_text_ = event.writes_outputs ? fmt::format("pass {}, writing the outputs", event.pass)
                                      : fmt::format("pass {}, searching {}", event.pass, fmt::join(event.searching, " "));
    for (auto& r : rungs_) {
        r.frames_done = 0;
        r.chunks_done = 0;
        r.encode_seconds = 0;
        r.first_start.reset();
        r.finished_at.reset();
        r.working_slots.clear();
    }
}

void ProgressModel::rung_state(int rung, const std::string& name, engine::RungState state, double now) {
    ++version_;
    RungProgress& r = rung_at(rung, name);
    r.state = state;
    if (state == engine::RungState::completed || state == engine::RungState::failed) {
        r.finished_at = now;
        r.working_slots.clear();
    }
}

void ProgressModel::chunk_started(int rung, const std::string& rung_name, int chunk, const std::string& label,
                                  double now) {
    ++version_;
    RungProgress& r = rung_at(rung, rung_name);
    if (!r.first_start || now < *r.first_start) r.first_start = now;
    SlotProgress& s = slot(label);
    if (s.current) {  // a start without an end: the old attempt is over
        if (RungProgress* old = rung_named(s.current->rung_name)) old->working_slots.erase(label);
        s.busy_seconds += std::max(0.0, now - s.current->since);
    }
    s.current = SlotWork{rung, rung_name, chunk, now};
    r.working_slots[label] = chunk;
}

void ProgressModel::chunk_done(const engine::ChunkDone& e, double now) {
    ++version_;
    RungProgress& r = rung_at(e.rung, e.rung_name);
    r.frames_done += e.frames;
    r.chunks_done += 1;
    r.encode_seconds += e.encode_seconds;
    const double started = std::max(0.0, now - e.encode_seconds);
    if (!r.first_start || started < *r.first_start) r.first_start = started;
    r.working_slots.erase(e.slot);
    SlotProgress& s = slot(e.slot);
    s.busy_seconds += e.encode_seconds;
    s.chunks += 1;
    s.current.reset();
}

void ProgressModel::chunk_failed(const std::string& rung_name, int, const std::string& label, double now) {
    ++version_;
    if (RungProgress* r = rung_named(rung_name)) {
        r->failures += 1;
        r->working_slots.erase(label);
    }
    SlotProgress& s = slot(label);
    if (s.current) s.busy_seconds += std::max(0.0, now - s.current->since);
    s.failures += 1;
    s.current.reset();
}

void ProgressModel::decode_progress(std::int64_t decoded, std::int64_t expected, double) {
    ++version_;
    decoded_ = decoded;
    expected_ = expected;
    // The pump's last report is (n, n): the count is exact from then on.
    if (decoded == expected) decode_finished_ = true;
}

std::optional<double> ProgressModel::percent(const RungProgress& r) const {
    if (r.state == engine::RungState::completed) return 100.0;
    const std::int64_t expected = std::max(expected_, decoded_);
    if (expected <= 0) return std::nullopt;
    return std::clamp(100.0 * static_cast<double>(r.frames_done) / static_cast<double>(expected), 0.0, 100.0);
}

std::optional<double> ProgressModel::decode_percent() const {
    if (decode_finished_) return 100.0;
    if (expected_ <= 0) return std::nullopt;
    return std::clamp(100.0 * static_cast<double>(decoded_) / static_cast<double>(expected_), 0.0, 100.0);
}

double ProgressModel::fps(const RungProgress& r, double now) const {
    if (!r.first_start || r.frames_done == 0) return 0.0;
    const double end = r.finished_at ? *r.finished_at : now;
    const double span = end - *r.first_start;
    return span > 1e-3 ? static_cast<double>(r.frames_done) / span : 0.0;
}

double ProgressModel::busy_seconds(const SlotProgress& s, double now) const {
    return s.busy_seconds + (s.current ? std::max(0.0, now - s.current->since) : 0.0);
}

double ProgressModel::busy_share(const SlotProgress& s, double now) const {
    return now > 1e-3 ? std::clamp(busy_seconds(s, now) / now, 0.0, 1.0) : 0.0;
}

}  // namespace ladder::cli
