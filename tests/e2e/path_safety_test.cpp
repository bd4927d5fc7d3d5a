// Rung names become file and folder names under OUTDIR, so a name from the
// command line or a ladder JSON file must never reach outside it: '..',
// absolute paths, separators and NUL are refused with one error line (exit 2)
// before anything is written, inside OUTDIR or next to it.
#include <gtest/gtest.h>

#include <fstream>

#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

struct HostileName {
    std::string label;
    std::string json_name;  // as it appears inside a JSON string literal
    std::string cli_name;   // as given to --rung (empty: not expressible there)
};

const std::vector<HostileName> kHostile{
    {"parent", "../escaped", "../escaped"},
    {"deep_parent", "../../../tmp/escaped", "../../../tmp/escaped"},
    {"dotdot", "..", ".."},
    {"dot", ".", "."},
    {"absolute", "/tmp/escaped", "/tmp/escaped"},
    {"slash", "a/escaped", "a/escaped"},
    {"backslash", "a\\\\escaped", "a\\escaped"},
    {"nul", "esc\\u0000aped", ""},  // an argv string cannot hold a NUL: ladder files only
    {"hidden", ".escaped", ".escaped"},
    {"newline", "esc\\naped", "esc\naped"},
    {"empty", "", ""},
};

// Nothing may appear outside OUTDIR (in its parent, or at the absolute paths
// the names point to), and nothing inside it either: the refusal comes first.
void expect_nothing_written(const fs::path& parent, const fs::path& out) {
    for (const auto& e : fs::recursive_directory_iterator(parent)) {
        if (e.path().filename() == "src.mp4" || e.path().filename() == "ladder.json") continue;
        if (e.path() == out) continue;
        ADD_FAILURE() << "written: " << e.path();
    }
    EXPECT_FALSE(fs::exists("/tmp/escaped")) << "wrote /tmp/escaped";
    EXPECT_FALSE(fs::exists("/tmp/escaped.mp4")) << "wrote /tmp/escaped.mp4";
}

void expect_refused(const ProcessResult& r) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind("ladder: error: ", 0), 0u) << r.err;
    // One line, and the name is shown escaped: no raw NUL or newline reaches
    // the terminal or a log.
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.find('\0'), std::string::npos);
    EXPECT_NE(r.err.find("not allowed"), std::string::npos) << r.err;
}

void PrintTo(const HostileName& h, std::ostream* os) { *os << h.label; }

std::vector<HostileName> expressible_in_argv() {
    std::vector<HostileName> out;
    for (const auto& h : kHostile)
        if (h.label != "nul") out.push_back(h);
    return out;
}

class HostileNameInLadderFile : public testing::TestWithParam<HostileName> {};
class HostileNameOnCommandLine : public testing::TestWithParam<HostileName> {};

TEST_P(HostileNameInLadderFile, IsRefusedBeforeAnythingIsWritten) {
    const HostileName& h = GetParam();
    const fs::path dir = fresh_dir("safety-json-" + h.label);
    const fs::path src = make_clip("safety-src", {160, 120, "25", 1.0, false, ""});
    fs::copy_file(src, dir / "src.mp4");
    std::ofstream(dir / "ladder.json") << R"({"rungs": [{"name": ")" << h.json_name
                                       << R"(", "width": 160, "height": 120, "bitrate_kbps": 200}]})";
    for (const std::string format : {"mp4", "hls"}) {
        SCOPED_TRACE(format);
        const fs::path out = dir / "out";
        auto r = run_ladder({"encode", (dir / "src.mp4").string(), "-o", out.string(), "--ladder",
                             (dir / "ladder.json").string(), "--format", format, "--preset", "12"});
        expect_refused(r);
        EXPECT_FALSE(fs::exists(out)) << "OUTDIR created although the ladder was refused";
        expect_nothing_written(dir, out);
    }
}

TEST_P(HostileNameOnCommandLine, IsRefusedBeforeAnythingIsWritten) {
    const HostileName& h = GetParam();
    const fs::path dir = fresh_dir("safety-cli-" + h.label);
    const fs::path src = make_clip("safety-src", {160, 120, "25", 1.0, false, ""});
    fs::copy_file(src, dir / "src.mp4");
    const fs::path out = dir / "out";
    auto r = run_ladder({"encode", (dir / "src.mp4").string(), "-o", out.string(), "--rung",
                         h.cli_name + "=160x120@200", "--format", "hls", "--preset", "12"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out));
    expect_nothing_written(dir, out);
}

const auto kLabel = [](const testing::TestParamInfo<HostileName>& i) { return i.param.label; };
INSTANTIATE_TEST_SUITE_P(Names, HostileNameInLadderFile, testing::ValuesIn(kHostile), kLabel);
INSTANTIATE_TEST_SUITE_P(Names, HostileNameOnCommandLine, testing::ValuesIn(expressible_in_argv()), kLabel);

}  // namespace
}  // namespace ladder::test
