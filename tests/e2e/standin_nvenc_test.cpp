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
#include "standin_driver_dir.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kDriverDir = kStandInDriverDir;

// Who drives NVENC in this run of the tests: ladder (the default) or ffmpeg.
std::string nvenc_client() {
    const char* client = std::getenv("LADDER_TEST_NVENC_CLIENT");
    return client && *client ? client : "ladder";
}
// The encoder report.json names for that client.
std::string nvenc_encoder() { return nvenc_client() == "ffmpeg" ? "av1_nvenc" : "ladder-nvenc"; }

// Why the client cannot run here (the tests skip and say so), or nothing:
// FFmpeg's av1_nvenc needs FFmpeg 6.0+; ladder's client runs on any.
std::optional<std::string> why_no_nvenc_client() {
    if (nvenc_client() != "ffmpeg") return std::nullopt;
    const ProcessResult r = run_process({"ffmpeg", "-hide_banner", "-encoders"});
    if (r.out.find("av1_nvenc") == std::string::npos)
        return "this FFmpeg has no av1_nvenc (FFmpeg 6.0+ built with nv-codec-headers 12; Debian 12 has 5.1)";
    return std::nullopt;
}

// Where the client can run the stand-in must have been built: a build that
// quietly left it out fails here instead of skipping.
#define SKIP_WITHOUT_STANDIN()                                                                     \
    if (const auto why = why_no_nvenc_client()) GTEST_SKIP() << *why;                              \
    ASSERT_NE(kDriverDir, nullptr) << "the stand-in NVIDIA driver was not built (tests/standin "   \
                                      "needs nv-codec-headers 12.1+ and libaom-dev)"

// ladder on the stand-in; an encode with this run's NVENC client.
ProcessResult run_on_standin(std::vector<std::string> args, const std::vector<std::string>& env = {},
                             int timeout_s = 0) {
    if (!args.empty() && args.front() == "encode") {
        args.push_back("--nvenc-client");
        args.push_back(nvenc_client());
    }
    return run_ladder(args, env, timeout_s);
}

// The stand-in's environment for one test: its own state folder (session
// counts, lost GPUs) and event log.
struct Driver {
    fs::path dir;
    std::vector<std::string> env;

    Driver(const std::string& name, int gpus, std::vector<std::string> extra = {}) : dir(fresh_dir(name + "-driver")) {
        env = {fmt::format("LD_LIBRARY_PATH={}", kDriverDir),
               fmt::format("LADDER_STANDIN_GPUS={}", gpus),
               fmt::format("LADDER_STANDIN_STATE_DIR={}", (dir / "state").string()),
               fmt::format("LADDER_STANDIN_LOG={}", (dir / "events.log").string()),
               "LADDER_STANDIN_OPEN_MS=50"};
        env.insert(env.end(), extra.begin(), extra.end());
    }

    // Whatever ran on the stand-in kept NVENC's contract (tests/standin:
    // a misuse is logged, and the call fails).
    ~Driver() {
        std::istringstream in(log());
        std::string misuses;
        for (std::string l; std::getline(in, l);)
            if (l.rfind("misuse ", 0) == 0) misuses += l + "\n";
        EXPECT_EQ(misuses, "") << "the " << nvenc_client() << " client misused the NVENC API";
    }
    Driver(const Driver&) = delete;
    Driver& operator=(const Driver&) = delete;

    // Events of one kind ("open", "close", "refused", "lost") per GPU.
    std::map<int, int> events(const std::string& kind) const {
        std::map<int, int> per_gpu;
        std::istringstream in(read_text(dir / "events.log"));
        const std::regex line("^" + kind + " gpu=([0-9]+) .*");
        std::smatch m;
        for (std::string l; std::getline(in, l);)
            if (std::regex_match(l, m, line)) ++per_gpu[std::stoi(m[1])];
        return per_gpu;
    }
    // The most sessions open at once on each GPU, from the open and close
    // events in the order they happened.
    std::map<int, int> most_open_at_once() const {
        std::map<int, int> open, most;
        std::istringstream in(log());
        const std::regex line("^(open|close) gpu=([0-9]+) .*");
        std::smatch m;
        for (std::string l; std::getline(in, l);) {
            if (!std::regex_match(l, m, line)) continue;
            const int gpu = std::stoi(m[2]);
            open[gpu] += m[1] == "open" ? 1 : -1;
            most[gpu] = std::max(most[gpu], open[gpu]);
        }
        return most;
    }
    std::string log() const { return fs::exists(dir / "events.log") ? read_text(dir / "events.log") : ""; }
};

json report_of(const fs::path& out) { return json::parse(read_text(out / "report.json")); }

// Chunks encoded per GPU slot device, from report.json's sessions.
std::map<std::string, int> chunks_per_slot(const json& report) {
    std::map<std::string, int> per_slot;
    for (const json& s : report.at("sessions")) per_slot[s.at("slot").get<std::string>()] += static_cast<int>(s.at("chunks").size());
    return per_slot;
}

void expect_valid(const fs::path& out) {
    const ProcessResult v = run_on_standin({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

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

// A 720p source: the default ladder gives it three rungs (720p, 540p, 360p).
fs::path source_720p() { return make_clip("standin-720p", {1280, 720, "25", 8.0, false, ""}); }

struct Encoded {
    fs::path out;
    ProcessResult result;
    json report;
};

// `src` encoded on the stand-in into a fresh folder `name`.
Encoded encode_clip(const Driver& driver, const std::string& name, const fs::path& src,
                    const std::vector<std::string>& options) {
    Encoded e;
    e.out = fresh_dir(name);
    std::vector<std::string> args = {"encode", src.string(), "-o", e.out.string(), "--progress", "none"};
    args.insert(args.end(), options.begin(), options.end());
    e.result = run_on_standin(args, driver.env, 240);
    if (e.result.exit_code == 0) e.report = report_of(e.out);
    return e;
}

Encoded encode(const Driver& driver, const std::string& name, const std::vector<std::string>& options) {
    return encode_clip(driver, name, source_720p(), options);
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

TEST(StandInNvenc, AGpuSlotOpensOneNvencSessionPerRung) {
    SKIP_WITHOUT_STANDIN();
    // 40 one-second chunks of each of two rungs on two slots of one GPU, in
    // sessions of at most 4 chunks: each slot comes back to each rung many
    // times and goes on with the NVENC session it left open there, at
    // whichever chunk is next (the other slot took the ones between), with
    // a forced key frame.
    const Driver driver("standin-long-sessions", 1);
    const fs::path src = make_clip("standin-40s", {320, 180, "25", 40.0, false, ""});
    const fs::path out = fresh_dir("standin-long-sessions");
    const ProcessResult r =
        run_on_standin({"encode", src.string(), "-o", out.string(), "--policy", "all-gpus", "--sessions-per-gpu", "2",
                    "--session-chunks", "4", "--rung", "180p=320x180@300", "--rung", "90p=160x90@100",
                    "--segment-seconds", "1", "--progress", "none"},
                   driver.env, 240);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_valid(out);
    const json report = report_of(out);
    ASSERT_EQ(report.at("slots").size(), 2u);
    int chunks = 0, opened = 0, sessions = 0;
    for (const json& slot : report.at("slots")) {
        chunks += slot.at("chunks").get<int>();
        opened += slot.at("encoders_opened").get<int>();
        sessions += slot.at("sessions").get<int>();
    }
    EXPECT_EQ(chunks, 80);
    EXPECT_GE(sessions, 20) << "sessions of at most 4 chunks";
    // Encoders are the GPU's: at most one per slot and rung in all, those
    // opened ahead and never used included.
    opened += report.at("gpu_encoders_never_used").get<int>();
    EXPECT_LE(opened, 4) << report.at("sessions").dump();
    EXPECT_EQ(driver.events("open").at(0), opened + 2)
        << "the run's sessions, and the two probes (inventory, pre-flight)\n" << driver.log();
    EXPECT_EQ(driver.events("close").at(0), opened + 2) << driver.log();
    bool jumped = false;  // a slot's session went on past chunks another slot took
    for (const json& a : report.at("sessions"))
        for (const json& b : report.at("sessions"))
            jumped |= a.at("slot") == b.at("slot") && a.at("rung") == b.at("rung") && !b.at("opened_encoder").get<bool>() &&
                      b.at("chunks").at(0).get<int>() > a.at("chunks").back().get<int>() + 1;
    EXPECT_TRUE(jumped) << report.at("sessions").dump();
    // With ladder's client each slot opened its first NVENC session before
    // its first chunk was cut, one slot per rung, and its first session went
    // on in it (the driver's opens above count it once: not opened again).
    // FFmpeg's av1_nvenc opens with its first frames: nothing ahead.
    std::map<std::string, json> first;  // by slot
    for (const json& session : report.at("sessions")) first.try_emplace(session.at("slot").get<std::string>(), session);
    ASSERT_EQ(first.size(), 2u);
    std::set<std::string> rungs_opened_ahead;
    for (const auto& [slot, session] : first) {
        EXPECT_EQ(session.at("opened_ahead").get<bool>(), nvenc_client() != "ffmpeg") << session.dump();
        rungs_opened_ahead.insert(session.at("rung").get<std::string>());
    }
    EXPECT_EQ(rungs_opened_ahead.size(), 2u) << "one slot per rung";
    if (nvenc_client() != "ffmpeg") {
        // Two encoders per rung were opened before the first chunk: no
        // session opened one between chunks, even where both slots shared
        // a rung.
        EXPECT_EQ(report.at("gpu_encoders_opened_ahead").get<int>(), 4);
        for (const json& session : report.at("sessions"))
            EXPECT_FALSE(session.at("opened_encoder").get<bool>()) << session.dump();
    }
    for (const char* rung : {"180p", "90p"}) {
        EXPECT_EQ(key_frame_indexes(out / rung / "index.m3u8").size(), 40u) << rung << ": a key frame at every chunk start";
        EXPECT_EQ(decode_errors(out / rung / "index.m3u8"), "") << rung;
    }
}

// Two slots of one GPU on the ladder's only rung: each slot opens ahead on
// that rung as it first claims, and the GPU holds no more encoders for the
// rung than it has slots. (The old code opened a third only when one slot
// claimed after the other's openers had started: this run catches that
// only when timing gives it; IdleEncodersTest checks the count itself.)
TEST(StandInNvenc, TwoSlotsOnOneRungOpenAtMostTwoEncoders) {
    SKIP_WITHOUT_STANDIN();
    const Driver driver("standin-one-rung", 1);
    const Encoded e = encode_clip(driver, "standin-one-rung",
                                  make_clip("standin-one-rung", {320, 180, "25", 8.0, false, ""}),
                                  {"--policy", "all-gpus", "--sessions-per-gpu", "2", "--rung", "180p=320x180@300",
                                   "--segment-seconds", "1"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    const fs::path& out = e.out;
    const json& report = e.report;
    expect_valid(out);
    ASSERT_EQ(report.at("slots").size(), 2u);
    // The probes (inventory, pre-flight) open and close one each before.
    EXPECT_LE(driver.most_open_at_once().at(0), 2) << driver.log();
    if (nvenc_client() != "ffmpeg") {
        EXPECT_EQ(report.at("gpu_encoders_opened_ahead").get<int>(), 2) << report.at("sessions").dump();
    }
    EXPECT_EQ(probe(out / "180p" / "index.m3u8").video.at(0).frames, 200);
}

// GPU sessions fed by the CPU decode: a lane per GPU from the start, not
// one lane grown while the sessions wait (on 2 cores the run may have one
// lane only: --max-decoders lets it have more).
TEST(StandInNvenc, GpuSessionsFedByTheCpuDecodeStartALanePerGpu) {
    SKIP_WITHOUT_STANDIN();
    const Driver driver("standin-cpu-lanes", 2);
    const fs::path src = make_clip("standin-cpu-lanes", {320, 240, "25", 8.0, false, ""});
    const fs::path out = fresh_dir("standin-cpu-lanes");
    const ProcessResult r = run_on_standin({"encode", src.string(), "-o", out.string(), "--policy", "all-gpus",
                                            "--decode", "cpu", "--max-decoders", "4", "--rung", "240p=320x240@500",
                                            "--rung", "120p=160x120@150", "--segment-seconds", "1"},
                                           driver.env, 240);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("in 2 lanes at once"), std::string::npos) << r.err;
    const json report = report_of(out);
    EXPECT_GE(report.at("decode_lanes").size(), 2u) << report.at("decode_lanes").dump();
    std::set<std::string> used;  // "gpu0" of "gpu0:nvenc.2"
    for (const auto& [slot, chunks] : chunks_per_slot(report)) used.insert(slot.substr(0, slot.find(':')));
    EXPECT_EQ(used.size(), 2u) << "both GPUs encoded";
    expect_valid(out);
}

TEST(StandInNvenc, PolicyGpu1OpensNothingOnGpu0) {
    SKIP_WITHOUT_STANDIN();
    const Driver driver("standin-gpu1", 2);
    const Encoded e = encode(driver, "standin-gpu1", {"--policy", "gpu:1"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    expect_valid(e.out);
    EXPECT_EQ(driver.events("open").count(0), 0u) << driver.log();
    EXPECT_GT(driver.events("open").count(1), 0u) << driver.log();
    for (const auto& [slot, chunks] : chunks_per_slot(e.report)) EXPECT_EQ(slot.rfind("gpu1:nvenc", 0), 0u) << slot;
}

TEST(StandInNvenc, ASessionLimitRefusalIsRetriedElsewhereAndTheOutputValidates) {
    SKIP_WITHOUT_STANDIN();
    // One session for the whole system, as on an old GeForce driver: the
    // second GPU's sessions are refused with NV_ENC_ERR_OUT_OF_MEMORY.
    const Driver driver("standin-limit", 2, {"LADDER_STANDIN_SESSIONS_PER_SYSTEM=1"});
    const Encoded e = encode(driver, "standin-limit", {"--policy", "all-gpus"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    expect_valid(e.out);
    EXPECT_FALSE(driver.events("refused").empty()) << "the limit was never reached: the test proves nothing\n"
                                                    << driver.log();
    EXPECT_FALSE(e.report.at("retries").empty()) << e.report.dump();
    // Four slots (two engines per GPU) and one session for the system: the
    // refusals are the slots' failures, not the chunks' tries.
    for (const json& t : e.report.at("retries")) EXPECT_EQ(t.at("cause"), "open refused") << t.dump();
    for (const char* rung : {"720p", "540p", "360p"})
        EXPECT_EQ(probe(e.out / rung / "index.m3u8").video.at(0).frames, 200) << rung;
}

TEST(StandInNvenc, GeForceSlotsStayUnderTheDriversSessionCapCountingTheProbes) {
    SKIP_WITHOUT_STANDIN();
    // Two GeForce cards and a driver that refuses a ninth session on the
    // system: 6 sessions per GPU asked, 8 slots made, nothing refused (the
    // pre-flight's sessions are closed before encoding starts).
    const Driver driver("standin-geforce-cap", 2,
                        {"LADDER_STANDIN_GPU_NAME=NVIDIA GeForce RTX 4090", "LADDER_STANDIN_SESSIONS_PER_SYSTEM=8"});
    const Encoded e = encode(driver, "standin-geforce-cap", {"--policy", "all-gpus", "--sessions-per-gpu", "6"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    expect_valid(e.out);
    EXPECT_EQ(e.report.at("slots").size(), 8u) << e.report.at("slots").dump();
    EXPECT_TRUE(driver.events("refused").empty()) << driver.log();
    EXPECT_TRUE(e.report.at("retries").empty()) << e.report.at("retries").dump();
    int most = 0;
    for (const auto& [gpu, n] : driver.most_open_at_once()) most += n;
    EXPECT_LE(most, 8) << driver.log();
}

TEST(StandInNvenc, MixedNvencAndCpuSlotsFollowTheSpliceCheck) {
    SKIP_WITHOUT_STANDIN();
    // NVENC paced at 10 frames/s at 1080p (a 720p chunk takes 2 s, a 540p
    // one 1.25 s): the GPU slots, their sessions opened ahead, are busy with
    // their own rungs well after the CPU slot's first chunk of the third
    // came back. At the published pace a GPU slot done with its rung could
    // take that rung's next chunk and be accepted first under strict, and
    // the CPU slot then had nothing.
    const Driver driver("standin-mixed", 2, {"LADDER_STANDIN_PACE=10"});
    // strict: a rung joins chunks of one encoder kind only (the stand-in's
    // libaom and SVT-AV1 write different sequence headers).
    // One session per GPU, so that the CPU slot gets rungs of its own.
    const Encoded strict =
        encode(driver, "standin-mixed-strict", {"--policy", "all-gpus", "--sessions-per-gpu", "1", "--cpu-slots", "1"});
    ASSERT_EQ(strict.result.exit_code, 0) << strict.result.err;
    expect_valid(strict.out);
    std::map<std::string, std::set<std::string>> encoders;
    for (const json& s : strict.report.at("sessions"))
        encoders[s.at("rung").get<std::string>()].insert(s.at("encoder").get<std::string>());
    std::set<std::string> kinds;
    for (const auto& [rung, used] : encoders) {
        EXPECT_EQ(used.size(), 1u) << rung << " joined chunks of several encoders under strict: " << strict.report.dump();
        kinds.insert(used.begin(), used.end());
    }
    EXPECT_EQ(kinds, (std::set<std::string>{nvenc_encoder(), "libsvtav1"})) << "both kinds of slot encoded";
    // config: only av1C must agree, and it does (the stand-in writes the
    // colour description FFmpeg asks NVENC for), so nothing is refused.
    const Encoded config = encode(driver, "standin-mixed-config",
                                  {"--policy", "all-gpus", "--cpu-slots", "1", "--splice-check", "config"});
    ASSERT_EQ(config.result.exit_code, 0) << config.result.err;
    expect_valid(config.out);
    EXPECT_TRUE(config.report.at("mismatches").empty()) << config.report.at("mismatches").dump();
    for (const char* rung : {"720p", "540p", "360p"})
        EXPECT_EQ(decode_errors(config.out / rung / "index.m3u8"), "") << rung;
}

TEST(StandInNvenc, AGpuLostMidRunIsQuarantinedAndItsChunksFinishElsewhere) {
    SKIP_WITHOUT_STANDIN();
    const Driver driver("standin-lost", 2, {"LADDER_STANDIN_LOSE_GPU=1@20"});
    const Encoded e = encode(driver, "standin-lost", {"--policy", "all-gpus"});
    ASSERT_EQ(e.result.exit_code, 0) << e.result.err;
    expect_valid(e.out);
    EXPECT_FALSE(driver.events("lost").empty()) << driver.log();
    bool quarantined = false;
    for (const json& slot : e.report.at("slots"))
        if (slot.at("label") == "gpu1:nvenc") quarantined = slot.at("quarantined").get<bool>();
    EXPECT_TRUE(quarantined) << e.report.at("slots").dump();
    for (const char* rung : {"720p", "540p", "360p"}) {
        EXPECT_EQ(probe(e.out / rung / "index.m3u8").video.at(0).frames, 200) << rung;
        EXPECT_EQ(decode_errors(e.out / rung / "index.m3u8"), "") << rung;
    }
}

INSTANTIATE_TEST_SUITE_P(TwoAndFour, StandInGpus, ::testing::Values(2, 4));

}  // namespace
}  // namespace ladder::test
