#include "engine/job_report.hpp"

#include <nlohmann/json.hpp>

#include "engine/progress_sink.hpp"

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
                       {"wall_seconds", r.wall_seconds}};
    auto& rungs = j["rungs"] = nlohmann::json::array();
    for (const auto& g : r.rungs)
        rungs.push_back({{"name", g.name},
                         {"width", g.width},
                         {"height", g.height},
                         {"bitrate_kbps", g.bitrate_kbps},
                         {"chunks", g.chunks},
                         {"frames", g.frames},
                         {"video_bytes", g.video_bytes},
                         {"output", g.output}});
    auto& slots = j["slots"] = nlohmann::json::array();
    for (const auto& s : r.slots)
        slots.push_back({{"label", s.label},
                         {"encoder", s.encoder},
                         {"chunks", s.chunks},
                         {"busy_seconds", s.busy_seconds},
                         {"failures", s.failures},
                         {"quarantined", s.quarantined}});
    auto& mismatches = j["mismatches"] = nlohmann::json::array();
    for (const auto& m : r.mismatches)
        mismatches.push_back({{"rung", m.rung}, {"encoder", m.encoder}, {"count", m.count}, {"fields", m.fields}});
    auto& retries = j["retries"] = nlohmann::json::array();
    for (const auto& t : r.retries)
        retries.push_back({{"rung", t.rung}, {"chunk", t.chunk}, {"slot", t.slot}, {"error", t.error}});
    auto& chunks = j["chunks"] = nlohmann::json::array();
    for (const auto& c : r.chunks)
        chunks.push_back({{"rung", c.rung},
                          {"index", c.index},
                          {"first_frame", c.first_frame},
                          {"frames", c.frames},
                          {"bytes", c.bytes},
                          {"slot", c.slot},
                          {"encoder", c.encoder},
                          {"start_seconds", c.start_seconds},
                          {"end_seconds", c.end_seconds}});
}

}  // namespace ladder::engine
