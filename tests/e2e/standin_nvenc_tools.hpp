#pragma once
// What the stand-in NVENC tests share (standin_nvenc_test.cpp,
// standin_nvenc_sessions_test.cpp): which NVENC client this run of the tests
// drives, the stand-in driver's environment and event log for one test, and
// report readers. Test equipment only.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "media_tools.hpp"
#include "standin_driver_dir.hpp"

namespace ladder::test::standin {

namespace fs = std::filesystem;
using nlohmann::json;

inline constexpr const char* kDriverDir = kStandInDriverDir;

// Who drives NVENC in this run of the tests: ladder (the default) or ffmpeg.
inline std::string nvenc_client() {
    const char* client = std::getenv("LADDER_TEST_NVENC_CLIENT");
    return client && *client ? client : "ladder";
}
// The encoder report.json names for that client.
inline std::string nvenc_encoder() { return nvenc_client() == "ffmpeg" ? "av1_nvenc" : "ladder-nvenc"; }

// Why the client cannot run here (the tests skip and say so), or nothing:
// FFmpeg's av1_nvenc needs FFmpeg 6.0+; ladder's client runs on any.
inline std::optional<std::string> why_no_nvenc_client() {
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
inline ProcessResult run_on_standin(std::vector<std::string> args, const std::vector<std::string>& env = {},
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

inline json report_of(const fs::path& out) { return json::parse(read_text(out / "report.json")); }

// Chunks encoded per GPU slot device, from report.json's sessions.
inline std::map<std::string, int> chunks_per_slot(const json& report) {
    std::map<std::string, int> per_slot;
    for (const json& s : report.at("sessions")) per_slot[s.at("slot").get<std::string>()] += static_cast<int>(s.at("chunks").size());
    return per_slot;
}

inline void expect_valid(const fs::path& out) {
    const ProcessResult v = run_on_standin({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

// A 720p source: the default ladder gives it three rungs (720p, 540p, 360p).
inline fs::path source_720p() { return make_clip("standin-720p", {1280, 720, "25", 8.0, false, ""}); }

struct Encoded {
    fs::path out;
    ProcessResult result;
    json report;
};

// `src` encoded on the stand-in into a fresh folder `name`.
inline Encoded encode_clip(const Driver& driver, const std::string& name, const fs::path& src,
                    const std::vector<std::string>& options) {
    Encoded e;
    e.out = fresh_dir(name);
    std::vector<std::string> args = {"encode", src.string(), "-o", e.out.string(), "--progress", "none"};
    args.insert(args.end(), options.begin(), options.end());
    e.result = run_on_standin(args, driver.env, 240);
    if (e.result.exit_code == 0) e.report = report_of(e.out);
    return e;
}

inline Encoded encode(const Driver& driver, const std::string& name, const std::vector<std::string>& options) {
    return encode_clip(driver, name, source_720p(), options);
}

}  // namespace ladder::test::standin
