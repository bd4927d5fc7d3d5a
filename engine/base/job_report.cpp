#include "engine/base/job_report.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "engine/base/progress_sink.hpp"

namespace ladder::engine {

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
                       {"frames_decoded_on_gpu", r.frames_decoded_on_gpu},
                       {"dropped_devices", r.dropped_devices},
                       {"gpu_encoder_probes", r.gpu_encoder_probes},
                       {"memory_budget", r.memory_budget},
                       {"peak_queued_bytes", r.peak_queued_bytes},
                       {"gpu_memory_budget", r.gpu_memory_budget},
                       {"peak_gpu_queued_bytes", r.peak_gpu_queued_bytes},
                       {"resumed_chunks", r.resumed_chunks},
                       {"wall_seconds", r.wall_seconds}};
    auto& gpu_memory = j["gpu_memory"] = nlohmann::json::array();
    for (const auto& g : r.gpu_memory)
        gpu_memory.push_back({{"gpu", g.gpu}, {"budget", g.budget}, {"peak_queued_bytes", g.peak_queued_bytes}});
    auto& phases = j["phase_seconds"] = nlohmann::json::object();
    for (const auto& [phase, seconds] : r.phase_seconds) phases[phase] = seconds;
    auto& lanes = j["decode_lanes"] = nlohmann::json::array();
    for (const auto& l : r.decode_lanes)
        lanes.push_back({{"lane", l.lane},
                         {"device", l.device},
                         {"first_frame", l.first_frame},
                         {"end_frame", l.end_frame},
                         {"packets", l.packets},
                         {"frames_decoded", l.frames_decoded},
                         {"busy_seconds", l.busy_seconds},
                         {"seconds", l.seconds}});
    if (r.shard)
        j["shard"] = {{"index", r.shard->index},           {"count", r.shard->count},
                      {"first_chunk", r.shard->first_chunk}, {"end_chunk", r.shard->end_chunk},
                      {"chunks_encoded", r.shard->chunks_encoded}, {"chunks_kept", r.shard->chunks_kept}};
    auto& rungs = j["rungs"] = nlohmann::json::array();
    for (std::size_t i = 0; i < r.rungs.size(); ++i) {
        const auto& g = r.rungs[i];
        // Per-rung summaries derived from the chunk, retry and mismatch records.
        double encode_seconds = 0, start = 0, end = 0;
        bool any = false;
        std::vector<std::string> slot_labels, encoders;
        for (const auto& c : r.chunks) {
            if (c.rung != static_cast<int>(i)) continue;
            encode_seconds += c.end_seconds - c.start_seconds;
            start = any ? std::min(start, c.start_seconds) : c.start_seconds;
            end = any ? std::max(end, c.end_seconds) : c.end_seconds;
            any = true;
            if (std::find(slot_labels.begin(), slot_labels.end(), c.slot) == slot_labels.end())
                slot_labels.push_back(c.slot);
            if (!c.encoder.empty() && std::find(encoders.begin(), encoders.end(), c.encoder) == encoders.end())
                encoders.push_back(c.encoder);
        }
        int retries = 0, mismatches = 0;
        for (const auto& t : r.retries) retries += t.rung == g.name ? 1 : 0;
        for (const auto& m : r.mismatches) mismatches += m.rung == g.name ? m.count : 0;
        const double media_seconds = r.frame_rate > 0 ? static_cast<double>(g.frames) / r.frame_rate : 0.0;
        const double average_kbps =
            media_seconds > 0 ? static_cast<double>(g.video_bytes) * 8.0 / 1000.0 / media_seconds : 0.0;
        rungs.push_back({{"name", g.name},
                         {"width", g.width},
                         {"height", g.height},
                         {"bitrate_kbps", g.bitrate_kbps},
                         {"chunks", g.chunks},
                         {"frames", g.frames},
                         {"video_bytes", g.video_bytes},
                         {"output", g.output},
                         {"average_kbps", average_kbps},
                         {"encode_seconds", encode_seconds},
                         {"start_seconds", start},
                         {"end_seconds", end},
                         {"encode_fps", encode_seconds > 0 ? static_cast<double>(g.frames) / encode_seconds : 0.0},
                         {"slots", slot_labels},
                         {"encoders", encoders},
                         {"retries", retries},
                         {"mismatches", mismatches}});
        if (!r.quality_metric.empty() && g.quality_mean)
            rungs.back()["quality"][r.quality_metric] = {
                {"mean", *g.quality_mean}, {"min", *g.quality_min}, {"chunks", g.quality_chunks}};
    }
    auto& slots = j["slots"] = nlohmann::json::array();
    for (const auto& s : r.slots)
        slots.push_back({{"label", s.label},
                         {"encoder", s.encoder},
                         {"chunks", s.chunks},
                         {"sessions", std::count_if(r.sessions.begin(), r.sessions.end(),
                                                    [&s](const auto& session) { return session.slot == s.label; })},
                         {"encoders_opened",
                          std::count_if(r.sessions.begin(), r.sessions.end(),
                                        [&s](const auto& session) { return session.slot == s.label && session.opened_encoder; })},
                         {"busy_seconds", s.busy_seconds},
                         {"busy_share", r.wall_seconds > 0 ? s.busy_seconds / r.wall_seconds : 0.0},
                         {"failures", s.failures},
                         {"quarantined", s.quarantined},
                         {"processes", s.processes}});
    auto& mismatches = j["mismatches"] = nlohmann::json::array();
    for (const auto& m : r.mismatches)
        mismatches.push_back({{"rung", m.rung}, {"encoder", m.encoder}, {"count", m.count}, {"fields", m.fields}});
    auto& retries = j["retries"] = nlohmann::json::array();
    for (const auto& t : r.retries)
        retries.push_back(
            {{"rung", t.rung}, {"chunk", t.chunk}, {"slot", t.slot}, {"cause", t.cause}, {"error", t.error}});
    auto& chunks = j["chunks"] = nlohmann::json::array();
    for (const auto& c : r.chunks) {
        chunks.push_back({{"rung", c.rung},
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
        if (!r.quality_metric.empty() && c.quality) chunks.back()["quality"][r.quality_metric] = *c.quality;
        if (c.frames_gpu >= 0) chunks.back()["frames_gpu"] = c.frames_gpu;
    }
    auto& sessions = j["sessions"] = nlohmann::json::array();
    for (const auto& s : r.sessions)
        sessions.push_back({{"id", s.id},
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
                            {"start_seconds", s.start_seconds},
                            {"end_seconds", s.end_seconds}});
}

}  // namespace ladder::engine
