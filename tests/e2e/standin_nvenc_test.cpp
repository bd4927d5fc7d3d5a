// ladder's NVENC path end to end on the stand-in NVIDIA driver
// (tests/standin/README.md): ladder's own NVENC client (--nvenc-client
// ladder) or FFmpeg's own av1_nvenc (--nvenc-client ffmpeg; ctest runs
// these tests once per client, LADDER_TEST_NVENC_CLIENT), ladder's device
// probe and scheduler run unmodified against libcuda.so.1,
// libnvidia-encode.so.1 and libnvidia-ml.so.1 stand-ins put on
// LD_LIBRARY_PATH for the ladder process only. The bitstream is libaom's, not NVENC's: these tests prove
// the plumbing, not NVENC's quality or speed.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "hls_tools.hpp"
#include "media_tools.hpp"
#include "standin_nvenc_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace standin;

// Helpers: standin_nvenc_tools.hpp.


TEST(StandInNvenc, DevicesListsEveryStandInGpuWithNvencAv1) {
    SKIP_WITHOUT_STANDIN();
    const Driver driver("standin-devices", 4, {"LADDER_STANDIN_ENGINES=3"});
    const ProcessResult r = run_on_standin({"devices", "--json"}, driver.env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json j = json::parse(r.out);
    const json& gpus = j.at("nvidia").at("gpus");
    ASSERT_EQ(gpus.size(), 4u) << r.out;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        EXPECT_EQ(gpus[i].at("cuda_ordinal"), static_cast<int>(i)) << gpus[i].dump();
        EXPECT_EQ(gpus[i].at("pci_bus_id"), fmt::format("00000000:{:02X}:00.0", 0x17 + 0x10 * i)) << gpus[i].dump();
        EXPECT_EQ(gpus[i].at("nvenc").at("can_encode_av1"), true) << gpus[i].dump();
        EXPECT_TRUE(gpus[i].at("nvenc").at("session_limit").is_null()) << "a data-center card has no session cap";
        EXPECT_EQ(gpus[i].at("nvenc").at("engines"), 3) << gpus[i].dump();
    }
    const ProcessResult table = run_on_standin({"devices"}, driver.env);
    EXPECT_NE(table.out.find("NVENC: yes — AV1, 3 engines"), std::string::npos) << table.out;
}

TEST(StandInNvenc, NvencServesOnlyTheGpusNamedByOrdinalOrBusId) {
    SKIP_WITHOUT_STANDIN();
    for (const std::string& named : {std::string("1"), std::string("00000000:27:00.0"), std::string("0000:27:00.0")}) {
        const Driver driver("standin-served", 2, {"LADDER_STANDIN_NVENC_GPUS=" + named});
        const ProcessResult r = run_on_standin({"devices", "--json"}, driver.env);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const json gpus = json::parse(r.out).at("nvidia").at("gpus");
        ASSERT_EQ(gpus.size(), 2u);
        EXPECT_EQ(gpus[0].at("nvenc").at("can_encode_av1"), false) << named << ": " << gpus[0].dump();
        EXPECT_EQ(gpus[0].at("nvenc").at("reason"), "no NVENC engine") << "what a GPU without NVENC answers";
        EXPECT_EQ(gpus[1].at("nvenc").at("can_encode_av1"), true) << named << ": " << gpus[1].dump();
    }
}

TEST(StandInNvenc, DevicesGivesAGeForceItsSessionLimit) {
    SKIP_WITHOUT_STANDIN();
    const Driver driver("standin-geforce", 1, {"LADDER_STANDIN_GPU_NAME=NVIDIA GeForce RTX 4090"});
    const ProcessResult r = run_on_standin({"devices"}, driver.env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const ProcessResult j = run_on_standin({"devices", "--json"}, driver.env);
    const json gpu = json::parse(j.out).at("nvidia").at("gpus").at(0);
    EXPECT_EQ(gpu.at("name"), "NVIDIA GeForce RTX 4090");
    EXPECT_EQ(gpu.at("nvenc").at("can_encode_av1"), true) << gpu.dump();
    EXPECT_EQ(gpu.at("nvenc").at("session_limit"), 8) << gpu.dump();
    EXPECT_NE(r.out.find("GeForce RTX 4090"), std::string::npos) << r.out;
}

class StandInGpus : public ::testing::TestWithParam<int> {};

TEST_P(StandInGpus, AllGpusEncodesOnEveryGpuWithTheClient) {
    SKIP_WITHOUT_STANDIN();
    const int gpus = GetParam();
    const Driver driver(fmt::format("standin-all-{}", gpus), gpus);
    // 1-s chunks: 24 for the 8 slots of 4 GPUs, so that which slot of a GPU
    // takes the next chunk (a race between idle slots) leaves no GPU out.
    const Encoded e = encode(driver, fmt::format("standin-all-{}", gpus),
                             {"--policy", "all-gpus", "--segment-seconds", "1"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    expect_valid(e.out);
    for (const json& s : e.report.at("sessions")) EXPECT_EQ(s.at("encoder"), nvenc_encoder()) << s.dump();
    std::map<int, int> chunks_on_gpu;
    for (const auto& [slot, chunks] : chunks_per_slot(e.report))
        if (slot.starts_with("gpu")) chunks_on_gpu[std::stoi(slot.substr(3))] += chunks;
    const auto opened = driver.events("open");
    const auto closed = driver.events("close");
    for (int g = 0; g < gpus; ++g) {
        EXPECT_GT(chunks_on_gpu[g], 0) << "GPU " << g << " encoded nothing: " << e.report.dump();
        EXPECT_GT(opened.count(g) ? opened.at(g) : 0, 0) << "no session on GPU " << g << "\n" << driver.log();
        EXPECT_EQ(opened.count(g) ? opened.at(g) : 0, closed.count(g) ? closed.at(g) : 0)
            << "every session the run opened on GPU " << g << " was closed\n" << driver.log();
    }
    // One slot per NVENC engine (the stand-in has 2), and each slot keeps
    // one session open per rung it has worked on (a data-center card has
    // no session cap).
    EXPECT_EQ(e.report.at("encoder_slots").get<int>(), 2 * gpus) << e.report.dump();
    for (const auto& [gpu, most] : driver.most_open_at_once())
        EXPECT_LE(most, 2 * 3) << "GPU " << gpu << " had more sessions at once than 2 slots x 3 rungs\n" << driver.log();
    for (const char* rung : {"720p", "540p", "360p"}) {
        EXPECT_EQ(probe(e.out / rung / "index.m3u8").video.at(0).frames, 200) << rung;
        EXPECT_EQ(decode_errors(e.out / rung / "index.m3u8"), "") << rung;
    }
}

TEST(StandInNvenc, TwoSlotsPerGpuRunAtOnceAndNeverMore) {
    SKIP_WITHOUT_STANDIN();
    const Driver driver("standin-two-per-gpu", 2);
    const Encoded e = encode(driver, "standin-two-per-gpu", {"--policy", "all-gpus", "--sessions-per-gpu", "2"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    expect_valid(e.out);
    ASSERT_EQ(e.report.at("slots").size(), 4u) << e.report.at("slots").dump();
    // Each slot keeps at most one session open per rung (3 rungs).
    const auto most = driver.most_open_at_once();
    ASSERT_EQ(most.size(), 2u) << driver.log();
    for (const auto& [gpu, n] : most) EXPECT_LE(n, 2 * 3) << "GPU " << gpu << "\n" << driver.log();
    for (const json& slot : e.report.at("slots")) EXPECT_LE(slot.at("encoders_opened").get<int>(), 3) << slot.dump();
    // The two slots of a GPU encoded at the same time.
    bool overlapped = false;
    for (const json& a : e.report.at("sessions"))
        for (const json& b : e.report.at("sessions"))
            overlapped |= a.at("slot").get<std::string>() + ".2" == b.at("slot").get<std::string>() &&
                          a.at("start_seconds").get<double>() < b.at("end_seconds").get<double>() &&
                          b.at("start_seconds").get<double>() < a.at("end_seconds").get<double>();
    EXPECT_TRUE(overlapped) << "no GPU's two slots ever encoded at once: " << e.report.at("sessions").dump();
}

TEST_P(StandInGpus, HlsJsPlaysWhatTheGpusEncodedAndSwitchesLevels) {
    SKIP_WITHOUT_STANDIN();
    const int gpus = GetParam();
    const Driver driver(fmt::format("standin-player-{}", gpus), gpus);
    const fs::path src = make_clip("standin-player", {320, 240, "25", 10.0, true, ""});
    const fs::path out = fresh_dir(fmt::format("standin-player-{}", gpus));
    const ProcessResult enc =
        run_on_standin({"encode", src.string(), "-o", out.string(), "--policy", "all-gpus", "--rung", "240p=320x240@500",
                    "--rung", "180p=240x180@300", "--rung", "120p=160x120@150", "--segment-seconds", "1", "-q"},
                   driver.env, 240);
    ASSERT_EQ(enc.exit_code, 0) << enc.err;
    std::set<std::string> used;  // "gpu0" of "gpu0:nvenc.2"
    for (const auto& [slot, chunks] : chunks_per_slot(report_of(out))) used.insert(slot.substr(0, slot.find(':')));
    EXPECT_EQ(used.size(), static_cast<std::size_t>(gpus)) << "every GPU encoded";
    // Chromium gets no stand-in driver: only ladder's process has it.
    const ProcessResult r = run_process({"node", std::string(LADDER_SOURCE_DIR) + "/tests/player/play.mjs",
                                         out.string(), "--switch", "--timeout-ms", "90000"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const json result = player_result(r.out);
    ASSERT_TRUE(result.is_object()) << r.out;
    EXPECT_TRUE(result["ended"].get<bool>()) << "played to the end";
    for (const auto& e : result["errors"]) EXPECT_TRUE(e["tolerated"].get<bool>()) << e.dump();
    EXPECT_NEAR(result["duration"].get<double>(), 10.0, 0.1);
    ASSERT_EQ(result["levels"].size(), 3u);
    ASSERT_GE(result["switches"].size(), 2u);
    for (const auto& s : result["switches"]) EXPECT_TRUE(s["confirmed"].get<bool>()) << s.dump();
}

struct ClosedSession {
    double frames = 0, busy_ms = 0, frame_us = 0, pixels = 0;
    int in_flight = 0;  // the most pictures sent and not locked at once
};

std::vector<ClosedSession> closed_sessions(const Driver& driver) {
    std::vector<ClosedSession> out;
    std::istringstream in(driver.log());
    const std::regex close("^close gpu=[0-9]+ pid=[0-9]+ frames=([0-9]+) device_frames=[0-9]+ busy_ms=([0-9]+) "
                           "frame_us=([0-9]+) size=([0-9]+)x([0-9]+) in_flight=([0-9]+)$");
    std::smatch m;
    for (std::string l; std::getline(in, l);)
        if (std::regex_match(l, m, close) && std::stol(m[1]) > 0)
            out.push_back({std::stod(m[1]), std::stod(m[2]), std::stod(m[3]), std::stod(m[4]) * std::stod(m[5]),
                           std::stoi(m[6])});
    return out;
}

TEST(StandInNvenc, EachFrameHoldsAnEngineForItsModelledTime) {
    SKIP_WITHOUT_STANDIN();
    // ladder asks av1_nvenc for preset p5 (its default for NVENC), VBR,
    // high-quality tuning: NVIDIA publishes 440 fps per engine at 1080p
    // (tests/standin/README.md), scaled by each rung's pixels.
    const Driver published("standin-pace", 1);
    ASSERT_EQ(encode(published, "standin-pace", {"--policy", "all-gpus"}).result.exit_code, 0);
    const auto sessions = closed_sessions(published);
    ASSERT_GE(sessions.size(), 3u) << "a session or more per rung\n" << published.log();
    for (const auto& c : sessions)
        EXPECT_NEAR(c.frame_us, c.pixels / (1920.0 * 1080.0) / 440.0 * 1e6, 1.0) << published.log();
    // ladder's client sends the next pictures while the engine works on the
    // last: NvencSession::kInFlight (3) at most, as many in a chunk of 50.
    if (nvenc_client() != "ffmpeg") {
        for (const auto& c : sessions) EXPECT_EQ(c.in_flight, 3) << published.log();
    }
    // At 5 fps per engine the model is slower than libaom on this host, so
    // the time a session held the engine shows the pace was kept.
    const Driver slow("standin-pace-slow", 1, {"LADDER_STANDIN_PACE=5"});
    ASSERT_EQ(encode(slow, "standin-pace-slow", {"--policy", "all-gpus", "--rung", "180p=320x180@300"}).result.exit_code,
              0);
    for (const auto& c : closed_sessions(slow)) {
        EXPECT_NEAR(c.frame_us, c.pixels / (1920.0 * 1080.0) / 5.0 * 1e6, 1.0);
        EXPECT_GE(c.busy_ms + 1, c.frames * c.frame_us / 1000.0) << slow.log();
    }
}

TEST(StandInNvenc, ThroughputModeStreamsValidateAndDecode) {
    SKIP_WITHOUT_STANDIN();
    // Key frames from libaom, every other frame shows the last key frame
    // again: a stream that costs the host nothing, so the pace sets the speed.
    const Driver driver("standin-throughput", 2, {"LADDER_STANDIN_THROUGHPUT=1"});
    const Encoded e = encode(driver, "standin-throughput", {"--policy", "all-gpus"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    expect_valid(e.out);
    for (const char* rung : {"720p", "540p", "360p"}) {
        EXPECT_EQ(probe(e.out / rung / "index.m3u8").video.at(0).frames, 200) << rung;
        EXPECT_EQ(decode_errors(e.out / rung / "index.m3u8"), "") << rung;
    }
    for (const json& r : e.report.at("rungs"))
        EXPECT_LT(r.at("average_kbps").get<double>(), 0.5 * r.at("bitrate_kbps").get<double>())
            << "only 4 key frames in 200 carry pictures: " << r.dump();
}

TEST(StandInNvenc, ThroughputModeCanEncodeOnlyEachSessionsFirstKeyFrame) {
    SKIP_WITHOUT_STANDIN();
    // LADDER_STANDIN_KEY_FRAMES=first: later key frames repeat the session's
    // first (libaom's time stops counting as the engine's); the streams stay
    // valid, with a key frame at every chunk start, and a rung has no more
    // distinct key frames than sessions opened its encoders.
    const Driver driver("standin-first-key", 1, {"LADDER_STANDIN_THROUGHPUT=1", "LADDER_STANDIN_KEY_FRAMES=first"});
    const Encoded e = encode(driver, "standin-first-key", {"--policy", "all-gpus"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    expect_valid(e.out);
    for (const char* rung : {"720p", "540p", "360p"}) {
        const fs::path playlist = e.out / rung / "index.m3u8";
        EXPECT_EQ(decode_errors(playlist), "") << rung;
        const std::vector<long> keys = key_frame_indexes(playlist);
        const std::vector<double> sizes = video_packet_sizes(playlist);
        ASSERT_EQ(keys.size(), 4u) << rung << ": a key frame at every chunk start";
        std::set<double> distinct;
        for (long k : keys) distinct.insert(sizes.at(static_cast<std::size_t>(k)));
        int opened = 0;
        for (const json& session : e.report.at("sessions"))
            opened += session.at("rung") == rung &&
                      (session.at("opened_encoder").get<bool>() || session.at("opened_ahead").get<bool>());
        EXPECT_LE(static_cast<int>(distinct.size()), opened) << rung;
        EXPECT_LT(distinct.size(), keys.size()) << rung << ": some key frame repeated";
    }
}

INSTANTIATE_TEST_SUITE_P(TwoAndFour, StandInGpus, ::testing::Values(2, 4));

}  // namespace
}  // namespace ladder::test
