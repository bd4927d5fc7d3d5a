#pragma once
// A hand-built report.json for the `ladder report` tests: 3 slots (the last,
// gpu0:nvenc, without chunks), 2 rungs (the second named a<b&"c" to test
// escaping), 6 chunks over a run of 8 s, one failed attempt.
#include <nlohmann/json.hpp>

namespace ladder::test {

inline nlohmann::json hand_built_report() {
    using nlohmann::json;
    auto chunk = [](int rung, int index, const char* slot, double start, double end, int frames, int bytes) {
        return json{{"rung", rung},     {"index", index},         {"first_frame", index * 50},
                    {"frames", frames}, {"bytes", bytes},         {"slot", slot},
                    {"encoder", "libsvtav1"}, {"start_seconds", start}, {"end_seconds", end}};
    };
    return json{
        {"ok", true},
        {"error", nullptr},
        {"input", "clip <1>'s.mp4"},
        {"wall_seconds", 8.0},
        {"decode_seconds", 1.25},
        {"decode_device", "cpu"},
        {"frame_rate", 25.0},
        {"encoder_slots", 3},
        {"rungs",
         json::array({json{{"name", "720p"}, {"width", 1280}, {"height", 720}, {"bitrate_kbps", 2500},
                           {"chunks", 3}, {"frames", 150}, {"video_bytes", 600000}, {"average_kbps", 800.0},
                           {"encode_fps", 18.75}, {"slots", {"cpu0:svt", "cpu1:svt"}}},
                      json{{"name", "a<b&\"c\""}, {"width", 640}, {"height", 360}, {"bitrate_kbps", 600},
                           {"chunks", 3}, {"frames", 150}, {"video_bytes", 90000}, {"average_kbps", 120.0},
                           {"encode_fps", 50.0}, {"slots", {"cpu1:svt", "cpu0:svt"}}}})},
        {"slots",
         json::array({json{{"label", "cpu0:svt"}, {"encoder", "libsvtav1"}, {"chunks", 3}, {"busy_seconds", 6.5},
                           {"busy_share", 0.8125}, {"failures", 0}, {"quarantined", false}},
                      json{{"label", "cpu1:svt"}, {"encoder", "libsvtav1"}, {"chunks", 3}, {"busy_seconds", 4.5},
                           {"busy_share", 0.5625}, {"failures", 1}, {"quarantined", false}},
                      json{{"label", "gpu0:nvenc"}, {"encoder", "av1_nvenc"}, {"chunks", 0}, {"busy_seconds", 0.0},
                           {"busy_share", 0.0}, {"failures", 0}, {"quarantined", false}}})},
        {"chunks", json::array({chunk(0, 0, "cpu0:svt", 0.0, 2.0, 50, 250000),
                                chunk(1, 0, "cpu1:svt", 0.5, 1.5, 50, 30000),
                                chunk(0, 1, "cpu1:svt", 1.5, 4.0, 50, 200000),
                                chunk(1, 1, "cpu0:svt", 2.0, 3.0, 50, 30000),
                                chunk(0, 2, "cpu0:svt", 3.0, 6.5, 50, 150000),
                                chunk(1, 2, "cpu1:svt", 4.0, 5.0, 50, 900)})},
        {"retries", json::array({json{{"rung", "720p"}, {"chunk", 1}, {"slot", "cpu1:svt"}, {"cause", "crash"},
                                      {"error", "opening libsvtav1 <boom> & \"bust\""}}})},
        {"mismatches", json::array()}};
}

}  // namespace ladder::test
