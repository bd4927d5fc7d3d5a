// HDR10 and HLG sources made with x265 (mastering display and content light
// as SEI, the way x265's master-display/max-cll write them): the outputs
// carry them, read back with independent readers. ffprobe shows the MP4's
// and the CMAF init segment's mdcv/clli boxes as stream side data, and the
// first frame that libdav1d decodes from the AV1 metadata OBUs as frame
// side data; the HLS master says VIDEO-RANGE, the MPD the transfer.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// x265's master-display units: chromaticity in 1/50000, luminance in 1/10000 cd/m2.
constexpr const char* kMasterDisplay = "G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)";

fs::path x265_source(const std::string& name, const std::string& transfer, bool hdr10) {
    const fs::path out = fresh_dir(name) / "src.mkv";
    std::string params = "colorprim=bt2020:transfer=" + transfer + ":colormatrix=bt2020nc:log-level=error";
    if (hdr10) params += std::string(":master-display=") + kMasterDisplay + ":max-cll=1000,400";
    const ProcessResult r = run_process({"ffmpeg", "-hide_banner", "-v", "error", "-y", "-f", "lavfi", "-i",
                                         "testsrc2=s=320x240:r=25:d=4", "-pix_fmt", "yuv420p10le", "-c:v", "libx265",
                                         "-x265-params", params, "-color_primaries", "bt2020", "-color_trc",
                                         transfer, "-colorspace", "bt2020nc", out.string()},
                                        {}, 120);
    if (r.exit_code != 0) throw std::runtime_error("ffmpeg with libx265 failed: " + r.err);
    return out;
}

json ffprobe_json(const std::vector<std::string>& args) {
    std::vector<std::string> argv{"ffprobe", "-v", "error", "-of", "json"};
    argv.insert(argv.end(), args.begin(), args.end());
    const ProcessResult r = run_process(argv, {}, 60);
    if (r.exit_code != 0) throw std::runtime_error("ffprobe failed: " + r.err);
    return json::parse(r.out);
}

// "a/b" as a number.
double ratio(const json& v) {
    const std::string s = v.is_string() ? v.get<std::string>() : v.dump();
    const auto slash = s.find('/');
    return slash == std::string::npos ? std::stod(s) : std::stod(s.substr(0, slash)) / std::stod(s.substr(slash + 1));
}

const json* side_data(const json& list, const std::string& type) {
    for (const json& d : list)
        if (d.value("side_data_type", "") == type) return &d;
    return nullptr;
}

// The source's values, within what each carrier keeps (AV1's metadata OBU
// stores luminance in 24.8 / 18.14 fixed point, chromaticity in 0.16).
void expect_source_hdr10(const json& list, const std::string& where) {
    SCOPED_TRACE(where);
    const json* m = side_data(list, "Mastering display metadata");
    ASSERT_NE(m, nullptr) << list.dump();
    EXPECT_NEAR(ratio(m->at("red_x")), 34000.0 / 50000, 1e-4);
    EXPECT_NEAR(ratio(m->at("green_y")), 34500.0 / 50000, 1e-4);
    EXPECT_NEAR(ratio(m->at("white_point_x")), 15635.0 / 50000, 1e-4);
    EXPECT_NEAR(ratio(m->at("max_luminance")), 1000.0, 1e-3);
    EXPECT_NEAR(ratio(m->at("min_luminance")), 0.0001, 0.00005);
    const json* c = side_data(list, "Content light level metadata");
    ASSERT_NE(c, nullptr) << list.dump();
    EXPECT_EQ(c->at("max_content"), 1000);
    EXPECT_EQ(c->at("max_average"), 400);
}

std::string video_range(const fs::path& master) {
    const PlaylistLines m = read_playlist(master);
    return attribute(m.stream_inf_by_uri.begin()->second, "VIDEO-RANGE");
}

TEST(Hdr, Hdr10MetadataReachesTheAv1StreamTheContainersAndTheManifests) {
    const fs::path src = x265_source("hdr10-src", "smpte2084", true);
    const fs::path out = fresh_dir("hdr10") / "out";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "hls,dash,mp4",
                                        "--rung", "240p=320x240@500", "--preset", "12", "--progress", "plain"},
                                       {}, 180);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const fs::path& file : {out / "240p.mp4", out / "240p" / "init.mp4"}) {
        const json streams = ffprobe_json({"-show_streams", file.string()});
        expect_source_hdr10(streams["streams"][0].value("side_data_list", json::array()), file.string() + " (mdcv, clli)");
    }
    const json frames = ffprobe_json({"-select_streams", "v", "-read_intervals", "%+#1", "-show_frames",
                                      (out / "240p.mp4").string()});
    ASSERT_FALSE(frames["frames"].empty());
    expect_source_hdr10(frames["frames"][0].value("side_data_list", json::array()), "the AV1 metadata OBUs");
    EXPECT_EQ(frames["frames"][0].value("color_transfer", ""), "smpte2084");
    EXPECT_EQ(video_range(out / "master.m3u8"), "PQ");
    EXPECT_NE(read_text(out / "manifest.mpd")
                  .find(R"(<SupplementalProperty schemeIdUri="urn:mpeg:mpegB:cicp:TransferCharacteristics" value="16" />)"),
              std::string::npos)
        << read_text(out / "manifest.mpd");
    const ProcessResult v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

// FFmpeg's libaom-av1 wrapper writes no HDR metadata OBUs: ladder puts
// them into each key frame's temporal unit itself (mux/av1_metadata_obu.*).
TEST(Hdr, LibaomChunksGetTheMetadataObusFromLadder) {
    const fs::path src = x265_source("hdr10-aom-src", "smpte2084", true);
    const fs::path out = fresh_dir("hdr10-aom") / "out";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "mp4", "--rung",
                                        "240p=320x240@500", "--encoder", "aom", "--preset", "8"},
                                       {}, 240);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Every chunk starts with a key frame: the frames at 0 s and 2 s both
    // decode with the metadata.
    const json frames = ffprobe_json({"-select_streams", "v", "-show_frames", "-show_entries",
                                      "frame=pts,key_frame,side_data_list", (out / "240p.mp4").string()});
    int keys = 0;
    for (const json& f : frames["frames"]) {
        if (f.value("key_frame", 0) != 1) continue;
        ++keys;
        expect_source_hdr10(f.value("side_data_list", json::array()), "key frame at pts " + f["pts"].dump());
    }
    EXPECT_EQ(keys, 2) << "one key frame per 2-s chunk of the 4-s source";
    EXPECT_EQ(decode_errors(out / "240p.mp4"), "") << "the inserted OBUs keep the stream decodable";
}

TEST(Hdr, HlgIsSaidInTheManifestsAndGetsNoMasteringMetadata) {
    const fs::path src = x265_source("hlg-src", "arib-std-b67", false);
    const fs::path out = fresh_dir("hlg") / "out";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "hls,dash",
                                        "--rung", "240p=320x240@500", "--preset", "12"},
                                       {}, 180);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(video_range(out / "master.m3u8"), "HLG");
    EXPECT_NE(read_text(out / "manifest.mpd")
                  .find(R"(<SupplementalProperty schemeIdUri="urn:mpeg:mpegB:cicp:TransferCharacteristics" value="18" />)"),
              std::string::npos);
    const json frames = ffprobe_json({"-select_streams", "v", "-read_intervals", "%+#1", "-show_frames",
                                      (out / "240p" / "index.m3u8").string()});
    ASSERT_FALSE(frames["frames"].empty());
    EXPECT_EQ(frames["frames"][0].value("color_transfer", ""), "arib-std-b67");
    EXPECT_EQ(side_data(frames["frames"][0].value("side_data_list", json::array()), "Mastering display metadata"),
              nullptr);
}

}  // namespace
}  // namespace ladder::test
