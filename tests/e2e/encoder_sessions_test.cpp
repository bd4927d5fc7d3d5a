// Encoder sessions: runs of consecutive chunks of a rung through one
// encoder. On a 60-second source a rung needs at most a fifth of the
// sessions a fresh encoder per chunk needs (30), plus one for each session
// the report says was cut while the decoding lagged; the report lists every
// session's chunks, and every segment still starts with a key frame and a
// sequence header at the same frame in every rung.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

struct SessionLayout {
    std::map<int, std::vector<std::vector<int>>> per_rung;  // rung index -> each session's chunks
};

// Checks that the report's sessions and chunks tell one story: every chunk
// of every rung in exactly one session, a session's chunks consecutive,
// each chunk made by its session's slot.
SessionLayout check_sessions(const nlohmann::json& report, int chunks_per_rung) {
    SessionLayout layout;
    std::map<std::string, int> rung_index;
    for (std::size_t i = 0; i < report["rungs"].size(); ++i) rung_index[report["rungs"][i]["name"]] = static_cast<int>(i);
    std::map<int, nlohmann::json> by_id;
    for (const auto& s : report["sessions"]) {
        by_id[s["id"].get<int>()] = s;
        const std::vector<int> chunks = s["chunks"].get<std::vector<int>>();
        EXPECT_FALSE(chunks.empty()) << s.dump();
        for (std::size_t k = 1; k < chunks.size(); ++k)
            EXPECT_EQ(chunks[k], chunks[k - 1] + 1) << "a session's chunks follow each other: " << s.dump();
        layout.per_rung[rung_index.at(s["rung"].get<std::string>())].push_back(chunks);
    }
    for (const auto& [rung, sessions] : layout.per_rung) {
        std::multiset<int> seen;
        for (const auto& chunks : sessions) seen.insert(chunks.begin(), chunks.end());
        EXPECT_EQ(seen.size(), static_cast<std::size_t>(chunks_per_rung)) << "rung " << rung;
        for (int k = 0; k < chunks_per_rung; ++k) EXPECT_EQ(seen.count(k), 1u) << "rung " << rung << " chunk " << k;
    }
    for (const auto& c : report["chunks"]) {
        const int id = c["session"].get<int>();
        EXPECT_TRUE(by_id.count(id)) << c.dump();
        if (!by_id.count(id)) continue;
        EXPECT_EQ(c["slot"], by_id[id]["slot"]) << c.dump();
        EXPECT_EQ(c["requested_kbps"], by_id[id]["requested_kbps"]) << c.dump();
    }
    return layout;
}

// Key frames of the whole rung: exactly at every chunk start.
void expect_key_frames_at_chunk_starts(const fs::path& playlist, int chunks, int frames_per_chunk) {
    std::vector<long> starts;
    for (int k = 0; k < chunks; ++k) starts.push_back(static_cast<long>(k) * frames_per_chunk);
    EXPECT_EQ(key_frame_indexes(playlist), starts) << playlist;
}

TEST(EncoderSessions, ASixtySecondSourceNeedsAFifthOfTheSessionsAndSegmentsStayWhereTheyWere) {
    const fs::path src = make_clip("sessions60", {192, 108, "25", 60.0, false, ""});
    const fs::path out = fresh_dir("sessions60");
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--rung", "108p=192x108@150",
                                        "--rung", "72p=128x72@80", "--preset", "12", "--cpu-slots", "1",
                                        "--progress", "none", "--rate-control", "vbr"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto report = nlohmann::json::parse(read_text(out / "report.json"));
    const SessionLayout layout = check_sessions(report, 30);
    ASSERT_EQ(layout.per_rung.size(), 2u);
    // One slot: no helper splits a run at the end of the work (how often
    // one does depends on timing; ManySessionsOnOneRungAtOnce... covers
    // helpers). A session cut because its next chunk was still being
    // decoded (a loaded machine: the decoder falls behind) costs one more
    // session; every other cut must come from the plan of runs.
    std::map<std::string, std::size_t> decode_cuts;
    for (const auto& s : report["sessions"]) {
        const std::string ended = s["ended"].get<std::string>();
        EXPECT_TRUE(ended == "run_done" || ended == "source_done" || ended == "decode_behind" ||
                    ended == "waited_too_long")
            << s.dump();
        decode_cuts[s["rung"].get<std::string>()] += ended == "decode_behind" || ended == "waited_too_long";
    }
    for (const auto& [rung, sessions] : layout.per_rung) {
        const std::size_t cuts = decode_cuts[report["rungs"][static_cast<std::size_t>(rung)]["name"]];
        std::printf("[ metric   ] rung %d: %zu sessions for 30 chunks, %zu cut while decoding lagged\n", rung,
                    sessions.size(), cuts);
        EXPECT_LE(sessions.size(), 6u + cuts) << "at least 5 times fewer than one per chunk";
    }
    for (const char* rung : {"108p", "72p"}) {
        expect_key_frames_at_chunk_starts(out / rung / "index.m3u8", 30, 50);
        EXPECT_EQ(decode_errors(out / rung / "index.m3u8"), "") << rung;
    }
    const ProcessResult v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

TEST(EncoderSessions, ManySessionsOnOneRungAtOnceEachTakeTheirOwnRun) {
    // More slots than rungs: several sessions of the same rung run at once,
    // each on its own reserved run, and the runs shorten toward the end.
    const fs::path src = make_clip("sessions-many", {192, 108, "25", 20.0, false, ""});
    const fs::path out = fresh_dir("sessions-many");
    const ProcessResult r =
        run_ladder({"encode", src.string(), "-o", out.string(), "--rung", "108p=192x108@150", "--preset", "12",
                    "--cpu-slots", "4", "--segment-seconds", "1", "--progress", "none", "--format", "both",
                    "--rate-control", "vbr"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto report = nlohmann::json::parse(read_text(out / "report.json"));
    const SessionLayout layout = check_sessions(report, 20);
    const auto& sessions = layout.per_rung.at(0);
    std::set<std::string> slots;
    for (const auto& s : report["sessions"]) slots.insert(s["slot"].get<std::string>());
    EXPECT_GE(slots.size(), 2u) << "the rung was shared between slots";
    EXPECT_LT(sessions.size(), 20u) << "sessions of more than one chunk";
    expect_key_frames_at_chunk_starts(out / "108p" / "index.m3u8", 20, 25);
    expect_key_frames_at_chunk_starts(out / "108p.mp4", 20, 25);
    EXPECT_EQ(probe(out / "108p.mp4").video.at(0).frames, 500);
    const ProcessResult v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

}  // namespace
}  // namespace ladder::test
