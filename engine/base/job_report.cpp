#include "engine/base/job_report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "engine/base/progress_sink.hpp"

namespace ladder::engine {

std::optional<RateStanding> rate_standing(const RungReport& rung, double frame_rate) {
    const double seconds = frame_rate > 0 ? static_cast<double>(rung.frames) / frame_rate : 0.0;
    if (seconds <= 0 || rung.bitrate_kbps <= 0) return std::nullopt;
    RateStanding s;
    s.average_kbps = static_cast<double>(rung.video_bytes) * 8.0 / 1000.0 / seconds;
    s.off = s.average_kbps / rung.bitrate_kbps - 1.0;
    if (s.off > kRateTolerance) s.verdict = RateStanding::Verdict::over;
    if (s.off < -kRateTolerance) s.verdict = RateStanding::Verdict::under;
    if (rung.video_bytes > 0)
        s.peak_over_average = rung.peak_chunk_bytes_per_frame * static_cast<double>(rung.frames) /
                              static_cast<double>(rung.video_bytes);
    return s;
}

const char* verdict_name(RateStanding::Verdict verdict) {
    switch (verdict) {
        case RateStanding::Verdict::over: return "over";
        case RateStanding::Verdict::under: return "under";
        case RateStanding::Verdict::on_target: break;
    }
    return "on_target";
}

const char* to_string(RungState s) {
    switch (s) {
        case RungState::pending: return "pending";
        case RungState::running: return "running";
        case RungState::finalizing: return "finalizing";
        case RungState::completed: return "completed";
        case RungState::failed: return "failed";
    }
    return "unknown";
}

namespace {

nlohmann::json gpu_memory_json(const JobReport& r) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& g : r.gpu_memory)
        out.push_back({{"gpu", g.gpu}, {"budget", g.budget}, {"peak_queued_bytes", g.peak_queued_bytes}});
    return out;
}

nlohmann::json phase_seconds_json(const JobReport& r) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [phase, seconds] : r.phase_seconds) out[phase] = seconds;
    return out;
}

nlohmann::json decode_lanes_json(const JobReport& r) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& l : r.decode_lanes)
        out.push_back({{"lane", l.lane},
                       {"device", l.device},
                       {"first_frame", l.first_frame},
                       {"end_frame", l.end_frame},
                       {"packets", l.packets},
                       {"frames_decoded", l.frames_decoded},
                       {"busy_seconds", l.busy_seconds},
                       {"seconds", l.seconds}});
    return out;
}

nlohmann::json shard_json(const ShardSummary& s) {
    return {{"index", s.index},           {"count", s.count},
            {"first_chunk", s.first_chunk}, {"end_chunk", s.end_chunk},
            {"chunks_encoded", s.chunks_encoded}, {"chunks_kept", s.chunks_kept}};
}

// A rung's work as its chunk records tell it: the encoders' seconds on it,
// its first start and last end, and which slots and encoders made it (in the
// order they first appear).
struct RungWork {
    double encode_seconds = 0;
    double start = 0;
    double end = 0;
    std::vector<std::string> slot_labels;
    std::vector<std::string> encoders;
};

void add_once(std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

RungWork rung_work(const JobReport& r, int rung) {
    RungWork w;
    bool any = false;
    for (const auto& c : r.chunks) {
        if (c.rung != rung) continue;
        w.encode_seconds += c.end_seconds - c.start_seconds;
        w.start = any ? std::min(w.start, c.start_seconds) : c.start_seconds;
        w.end = any ? std::max(w.end, c.end_seconds) : c.end_seconds;
        any = true;
        add_once(w.slot_labels, c.slot);
        if (!c.encoder.empty()) add_once(w.encoders, c.encoder);
    }
    return w;
}

nlohmann::json rung_json(const JobReport& r, int rung) {
    const auto& g = r.rungs[static_cast<std::size_t>(rung)];
    const RungWork w = rung_work(r, rung);
    int retries = 0, mismatches = 0;
    for (const auto& t : r.retries) retries += t.rung == g.name ? 1 : 0;
    for (const auto& m : r.mismatches) mismatches += m.rung == g.name ? m.count : 0;
    const double media_seconds = r.frame_rate > 0 ? static_cast<double>(g.frames) / r.frame_rate : 0.0;
    const double average_kbps =
        media_seconds > 0 ? static_cast<double>(g.video_bytes) * 8.0 / 1000.0 / media_seconds : 0.0;
    nlohmann::json out = {{"name", g.name},
                          {"width", g.width},
                          {"height", g.height},
                          {"bitrate_kbps", g.bitrate_kbps},
                          {"chunks", g.chunks},
                          {"frames", g.frames},
                          {"video_bytes", g.video_bytes},
                          {"output", g.output},
                          {"average_kbps", average_kbps},
                          {"encode_seconds", w.encode_seconds},
                          {"start_seconds", w.start},
                          {"end_seconds", w.end},
                          {"encode_fps", w.encode_seconds > 0 ? static_cast<double>(g.frames) / w.encode_seconds : 0.0},
                          {"slots", w.slot_labels},
                          {"encoders", w.encoders},
                          {"retries", retries},
                          {"mismatches", mismatches}};
    if (g.crf >= 0) out["crf"] = g.crf;
    if (!g.crf_search.empty())
        out["crf_search"] = {{"verdict", g.crf_search}, {"encodes", g.crf_encodes}, {"chunk_crf", g.chunk_crf},
                              {"peak_capped_chunks", g.crf_peak_capped}};
    if (const auto standing = rate_standing(g, r.frame_rate)) {
        out["rate_verdict"] = verdict_name(standing->verdict);
        out["target_off_percent"] = std::round(standing->off * 1000.0) / 10.0;
        out["peak_over_average"] = std::round(standing->peak_over_average * 100.0) / 100.0;
    }
    if (!r.quality_metric.empty() && g.quality_mean)
        out["quality"][r.quality_metric] = {{"mean", *g.quality_mean}, {"min", *g.quality_min}, {"chunks", g.quality_chunks}};
    return out;
}

nlohmann::json rungs_json(const JobReport& r) {
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < r.rungs.size(); ++i) out.push_back(rung_json(r, static_cast<int>(i)));
    return out;
}

nlohmann::json slots_json(const JobReport& r) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : r.slots)
        out.push_back({{"label", s.label},
                       {"encoder", s.encoder},
                       {"chunks", s.chunks},
                       {"sessions", std::count_if(r.sessions.begin(), r.sessions.end(),
                                                  [&s](const auto& session) { return session.slot == s.label; })},
                       {"encoders_opened",
                        std::count_if(r.sessions.begin(), r.sessions.end(),
                                      [&s](const auto& session) {
                                          return session.slot == s.label && (session.opened_encoder || session.opened_ahead);
                                      })},
                       {"busy_seconds", s.busy_seconds},
                       {"busy_share", r.wall_seconds > 0 ? s.busy_seconds / r.wall_seconds : 0.0},
                       {"failures", s.failures},
                       {"quarantined", s.quarantined},
                       {"processes", s.processes}});
    return out;
}

nlohmann::json mismatches_json(const JobReport& r) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& m : r.mismatches)
        out.push_back({{"rung", m.rung}, {"encoder", m.encoder}, {"count", m.count}, {"fields", m.fields}});
    return out;
}

nlohmann::json retries_json(const JobReport& r) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& t : r.retries)
        out.push_back({{"rung", t.rung}, {"chunk", t.chunk}, {"slot", t.slot}, {"cause", t.cause}, {"error", t.error}});
    return out;
}

nlohmann::json chunks_json(const JobReport& r) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : r.chunks) {
        out.push_back({{"rung", c.rung},
                       {"index", c.index},
                       {"first_frame", c.first_frame},
                       {"frames", c.frames},
                       {"bytes", c.bytes},
                       {"slot", c.slot},
                       {"encoder", c.encoder},
                       {"start_seconds", c.start_seconds},
                       {"end_seconds", c.end_seconds},
                       {"requested_kbps", c.requested_kbps},
                       {"session", c.session}});
        if (!r.quality_metric.empty() && c.quality) out.back()["quality"][r.quality_metric] = *c.quality;
        if (c.frames_gpu >= 0) out.back()["frames_gpu"] = c.frames_gpu;
    }
    return out;
}

nlohmann::json sessions_json(const JobReport& r) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : r.sessions)
        out.push_back({{"id", s.id},
                       {"rung", s.rung},
                       {"slot", s.slot},
                       {"encoder", s.encoder},
                       {"threads", s.threads},
                       {"requested_kbps", s.requested_kbps},
                       {"weight", s.weight},
                       {"left_weight", s.left_weight},
                       {"measured_chunks", s.measured_chunks},
                       {"chunks", s.chunks},
                       {"bytes", s.bytes},
                       {"opened_encoder", s.opened_encoder},
                       {"opened_ahead", s.opened_ahead},
                       {"ended", s.ended},
                       {"start_seconds", s.start_seconds},
                       {"end_seconds", s.end_seconds}});
    return out;
}

}  // namespace

void to_json(nlohmann::json& j, const JobReport& r) {
    j = nlohmann::json{{"input", r.input},
                       {"source_video_packets", r.source_video_packets},
                       {"source_frames_decoded", r.source_frames_decoded},
                       {"frames_normalized", r.frames_normalized},
                       {"audio_packets", r.audio_packets},
                       {"frame_rate", r.frame_rate},
                       {"encoder_slots", r.encoder_slots},
                       {"decode_seconds", r.decode_seconds},
                       {"decode_device", r.decode_device},
                       {"rate_control", r.rate_control},
                       {"decode_checked_encoders", r.decode_checked_encoders},
                       {"frames_decoded_on_gpu", r.frames_decoded_on_gpu},
                       {"dropped_devices", r.dropped_devices},
                       {"gpu_encoder_probes", r.gpu_encoder_probes},
                       {"gpu_encoders_opened_ahead", r.gpu_encoders_opened_ahead},
                       {"gpu_encoders_never_used", r.gpu_encoders_never_used},
                       {"memory_budget", r.memory_budget},
                       {"peak_queued_bytes", r.peak_queued_bytes},
                       {"gpu_memory_budget", r.gpu_memory_budget},
                       {"peak_gpu_queued_bytes", r.peak_gpu_queued_bytes},
                       {"resumed_chunks", r.resumed_chunks},
                       {"source_passes", r.source_passes},
                       {"replayed_passes", r.replayed_passes},
                       {"kept_frame_bytes", r.kept_frame_bytes},
                       {"wall_seconds", r.wall_seconds}};
    j["gpu_memory"] = gpu_memory_json(r);
    j["phase_seconds"] = phase_seconds_json(r);
    j["decode_lanes"] = decode_lanes_json(r);
    if (r.shard) j["shard"] = shard_json(*r.shard);
    j["rungs"] = rungs_json(r);
    j["slots"] = slots_json(r);
    j["mismatches"] = mismatches_json(r);
    j["retries"] = retries_json(r);
    j["chunks"] = chunks_json(r);
    j["sessions"] = sessions_json(r);
}

}  // namespace ladder::engine
