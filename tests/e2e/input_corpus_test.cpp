// The odd and broken inputs corpus (docs/input-handling.md). Every input is
// generated here with the ffmpeg CLI, encoded by the real binary under a
// watchdog, and held to its written expectation with ffprobe / ffmpeg +
// libdav1d: a valid ladder with the documented behaviour, or one clear error
// line and exit code 2. Never a crash, a hang or a silent wrong output.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <numeric>
#include <regex>
#include <set>

#include "corpus_media.hpp"
#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

// Far above the few seconds an entry takes: only a hang gets near it.
constexpr int kWatchdogSeconds = 120;

// ------------------------------------------------------------- the outcome

struct Outcome {
    fs::path source;
    fs::path out;
    fs::path scratch;
    ProcessResult run;
    double seconds = 0;  // wall time of the ladder run

    // A rung's whole video track (init + every segment, in playlist order).
    fs::path rung_track(const std::string& rung) const {
        PlaylistLines p = read_playlist(out / rung / "index.m3u8");
        std::vector<fs::path> parts{out / rung / "init.mp4"};
        for (const auto& u : p.uris) parts.push_back(out / rung / u);
        const fs::path whole = scratch / (rung + "-video.mp4");
        concat_files(parts, whole);
        return whole;
    }
    // An audio rendition's init and media segments joined into one file.
    fs::path audio_track(const std::string& id = "aac") const {
        const fs::path dir = out / "audio" / id;
        PlaylistLines p = read_playlist(dir / "index.m3u8");
        std::vector<fs::path> parts{dir / "init.mp4"};
        for (const auto& u : p.uris) parts.push_back(dir / u);
        const fs::path whole = scratch / ("audio-" + id + ".mp4");
        concat_files(parts, whole);
        return whole;
    }
    PlaylistLines master() const { return read_playlist(out / "master.m3u8"); }
    std::string stream_inf(const std::string& rung) const {
        auto m = master();
        auto it = m.stream_inf_by_uri.find(rung + "/index.m3u8");
        return it == m.stream_inf_by_uri.end() ? "" : it->second;
    }
    std::string media_tag() const {
        const auto tags = media_tags();
        return tags.empty() ? "" : tags.front();
    }
    std::vector<std::string> media_tags() const {
        std::vector<std::string> out;
        for (const auto& t : master().tags)
            if (t.rfind("#EXT-X-MEDIA:", 0) == 0) out.push_back(t.substr(13));
        return out;
    }
    int variants_with_audio_group(const std::string& group) const {
        int n = 0;
        for (const auto& t : master().tags)
            n += t.rfind("#EXT-X-STREAM-INF:", 0) == 0 && attribute(t.substr(18), "AUDIO") == group;
        return n;
    }
    double extinf_total(const std::string& playlist) const {
        auto p = read_playlist(out / playlist);
        return std::accumulate(p.extinf.begin(), p.extinf.end(), 0.0);
    }
};

// Refused: exit 2, exactly one line that starts like every ladder error and
// names the problem, and nothing written.
void expect_refusal(const Outcome& o, const std::string& must_mention) {
    EXPECT_FALSE(o.run.timed_out);
    EXPECT_EQ(o.run.exit_code, 2) << o.run.err;
    EXPECT_EQ(count_lines(o.run.err), 1) << "one error line: " << o.run.err;
    EXPECT_EQ(o.run.err.rfind("ladder: error: ", 0), 0u) << o.run.err;
    EXPECT_NE(o.run.err.find(o.source.filename().string()), std::string::npos) << "names the input: " << o.run.err;
    EXPECT_NE(o.run.err.find(must_mention), std::string::npos) << "mentions '" << must_mention << "': " << o.run.err;
    if (fs::exists(o.out))
        for (const auto& e : fs::recursive_directory_iterator(o.out)) ADD_FAILURE() << "left behind: " << e.path();
}

// A complete ladder: exit 0, the master playlist, `ladder validate` agrees,
// and every rung decodes cleanly with libdav1d.
void expect_ladder(const Outcome& o, const std::vector<std::string>& rungs) {
    ASSERT_FALSE(o.run.timed_out) << "ladder hung (killed after " << kWatchdogSeconds << " s)";
    ASSERT_EQ(o.run.exit_code, 0) << o.run.err;
    ASSERT_TRUE(fs::exists(o.out / "master.m3u8"));
    ProcessResult v = run_ladder({"validate", o.out.string(), "-q"}, {}, kWatchdogSeconds);
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
    EXPECT_EQ(o.master().stream_inf_by_uri.size(), rungs.size());
    for (const auto& rung : rungs) {
        ASSERT_FALSE(o.stream_inf(rung).empty()) << "rung " << rung << " in master.m3u8";
        EXPECT_EQ(decode_errors(o.rung_track(rung)), "") << rung;
    }
}

// Stops the expectation there when the ladder itself is missing.
#define REQUIRE_LADDER(o, rungs)                            \
    do {                                                    \
        expect_ladder(o, rungs);                            \
        if (::testing::Test::HasFatalFailure()) return;     \
    } while (0)

// ---------------------------------------------------------------- the table

struct CorpusEntry {
    std::string name;
    std::string file_name;  // its extension picks the container
    std::function<void(const fs::path&)> make;
    std::vector<std::string> options;  // ladder encode options after INPUT -o OUTDIR
    std::function<void(const Outcome&)> expect;
};

void PrintTo(const CorpusEntry& e, std::ostream* os) { *os << e.name; }

const std::vector<std::string> kSmall{"--rung", "120p=x120@200", "--preset", "12", "--segment-seconds", "1"};
// HLS and one MP4 per rung from the same encode: both muxers' audio paths.
const std::vector<std::string> kSmallBoth{"--rung", "120p=x120@200", "--preset",  "12",
                                          "--segment-seconds", "1",  "--format", "both"};

// Frames, FRAME-RATE and EXTINF of a constant-rate source at an NTSC rate.
void expect_rate(const Outcome& o, const std::string& frame_rate, double fps) {
    REQUIRE_LADDER(o, {"120p"});
    const long want = source_frames(o.source);
    VideoFacts v = video_facts(o.rung_track("120p"));
    EXPECT_EQ(v.frames, want);
    EXPECT_EQ(attribute(o.stream_inf("120p"), "FRAME-RATE"), frame_rate);
    EXPECT_NEAR(o.extinf_total("120p/index.m3u8"), want / fps, 1e-3);
    for (double d : frame_intervals(o.rung_track("120p"))) EXPECT_NEAR(d, 1.0 / fps, 1e-4);
}

std::vector<CorpusEntry> corpus() {
    std::vector<CorpusEntry> c;

    // --- Refused with one error line, exit code 2.
    c.push_back({"ZeroByteFile", "empty.mp4", [](const fs::path& f) { std::ofstream(f).close(); }, kSmall,
                 [](const Outcome& o) { expect_refusal(o, "is empty (0 bytes)"); }});
    c.push_back({"TextFile", "notes.mp4",
                 [](const fs::path& f) { std::ofstream(f) << "this is a text file, not a video\n"; }, kSmall,
                 [](const Outcome& o) { expect_refusal(o, "is not a media file"); }});
    c.push_back({"AudioOnly", "tone.m4a",
                 [](const fs::path& f) { ffmpeg({"-f", "lavfi", "-i", sine(1.0), "-c:a", "aac", f.string()}); },
                 kSmall, [](const Outcome& o) { expect_refusal(o, "has no video stream"); }});

    // --- Damaged files: what can be decoded is encoded, with a warning.
    c.push_back({"TruncatedFile", "truncated.mp4",
                 [](const fs::path& f) {
                     const fs::path full = f.parent_path() / "full.mp4";
                     plain_clip(full, "320x240", "25", 3.0, true, {"-movflags", "+faststart"});
                     // The header (moov, in front) still lists 75 frames; the data stops at 60%.
                     const std::string bytes = read_text(full);
                     std::ofstream(f, std::ios::binary) << bytes.substr(0, bytes.size() * 6 / 10);
                     fs::remove(full);
                 },
                 kSmall,
                 [](const Outcome& o) {
                     REQUIRE_LADDER(o, {"120p"});
                     ASSERT_LT(source_frames(o.source), 70) << "the corpus input really is truncated";
                     const long timeline = decodable_timeline_frames(o.source, 25.0);
                     VideoFacts v = video_facts(o.rung_track("120p"));
                     EXPECT_NEAR(v.frames, timeline, 1) << "up to the last decodable frame, nothing after the cut";
                     EXPECT_NE(o.run.err.find("looks truncated"), std::string::npos) << "warns: " << o.run.err;
                 }});
    c.push_back({"CorruptMiddle", "corrupt.ts",
                 [](const fs::path& f) {
                     plain_clip(f, "320x240", "25", 3.0, true);
                     // Garbage in the payload of 40 transport packets in the middle
                     // (sync bytes and headers intact, so the demuxer carries on).
                     std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
                     const auto size = static_cast<std::streamoff>(fs::file_size(f));
                     std::uint32_t x = 12345;
                     for (std::streamoff p = (size / 2) / 188 * 188, i = 0; i < 40; ++i, p += 188) {
                         io.seekp(p + 4);
                         for (int b = 0; b < 184; ++b) {
                             x = x * 1664525u + 1013904223u;
                             io.put(static_cast<char>(x >> 24));
                         }
                     }
                 },
                 kSmall,
                 [](const Outcome& o) {
                     REQUIRE_LADDER(o, {"120p"});
                     ASSERT_LT(source_frames(o.source), 75) << "the corpus input really is damaged";
                     VideoFacts v = video_facts(o.rung_track("120p"));
                     EXPECT_NEAR(v.frames, 75, 1) << "the gap is filled by repeating the last good frame";
                     EXPECT_NE(o.run.err.find("missing or damaged"), std::string::npos) << "says so: " << o.run.err;
                     EXPECT_NEAR(o.extinf_total("audio/aac/index.m3u8"), 3.0, 0.1);
                 }});

    // --- Streams present or missing.
    c.push_back({"VideoOnly", "video-only.mp4",
                 [](const fs::path& f) { plain_clip(f, "320x240", "25", 2.0, false); }, kSmall,
                 [](const Outcome& o) {
                     REQUIRE_LADDER(o, {"120p"});
                     EXPECT_EQ(video_facts(o.rung_track("120p")).frames, 50);
                     EXPECT_EQ(o.media_tag(), "") << "no audio rendition";
                     EXPECT_FALSE(fs::exists(o.out / "audio"));
                     const std::string codecs = attribute(o.stream_inf("120p"), "CODECS");
                     EXPECT_EQ(codecs.find("mp4a"), std::string::npos) << codecs;
                     EXPECT_EQ(attribute(o.stream_inf("120p"), "AUDIO"), "");
                 }});

    // --- Very short sources.
    c.push_back({"SingleFrame", "one-frame.mp4",
                 [](const fs::path& f) {
                     ffmpeg(join({{"-f", "lavfi", "-i", testsrc("320x240", "25", 1.0), "-frames:v", "1"}, kH264,
                                  {"-pix_fmt", "yuv420p", f.string()}}));
                 },
                 kSmall,
                 [](const Outcome& o) {
                     REQUIRE_LADDER(o, {"120p"});
                     EXPECT_EQ(video_facts(o.rung_track("120p")).frames, 1);
                     PlaylistLines p = read_playlist(o.out / "120p/index.m3u8");
                     ASSERT_EQ(p.extinf.size(), 1u) << "one segment";
                     EXPECT_NEAR(p.extinf[0], 1.0 / 25, 1e-6);
                 }});
    c.push_back({"ShorterThanOneSegment", "short.mp4",
                 [](const fs::path& f) { plain_clip(f, "320x240", "25", 0.5, true); },
                 {"--rung", "120p=x120@200", "--preset", "12", "--segment-seconds", "2"},
                 [](const Outcome& o) {
                     REQUIRE_LADDER(o, {"120p"});
                     const long want = source_frames(o.source);
                     EXPECT_EQ(video_facts(o.rung_track("120p")).frames, want);
                     PlaylistLines p = read_playlist(o.out / "120p/index.m3u8");
                     ASSERT_EQ(p.extinf.size(), 1u) << "one segment";
                     EXPECT_NEAR(p.extinf[0], want / 25.0, 1e-6);
                     EXPECT_EQ(read_playlist(o.out / "audio/aac/index.m3u8").extinf.size(), 1u);
                 }});

    // --- Geometry.
    c.push_back({"OddWidthAndHeight321x241", "odd.mkv",
                 [](const fs::path& f) {
                     // testsrc2 and libx264 round to even sizes; testsrc and FFV1 keep 321x241.
                     ffmpeg({"-f", "lavfi", "-i", "testsrc=size=321x241:rate=25:duration=2", "-c:v", "ffv1", "-pix_fmt",
                             "yuv420p", f.string()});
                 },
                 {"--preset", "12", "--segment-seconds", "1"},  // the default ladder, trimmed to the source
                 [](const Outcome& o) {
                     ASSERT_EQ(stream_of(o.source, "v:0").value("width", 0), 321);
                     REQUIRE_LADDER(o, {"240p"});
                     VideoFacts v = video_facts(o.rung_track("240p"));
                     EXPECT_EQ(v.width, 320) << "even, never wider than the source, aspect kept";
                     EXPECT_EQ(v.height, 240);
                     EXPECT_EQ(v.frames, 50);
                     EXPECT_EQ(attribute(o.stream_inf("240p"), "RESOLUTION"), "320x240");
                     EXPECT_GE(psnr_against_source(o.rung_track("240p"), o.source, 320, 240), 30.0);
                 }});
    c.push_back({"Rotation90", "rotated.mp4",
                 [](const fs::path& f) {
                     const fs::path plain = f.parent_path() / "plain.mp4";
                     plain_clip(plain, "320x240", "25", 2.0, true);
                     // The display matrix says: show this 320x240 picture turned by 90 degrees.
                     // FFmpeg 5.1 sets it from the "rotate" tag; 6.0 and later have -display_rotation.
                     ffmpeg({"-i", plain.string(), "-c", "copy", "-metadata:s:v:0", "rotate=90", f.string()});
                     if (!video_facts(f).has_display_matrix)
                         ffmpeg({"-display_rotation:v:0", "-90", "-i", plain.string(), "-c", "copy", f.string()});
                     fs::remove(plain);
                 },
                 {"--rung", "160p=x160@200", "--preset", "12", "--segment-seconds", "1"},
                 [](const Outcome& o) {
                     ASSERT_TRUE(video_facts(o.source).has_display_matrix) << "the corpus input carries a rotation";
                     REQUIRE_LADDER(o, {"160p"});
                     VideoFacts v = video_facts(o.rung_track("160p"));
                     // Portrait 240x320: x160 is the short side, the long side 160 x 4/3 to even.
                     EXPECT_EQ(v.width, 160) << "portrait";
                     EXPECT_EQ(v.height, 214);
                     EXPECT_FALSE(v.has_display_matrix) << "rotation applied to the pixels, not left as a flag";
                     EXPECT_EQ(attribute(o.stream_inf("160p"), "RESOLUTION"), "160x214");
                     // ffmpeg itself applies the display matrix when it reads the source.
                     EXPECT_GE(psnr_against_source(o.rung_track("160p"), o.source, 160, 214), 30.0);
                 }});
    c.push_back({"NonSquarePixels", "anamorphic.mp4",
                 [](const fs::path& f) {
                     plain_clip(f, "320x240", "25", 2.0, true, {"-vf", "setsar=4/3"});
                 },
                 {"--rung", "240p=x240@500", "--preset", "12", "--segment-seconds", "1"},
                 [](const Outcome& o) {
                     ASSERT_EQ(stream_of(o.source, "v:0").value("sample_aspect_ratio", ""), "4:3");
                     REQUIRE_LADDER(o, {"240p"});
                     VideoFacts v = video_facts(o.rung_track("240p"));
                     EXPECT_EQ(v.width, 426) << "320 x 4/3, rounded to even";
                     EXPECT_EQ(v.height, 240);
                     EXPECT_TRUE(v.sar == "1:1" || v.sar == "0:1" || v.sar.empty()) << "square pixels: " << v.sar;
                     EXPECT_EQ(attribute(o.stream_inf("240p"), "RESOLUTION"), "426x240");
                     EXPECT_GE(psnr_against_source(o.rung_track("240p"), o.source, 426, 240), 30.0);
                 }});

    // --- Pixel formats and colour.
    c.push_back({"Hdr10Pq10Bit420", "hdr10.mp4",
                 [](const fs::path& f) {
                     // setparams tags the frames: FFmpeg 7 takes the stream's colour from
                     // them and ignores -color_trc & co. for libx264 (5.1 honours both).
                     ffmpeg(join({{"-f", "lavfi", "-i", testsrc("320x240", "25", 2.0), "-vf",
                                   "setparams=color_primaries=bt2020:color_trc=smpte2084:colorspace=bt2020nc:range=tv"},
                                  kH264,
                                  {"-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc", "smpte2084",
                                   "-colorspace", "bt2020nc", "-color_range", "tv", f.string()}}));
                 },
                 kSmall,
                 [](const Outcome& o) {
                     ASSERT_EQ(stream_of(o.source, "v:0").value("color_transfer", ""), "smpte2084")
                         << "the corpus input really is PQ";
                     REQUIRE_LADDER(o, {"120p"});
                     VideoFacts v = video_facts(o.rung_track("120p"));
                     EXPECT_EQ(v.pix_fmt, "yuv420p10le") << "10-bit stays 10-bit";
                     EXPECT_EQ(v.profile, "Main");
                     EXPECT_EQ(v.transfer, "smpte2084");
                     EXPECT_EQ(v.primaries, "bt2020");
                     EXPECT_EQ(v.frames, 50);
                     EXPECT_EQ(attribute(o.stream_inf("120p"), "VIDEO-RANGE"), "PQ");
                     // av01.P.LLT.DD.M.CCC.cp.tc.mc.F
                     std::string codecs = attribute(o.stream_inf("120p"), "CODECS");
                     codecs = codecs.substr(0, codecs.find(','));
                     std::vector<std::string> fields;
                     for (std::size_t a = 0, b; a <= codecs.size(); a = b + 1) {
                         b = std::min(codecs.find('.', a), codecs.size());
                         fields.push_back(codecs.substr(a, b - a));
                     }
                     ASSERT_EQ(fields.size(), 10u) << codecs;
                     EXPECT_EQ(fields[1], "0") << "main profile";
                     EXPECT_EQ(fields[3], "10") << "bit depth";
                     EXPECT_EQ(fields[5], "110") << "4:2:0";
                     EXPECT_EQ(fields[6], "09") << "BT.2020 primaries";
                     EXPECT_EQ(fields[7], "16") << "PQ";
                     EXPECT_EQ(fields[8], "09") << "BT.2020 non-constant matrix";
                 }});
    c.push_back({"Chroma422EightBit", "yuv422.mp4",
                 [](const fs::path& f) {
                     ffmpeg(join({{"-f", "lavfi", "-i", testsrc("320x240", "25", 2.0)}, kH264,
                                  {"-pix_fmt", "yuv422p", f.string()}}));
                 },
                 kSmall,
                 [](const Outcome& o) {
                     ASSERT_EQ(stream_of(o.source, "v:0").value("pix_fmt", ""), "yuv422p");
                     REQUIRE_LADDER(o, {"120p"});
                     VideoFacts v = video_facts(o.rung_track("120p"));
                     EXPECT_EQ(v.pix_fmt, "yuv420p") << "4:2:2 becomes 4:2:0, 8-bit";
                     EXPECT_EQ(v.profile, "Main");
                     EXPECT_EQ(v.frames, 50);
                     EXPECT_GE(psnr_against_source(o.rung_track("120p"), o.source, 160, 120), 30.0);
                 }});
    c.push_back({"InterlacedTff", "interlaced.mp4",
                 [](const fs::path& f) {
                     // 50 fields a second woven into 25 top-field-first frames.
                     ffmpeg(join({{"-f", "lavfi", "-i", testsrc("320x240", "50", 2.0), "-vf",
                                   "tinterlace=mode=interleave_top,setfield=tff"},
                                  kH264,
                                  {"-pix_fmt", "yuv420p", "-flags", "+ildct+ilme", "-x264-params", "tff=1",
                                   f.string()}}));
                 },
                 // At the source size, so that combing would survive into the output.
                 {"--rung", "240p=320x240@1500", "--preset", "12", "--segment-seconds", "1"},
                 [](const Outcome& o) {
                     const Idet in = interlace_detection(o.source);
                     ASSERT_GT(in.tff, 40) << "the corpus input really is interlaced";
                     REQUIRE_LADDER(o, {"240p"});
                     const fs::path track = o.rung_track("240p");
                     EXPECT_EQ(video_facts(track).frames, 50) << "one frame per source frame (25 fps)";
                     EXPECT_EQ(attribute(o.stream_inf("240p"), "FRAME-RATE"), "25.000");
                     const Idet out = interlace_detection(track);
                     EXPECT_GE(out.progressive, 40) << "deinterlaced: TFF " << out.tff << " BFF " << out.bff
                                                    << " progressive " << out.progressive;
                     EXPECT_NE(o.run.err.find("deinterlac"), std::string::npos) << "says so: " << o.run.err;
                 }});

    // --- Timing.
    c.push_back({"VariableFrameRate", "vfr.mkv",
                 [](const fs::path& f) {
                     // 30 fps, but every 2nd and 3rd frame of 0.5-1.2 s is missing: 10 fps there.
                     ffmpeg(join({{"-f", "lavfi", "-i", testsrc("320x240", "30", 2.0), "-vf",
                                   "select='not(between(t,0.5,1.2)*mod(n,3))'", "-fps_mode", "vfr"},
                                  kH264, {"-pix_fmt", "yuv420p", f.string()}}));
                 },
                 kSmall,
                 [](const Outcome& o) {
                     ASSERT_LT(source_frames(o.source), 55) << "the corpus input really has gaps";
                     REQUIRE_LADDER(o, {"120p"});
                     const fs::path track = o.rung_track("120p");
                     EXPECT_NEAR(video_facts(track).frames, 60, 1) << "2 s at the nominal 30 fps";
                     EXPECT_EQ(attribute(o.stream_inf("120p"), "FRAME-RATE"), "30.000");
                     std::set<long> distinct;
                     for (double d : frame_intervals(track)) distinct.insert(std::lround(d * 1e5));
                     EXPECT_EQ(distinct.size(), 1u) << "constant frame rate out";
                 }});
    c.push_back({"LargeStartTime", "late.ts",
                 [](const fs::path& f) { plain_clip(f, "320x240", "25", 2.0, true, {"-output_ts_offset", "3600"}); },
                 kSmall,
                 [](const Outcome& o) {
                     ASSERT_GT(format_start_time(o.source), 3600.0);
                     REQUIRE_LADDER(o, {"120p"});
                     VideoFacts v = video_facts(o.rung_track("120p"));
                     EXPECT_NEAR(v.start, 0.0, 1e-6) << "the outputs start at 0";
                     EXPECT_EQ(v.frames, source_frames(o.source));
                     const fs::path audio = o.audio_track();
                     EXPECT_NEAR(number(stream_of(audio, "a:0"), "start_time"), 0.0, 0.03) << "in sync with video";
                     EXPECT_NEAR(o.extinf_total("audio/aac/index.m3u8"), o.extinf_total("120p/index.m3u8"), 0.1);
                 }});
    c.push_back({"NegativeStartTime", "early-audio.mkv",
                 [](const fs::path& f) {
                     // The audio starts 1 s before the first video frame.
                     ffmpeg(join({{"-f", "lavfi", "-i", testsrc("320x240", "25", 2.0), "-itsoffset", "-1", "-f",
                                   "lavfi", "-i", sine(3.0)},
                                  kH264,
                                  {"-pix_fmt", "yuv420p", "-c:a", "aac", "-avoid_negative_ts", "disabled",
                                   f.string()}}));
                 },
                 kSmall,
                 [](const Outcome& o) {
                     ASSERT_LT(format_start_time(o.source), -0.5);
                     REQUIRE_LADDER(o, {"120p"});
                     VideoFacts v = video_facts(o.rung_track("120p"));
                     EXPECT_NEAR(v.start, 0.0, 1e-6);
                     EXPECT_EQ(v.frames, 50);
                     const fs::path audio = o.audio_track();
                     EXPECT_NEAR(number(stream_of(audio, "a:0"), "start_time"), 0.0, 0.03);
                     EXPECT_NEAR(o.extinf_total("audio/aac/index.m3u8"), 2.0, 0.1)
                         << "audio before the first video frame is cut";
                 }});
    c.push_back({"AudioLongerThanVideo", "long-audio.mp4",
                 [](const fs::path& f) {
                     ffmpeg(join({{"-f", "lavfi", "-i", testsrc("320x240", "25", 2.0), "-f", "lavfi", "-i",
                                   sine(3.0)},
                                  kH264, {"-pix_fmt", "yuv420p", "-c:a", "aac", f.string()}}));
                 },
                 kSmallBoth,
                 [](const Outcome& o) {
                     REQUIRE_LADDER(o, {"120p"});
                     EXPECT_EQ(video_facts(o.rung_track("120p")).frames, 50);
                     EXPECT_NEAR(o.extinf_total("120p/index.m3u8"), 2.0, 1e-6);
                     EXPECT_NEAR(o.extinf_total("audio/aac/index.m3u8"), 2.0, 0.05) << "audio cut at the video's end";
                     FileFacts mp4 = probe(o.out / "120p.mp4");
                     ASSERT_EQ(mp4.audio.size(), 1u);
                     EXPECT_NEAR(mp4.audio[0].duration, 2.0, 0.05) << "the same in the MP4";
                 }});
    c.push_back({"AudioShorterThanVideo", "short-audio.mp4",
                 [](const fs::path& f) {
                     ffmpeg(join({{"-f", "lavfi", "-i", testsrc("320x240", "25", 3.0), "-f", "lavfi", "-i",
                                   sine(1.0)},
                                  kH264, {"-pix_fmt", "yuv420p", "-c:a", "aac", f.string()}}));
                 },
                 kSmallBoth,
                 [](const Outcome& o) {
                     REQUIRE_LADDER(o, {"120p"});
                     EXPECT_EQ(video_facts(o.rung_track("120p")).frames, 75);
                     EXPECT_NEAR(o.extinf_total("120p/index.m3u8"), 3.0, 1e-6);
                     EXPECT_NEAR(o.extinf_total("audio/aac/index.m3u8"), 3.0, 0.05)
                         << "audio padded with silence to the video's end";
                     EXPECT_EQ(read_playlist(o.out / "audio/aac/index.m3u8").extinf.size(), 3u)
                         << "an audio segment for every video segment";
                     FileFacts mp4 = probe(o.out / "120p.mp4");
                     ASSERT_EQ(mp4.audio.size(), 1u);
                     EXPECT_NEAR(mp4.audio[0].duration, 3.0, 0.05) << "the same in the MP4";
                 }});
    c.push_back({"Fps23976", "ntsc-film.mp4",
                 [](const fs::path& f) { plain_clip(f, "320x240", "24000/1001", 2.0, true); }, kSmall,
                 [](const Outcome& o) { expect_rate(o, "23.976", 24000.0 / 1001); }});
    c.push_back({"Fps5994", "ntsc-60.mp4",
                 [](const fs::path& f) { plain_clip(f, "320x240", "60000/1001", 1.0, true); }, kSmall,
                 [](const Outcome& o) { expect_rate(o, "59.940", 60000.0 / 1001); }});

    // --- Audio layouts.
    c.push_back({"TwoAudioTracks", "two-audio.mp4",
                 [](const fs::path& f) {
                     ffmpeg(join({{"-f", "lavfi", "-i", testsrc("320x240", "25", 2.0), "-f", "lavfi", "-i", sine(2.0),
                                   "-f", "lavfi", "-i", sine(2.0, 880), "-map", "0:v", "-map", "1:a", "-map", "2:a"},
                                  kH264,
                                  {"-pix_fmt", "yuv420p", "-c:a", "aac", "-ac:a:0", "2", "-ac:a:1", "1",
                                   "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra", f.string()}}));
                 },
                 kSmall,
                 [](const Outcome& o) {
                     REQUIRE_LADDER(o, {"120p"});
                     const auto media = o.media_tags();
                     ASSERT_EQ(media.size(), 2u) << "a rendition per track";
                     EXPECT_EQ(attribute(media[0], "LANGUAGE"), "en") << "the default track first";
                     EXPECT_EQ(attribute(media[0], "CHANNELS"), "2");
                     EXPECT_EQ(attribute(media[0], "DEFAULT"), "YES");
                     EXPECT_EQ(attribute(media[0], "URI"), "audio/aac/index.m3u8");
                     EXPECT_EQ(attribute(media[1], "LANGUAGE"), "fr");
                     EXPECT_EQ(attribute(media[1], "CHANNELS"), "1") << "mono stays mono";
                     EXPECT_EQ(attribute(media[1], "DEFAULT"), "NO");
                     EXPECT_EQ(attribute(media[1], "AUTOSELECT"), "YES");
                     EXPECT_EQ(attribute(media[1], "URI"), "audio/aac_fra/index.m3u8");
                     EXPECT_EQ(attribute(media[0], "GROUP-ID"), attribute(media[1], "GROUP-ID"));
                     EXPECT_EQ(stream_of(o.audio_track("aac_fra"), "a:0").value("channels", 0), 1);
                     EXPECT_NEAR(o.extinf_total("audio/aac_fra/index.m3u8"), 2.0, 0.1);
                     EXPECT_NE(o.run.err.find("2 audio renditions"), std::string::npos) << "says which: " << o.run.err;
                 }});
    c.push_back({"Surround51", "surround.mp4",
                 [](const fs::path& f) {
                     // The tone is only in the centre channel: a naive "first two
                     // channels" would be silent.
                     ffmpeg(join({{"-f", "lavfi", "-i", testsrc("320x240", "25", 2.0), "-f", "lavfi", "-i", sine(2.0),
                                   "-af", "pan=5.1|FC=c0"},
                                  kH264, {"-pix_fmt", "yuv420p", "-c:a", "aac", f.string()}}));
                 },
                 kSmall,
                 [](const Outcome& o) {
                     ASSERT_EQ(stream_of(o.source, "a:0").value("channels", 0), 6);
                     REQUIRE_LADDER(o, {"120p"});
                     EXPECT_EQ(attribute(o.media_tag(), "CHANNELS"), "2") << "downmixed to stereo";
                     const fs::path audio = o.audio_track();
                     EXPECT_EQ(stream_of(audio, "a:0").value("channels", 0), 2);
                     EXPECT_GT(mean_volume_db(audio), -40.0) << "the centre channel is in the downmix";
                     // And a 5.1 rendition in a group of its own, every rung offered with each group.
                     const auto media = o.media_tags();
                     ASSERT_EQ(media.size(), 2u);
                     EXPECT_EQ(attribute(media[1], "GROUP-ID"), "audio-aac-51");
                     EXPECT_EQ(attribute(media[1], "CHANNELS"), "6");
                     EXPECT_EQ(attribute(media[1], "DEFAULT"), "YES") << "the only track of its group";
                     const fs::path surround = o.audio_track("aac_51");
                     EXPECT_EQ(stream_of(surround, "a:0").value("channels", 0), 6);
                     EXPECT_GT(mean_volume_db(surround), -40.0);
                     EXPECT_EQ(o.variants_with_audio_group("audio-aac"), 1);
                     EXPECT_EQ(o.variants_with_audio_group("audio-aac-51"), 1);
                 }});
    return c;
}

class InputCorpus : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(InputCorpus, MeetsItsWrittenExpectation) {
    const CorpusEntry& e = GetParam();
    const fs::path dir = fresh_dir("corpus-" + e.name);
    Outcome o;
    o.source = dir / e.file_name;
    o.out = dir / "out";
    o.scratch = dir / "scratch";
    fs::create_directories(o.scratch);
    ASSERT_NO_THROW(e.make(o.source)) << "generating the corpus input";
    std::vector<std::string> args{"encode", o.source.string(), "-o", o.out.string()};
    args.insert(args.end(), e.options.begin(), e.options.end());
    const auto started = std::chrono::steady_clock::now();
    o.run = run_ladder(args, {}, kWatchdogSeconds);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("[ metric   ] %s: ladder exit %d in %.1f s\n", e.name.c_str(), o.run.exit_code, o.seconds);
    ASSERT_FALSE(o.run.timed_out) << "ladder hung on " << e.name;
    ASSERT_LT(o.run.exit_code, 128) << "ladder crashed: " << o.run.err;
    e.expect(o);
}

INSTANTIATE_TEST_SUITE_P(Corpus, InputCorpus, ::testing::ValuesIn(corpus()),
                         [](const ::testing::TestParamInfo<CorpusEntry>& info) { return info.param.name; });

}  // namespace
}  // namespace ladder::test
