// `ladder validate` on a real ladder (valid) and on copies broken in the ways
// a storage or packaging mistake breaks them: each problem must be named.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

class Validate : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        const fs::path src = make_clip("validate", {320, 240, "25", 3.0, true, ""});
        good_ = new_dir("validate-good");
        // Every test process runs this; the encodes are shared between them.
        ProcessResult r = run_ladder_shared({"encode", src.string(), "-o", good_.string(), "--rung", "240p=320x240@500",
                                             "--rung", "120p=160x120@200", "--segment-seconds", "1", "--preset", "12",
                                             "-q"},
                                            good_);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        // The same source cut into 1.5 s segments: a rung that does not line up.
        other_ = new_dir("validate-other");
        r = run_ladder_shared({"encode", src.string(), "-o", other_.string(), "--rung", "120p=160x120@200",
                               "--segment-seconds", "1.5", "--preset", "12", "-q"},
                              other_);
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }

    static fs::path new_dir(const std::string& name) { return fresh_dir(name); }

    fs::path copy_of_good(const std::string& name) {
        fs::path d = fresh_dir(name);
        fs::copy(good_, d, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
        return d;
    }

    static void replace_in(const fs::path& file, const std::string& from, const std::string& to) {
        std::string text = read_text(file);
        const auto pos = text.find(from);
        ASSERT_NE(pos, std::string::npos) << from << " in " << file;
        text.replace(pos, from.size(), to);
        std::ofstream(file, std::ios::trunc) << text;
    }

    static ProcessResult validate(const fs::path& dir) { return run_ladder({"validate", dir.string()}); }

    static inline fs::path good_;
    static inline fs::path other_;
};

TEST_F(Validate, AcceptsAFreshLadder) {
    ProcessResult r = validate(good_);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("2 variants, 9 segments checked, 0 problems"), std::string::npos) << r.err;
}

TEST_F(Validate, NamesAMissingSegment) {
    const fs::path d = copy_of_good("validate-missing");
    fs::remove(d / "240p/seg_00002.m4s");
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("240p/seg_00002.m4s: missing"), std::string::npos) << r.out;
}

TEST_F(Validate, NamesAWrongCodecs) {
    const fs::path d = copy_of_good("validate-codecs");
    std::string master = read_text(d / "master.m3u8");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(master, m, std::regex("CODECS=\"(av01[^,\"]*)")));
    const std::string real = m[1];
    replace_in(d / "master.m3u8", real, "av01.0.13M.08");
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("CODECS says av01.0.13M.08 but its init segment's av1C says " + real), std::string::npos)
        << r.out;
}

TEST_F(Validate, NamesATamperedExtinf) {
    const fs::path d = copy_of_good("validate-extinf");
    replace_in(d / "120p/index.m3u8", "#EXTINF:1.000000,\nseg_00002.m4s", "#EXTINF:1.400000,\nseg_00002.m4s");
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("120p/seg_00002.m4s: EXTINF says 1.400000 s but its samples last 1.000000 s"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("rungs do not line up"), std::string::npos) << r.out;
}

TEST_F(Validate, NamesAMisalignedRung) {
    const fs::path d = copy_of_good("validate-misaligned");
    fs::remove_all(d / "120p");
    fs::copy(other_ / "120p", d / "120p", fs::copy_options::recursive);
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("120p/index.m3u8: 2 segments, but 240p/index.m3u8 has 3: rungs do not line up"),
              std::string::npos)
        << r.out;
}

TEST_F(Validate, NamesAWrongBandwidth) {
    const fs::path d = copy_of_good("validate-bandwidth");
    std::string master = read_text(d / "master.m3u8");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(master, m, std::regex("AVERAGE-BANDWIDTH=([0-9]+)")));
    replace_in(d / "master.m3u8", "AVERAGE-BANDWIDTH=" + std::string(m[1]),
               "AVERAGE-BANDWIDTH=" + std::to_string(std::stoll(m[1]) * 2));
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("AVERAGE-BANDWIDTH=" + std::to_string(std::stoll(m[1]) * 2)), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("more than 10% apart"), std::string::npos) << r.out;
}

TEST_F(Validate, NamesAMissingMasterAndABadFolder) {
    const fs::path d = copy_of_good("validate-nomaster");
    fs::remove(d / "master.m3u8");
    ProcessResult r = validate(d);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("master.m3u8: missing"), std::string::npos) << r.out;
    EXPECT_EQ(validate(d / "no-such-folder").exit_code, 2);
}

}  // namespace
}  // namespace ladder::test
