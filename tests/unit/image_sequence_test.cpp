// Image sequence patterns and their numbering (engine/source/image_sequence.*),
// and --frame-rate's text (cli/frame_rate_option.*).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "cli/frame_rate_option.hpp"
#include "engine/base/errors.hpp"
#include "engine/source/image_sequence.hpp"

namespace ladder {
namespace {

namespace fs = std::filesystem;

fs::path folder_with(const std::string& name, const std::vector<std::string>& files) {
    const fs::path dir = fs::temp_directory_path() / ("ladder-unit-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const auto& f : files) std::ofstream(dir / f) << f;
    return dir;
}

std::string error_of(const fs::path& pattern) {
    try {
        engine::scan_image_sequence(pattern);
    } catch (const engine::InputError& e) {
        return e.what();
    }
    return "";
}

TEST(FrameRateOption, IntegersRatiosAndDecimals) {
    EXPECT_EQ(av_cmp_q(cli::parse_frame_rate("24"), AVRational{24, 1}), 0);
    EXPECT_EQ(av_cmp_q(cli::parse_frame_rate("30000/1001"), AVRational{30000, 1001}), 0);
    EXPECT_EQ(av_cmp_q(cli::parse_frame_rate("23.976"), AVRational{24000, 1001}), 0);
    EXPECT_EQ(av_cmp_q(cli::parse_frame_rate("29.97"), AVRational{30000, 1001}), 0);
    EXPECT_EQ(av_cmp_q(cli::parse_frame_rate("59.94"), AVRational{60000, 1001}), 0);
    EXPECT_EQ(av_cmp_q(cli::parse_frame_rate("12.5"), AVRational{25, 2}), 0);
    EXPECT_EQ(av_cmp_q(cli::parse_frame_rate("25.0"), AVRational{25, 1}), 0);
    EXPECT_EQ(av_cmp_q(cli::parse_frame_rate("50/2"), AVRational{25, 1}), 0);
}

TEST(FrameRateOption, RefusesWhatIsNotARate) {
    for (const char* bad : {"", "abc", "0", "-24", "24fps", "1/0", "0/1", "241", "24/", "2.4.1", "1e3"})
        EXPECT_THROW(cli::parse_frame_rate(bad), std::invalid_argument) << bad;
}

TEST(ImageSequencePattern, OnlyAFileNameWithOneNumberDirectiveIsAPattern) {
    EXPECT_TRUE(engine::is_image_sequence("frames/img_%05d.png"));
    EXPECT_TRUE(engine::is_image_sequence("img%d.jpg"));
    EXPECT_TRUE(engine::is_image_sequence("100%%_%03d.png"));
    EXPECT_FALSE(engine::is_image_sequence("clip.mp4"));
    EXPECT_FALSE(engine::is_image_sequence("img_%s.png"));
    EXPECT_FALSE(engine::is_image_sequence("img_%d_%d.png"));
    EXPECT_FALSE(engine::is_image_sequence("100%%.png"));
}

TEST(ImageSequencePattern, FindsTheFirstAndLastNumbersAndTheirFiles) {
    const fs::path dir = folder_with("seq", {"a_0007.png", "a_0008.png", "a_0009.png", "a_0010.png", "a_10.png",
                                             "b_0001.png", "a_0011.png.tmp"});
    const auto seq = engine::scan_image_sequence(dir / "a_%04d.png");
    EXPECT_EQ(seq.first, 7);
    EXPECT_EQ(seq.last, 10);
    EXPECT_EQ(seq.frames(), 4);
    EXPECT_EQ(seq.frame_file(8), dir / "a_0008.png");
    EXPECT_EQ(seq.bytes, 4u * std::string("a_0007.png").size());
    const auto input = engine::image_sequence_input(seq, AVRational{24000, 1001});
    EXPECT_EQ(input.format, "image2");
    EXPECT_NE(std::find(input.options.begin(), input.options.end(), std::pair<std::string, std::string>{"start_number", "7"}),
              input.options.end());
    EXPECT_NE(std::find(input.options.begin(), input.options.end(),
                        std::pair<std::string, std::string>{"framerate", "24000/1001"}),
              input.options.end());
    // %d: unpadded numbers only (a_0010.png is not a_%d.png's frame 10).
    const auto unpadded = engine::scan_image_sequence(dir / "a_%d.png");
    EXPECT_EQ(unpadded.first, 10);
    EXPECT_EQ(unpadded.last, 10);
    fs::remove_all(dir);
}

TEST(ImageSequencePattern, GapsNoMatchAndNoFolderAreInputErrors) {
    const fs::path dir = folder_with("gap", {"f000.png", "f001.png", "f003.png", "f004.png"});
    const std::string gap = error_of(dir / "f%03d.png");
    EXPECT_NE(gap.find("frame " + (dir / "f002.png").string() + " is missing"), std::string::npos) << gap;
    EXPECT_NE(gap.find("runs from f000.png to f004.png"), std::string::npos) << gap;
    EXPECT_NE(error_of(dir / "g%03d.png").find("matches no file"), std::string::npos);
    EXPECT_NE(error_of(dir / "nowhere" / "f%03d.png").find("does not exist"), std::string::npos);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace ladder
