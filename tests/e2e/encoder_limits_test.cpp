// Each encoder's own limits (README "Encoder limits"): a rung outside them is
// refused before anything is encoded (exit 2, one line naming the rung, the
// encoder and the limit), and a rung at SVT-AV1's maximum rate is encoded
// although its sessions' shares would ask for more.
#include <gtest/gtest.h>

#include <fstream>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

void expect_refused(const ProcessResult& r, const std::string& must_mention) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << "one error line: " << r.err;
    EXPECT_NE(r.err.find(must_mention), std::string::npos) << "mentions " << must_mention << ": " << r.err;
}

void expect_empty(const fs::path& dir) {
    if (!fs::exists(dir)) return;
    for (const auto& e : fs::recursive_directory_iterator(dir)) ADD_FAILURE() << "left behind: " << e.path();
}

TEST(EncoderLimits, RungsOutsideAnEncodersLimitsAreRefusedBeforeEncoding) {
    const fs::path src = make_clip("limits-src", {160, 120, "25", 1.0, false, ""});
    const fs::path dir = fresh_dir("limits-refused");

    const ProcessResult rate = run_ladder({"encode", src.string(), "-o", (dir / "rate").string(), "--rung",
                                           "120p=160x120@100001", "--preset", "12"});
    expect_refused(rate, "rung 120p: 100001 kb/s is above SVT-AV1's maximum of 100000 kb/s (libsvtav1)");
    expect_empty(dir / "rate");

    // SVT-AV1 takes a buffer of 20 to 10000 ms of the rate; libaom any.
    const fs::path ladder_file = dir / "buffer.json";
    std::ofstream(ladder_file) << R"({"rungs": [{"name": "120p", "width": 160, "height": 120, "bitrate_kbps": 1000,
                                      "bufsize_kbps": 15000}]})";
    const ProcessResult buffer = run_ladder({"encode", src.string(), "-o", (dir / "buffer").string(), "--ladder",
                                             ladder_file.string(), "--preset", "12"});
    expect_refused(buffer, "rung 120p: bufsize_kbps 15000 is 15000 ms of its 1000 kb/s; SVT-AV1 takes a buffer of "
                           "20 to 10000 ms of the rate");
    expect_empty(dir / "buffer");
    const ProcessResult plan = run_ladder({"plan", src.string(), "-o", (dir / "plan").string(), "--ladder",
                                           ladder_file.string()});
    expect_refused(plan, "SVT-AV1 takes a buffer of 20 to 10000 ms");

    const ProcessResult aom = run_ladder({"encode", src.string(), "-o", (dir / "aom").string(), "--ladder",
                                          ladder_file.string(), "--encoder", "aom", "--preset", "8", "--format", "mp4"});
    EXPECT_EQ(aom.exit_code, 0) << aom.err;
}

TEST(EncoderLimits, RungAtSvtAv1sMaximumRateIsEncoded) {
    const fs::path src = make_clip("limits-max-src", {320, 180, "25", 2.0, false, ""});
    const fs::path out = fresh_dir("limits-max") / "out";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--rung", "180p=320x180@100000",
                                        "--preset", "12", "--format", "mp4"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json report = nlohmann::json::parse(read_text(out / "report.json"));
    ASSERT_FALSE(report["sessions"].empty()) << report.dump();
    for (const auto& s : report["sessions"]) EXPECT_LE(s["requested_kbps"].get<int>(), 100000) << s.dump();
}

}  // namespace
}  // namespace ladder::test
