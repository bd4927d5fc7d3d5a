// Each rung's rate is shared among its encoder sessions by how hard their
// chunks are (--bit-allocation complexity, the default): on a source whose
// first half is a flat picture and whose second half is noise, sessions
// over noise ask for more than the rung's rate and sessions over the flat
// half for less; with --bit-allocation even every session asks for the same
// share. report.json says each session's share (`weight`) and how many
// chunks the analysis had measured when it started (`measured_chunks`):
// the analysis runs beside the encoders, so a session may start before its
// chunks are measured, and then keeps an even share. Shares exist under
// --rate-control vbr only, which these runs ask for.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

// 20 s at 25 fps, 640x360: chunks 0-4 flat grey, chunks 5-9 fresh noise in
// every frame. The analysis copy is a quarter of the rung's pixels, and one
// encoder slot leaves it a core, so it measures chunks ahead of the
// sessions that encode them.
constexpr int kFirstNoisyChunk = 5;
fs::path flat_then_noise() {
    return make_clip("flat-then-noise", {640, 360, "25", 20.0, false,
                                         "drawbox=c=gray:t=fill:enable='lt(t,10)',"
                                         "noise=alls=60:allf=t+u:enable='gte(t,10)'"});
}

nlohmann::json encode(const std::string& name, const std::vector<std::string>& extra) {
    const fs::path out = fresh_dir(name);
    std::vector<std::string> args{"encode", flat_then_noise().string(), "-o", out.string(), "--rung",
                                  "360p=640x360@600", "--preset", "12", "--cpu-slots", "1", "--progress", "none",
                                  "--rate-control", "vbr"};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult r = run_ladder(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(read_text(out / "report.json"));
}

TEST(BitAllocation, SessionsOverNoiseGetMoreThanSessionsOverAFlatPicture) {
    const auto report = encode("bit-allocation-complexity", {});
    int measured_noise_sessions = 0;
    for (const auto& s : report["sessions"]) {
        const auto chunks = s["chunks"].get<std::vector<int>>();
        const double weight = s["weight"].get<double>();
        const int measured = s["measured_chunks"].get<int>();
        std::printf("[ metric   ] session of chunks %d-%d: weight %.2f, asked %d kb/s, %d chunks measured\n",
                    chunks.front(), chunks.back(), weight, s["requested_kbps"].get<int>(), measured);
        EXPECT_GE(measured, 0) << "the rung is within the analysis's reach: " << s.dump();
        if (measured == 0) {
            EXPECT_EQ(weight, 1.0) << "nothing measured: an even share " << s.dump();
        }
        // The analysis measures chunks in order: all of this session's
        // chunks were measured when it started.
        if (measured <= chunks.back()) continue;
        if (chunks.front() >= kFirstNoisyChunk) {
            ++measured_noise_sessions;
            EXPECT_GT(weight, 1.2) << "noise: well over the rung's rate " << s.dump();
        } else if (chunks.back() < kFirstNoisyChunk) {
            EXPECT_LT(weight, 0.9) << "a flat picture: well under the rung's rate " << s.dump();
        }
    }
    EXPECT_GE(measured_noise_sessions, 1) << "no session over noise started after its chunks were measured";
}

TEST(BitAllocation, EvenSharesAskEverySessionForTheRungsRate) {
    const auto report = encode("bit-allocation-even", {"--bit-allocation", "even"});
    ASSERT_FALSE(report["sessions"].empty());
    for (const auto& s : report["sessions"]) {
        EXPECT_EQ(s["weight"].get<double>(), 1.0) << s.dump();
        EXPECT_EQ(s["measured_chunks"].get<int>(), -1) << s.dump();
    }
}

}  // namespace
}  // namespace ladder::test
