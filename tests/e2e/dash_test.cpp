// --format with dash: OUTDIR/manifest.mpd over the same CMAF segments as HLS
// (never a second copy), read back with independent readers: Python's XML
// parser for the MPD's attributes and timelines, FFmpeg's dash demuxer for
// every representation's frames, Shaka Player in headless Chromium. Also
// through plan, shards and stitch, broken manifests for ladder validate, and
// a --format that names no format.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The MPD as JSON: the root's attributes, and per AdaptationSet its
// attributes and per Representation its attributes, the channel
// configuration, the SegmentTemplate's attributes and the timeline expanded
// into [start, duration] pairs.
constexpr const char* kMpdToJson = R"(
import json, sys
import xml.etree.ElementTree as ET
ns = {"d": "urn:mpeg:dash:schema:mpd:2011"}
root = ET.parse(sys.argv[1]).getroot()
out = {"tag": root.tag, "attrs": root.attrib, "sets": []}
for p in root.findall("d:Period", ns):
    for s in p.findall("d:AdaptationSet", ns):
        reps = []
        for r in s.findall("d:Representation", ns):
            t = r.find("d:SegmentTemplate", ns)
            segs, now = [], 0
            for e in t.find("d:SegmentTimeline", ns).findall("d:S", ns):
                now = int(e.get("t", now))
                for _ in range(int(e.get("r", 0)) + 1):
                    segs.append([now, int(e.get("d"))])
                    now += int(e.get("d"))
            acc = r.find("d:AudioChannelConfiguration", ns)
            reps.append({"attrs": r.attrib, "template": t.attrib, "segments": segs,
                         "channels": acc.get("value") if acc is not None else None})
        out["sets"].append({"attrs": s.attrib, "reps": reps})
json.dump(out, sys.stdout)
)";

json read_mpd(const fs::path& mpd) {
    const ProcessResult r = run_process({"python3", "-c", kMpdToJson, mpd.string()}, {}, 60);
    if (r.exit_code != 0) throw std::runtime_error("python3 could not read " + mpd.string() + ": " + r.err);
    return json::parse(r.out);
}

std::string seg_name(int number) {
    char name[32];
    std::snprintf(name, sizeof name, "seg_%05d.m4s", number);
    return name;
}

// Every property of the MPD that can be checked against the files and the
// HLS master playlist next to it.
void expect_mpd_matches_the_segments(const fs::path& out, long frames, int fps) {
    const json mpd = read_mpd(out / "manifest.mpd");
    EXPECT_EQ(mpd["attrs"]["type"], "static");
    EXPECT_NE(mpd["attrs"]["profiles"].get<std::string>().find("urn:mpeg:dash:profile:cmaf:2019"), std::string::npos);
    EXPECT_NE(mpd["attrs"]["profiles"].get<std::string>().find("urn:mpeg:dash:profile:isoff-live:2011"),
              std::string::npos);
    ASSERT_EQ(mpd["sets"].size(), 2u) << mpd.dump();
    const json& video = mpd["sets"][0];
    EXPECT_EQ(video["attrs"]["contentType"], "video");
    EXPECT_EQ(video["attrs"]["segmentAlignment"], "true");
    const PlaylistLines master = read_playlist(out / "master.m3u8");
    int max_width = 0;
    std::vector<std::vector<std::int64_t>> starts;
    for (const json& rep : video["reps"]) {
        const std::string id = rep["attrs"]["id"];
        SCOPED_TRACE(id);
        const std::string folder = id;
        EXPECT_EQ(rep["template"]["initialization"], folder + "/init.mp4");
        EXPECT_EQ(rep["template"]["media"], folder + "/seg_$Number%05d$.m4s");
        EXPECT_EQ(rep["template"]["startNumber"], "1");
        EXPECT_TRUE(fs::exists(out / folder / "init.mp4"));
        // The same codecs string and size as the HLS variant of the rung.
        const std::string inf = master.stream_inf_by_uri.at(folder + "/index.m3u8");
        EXPECT_EQ(rep["attrs"]["codecs"], attribute(inf, "CODECS").substr(0, attribute(inf, "CODECS").find(',')));
        EXPECT_EQ(rep["attrs"]["width"].get<std::string>() + "x" + rep["attrs"]["height"].get<std::string>(),
                  attribute(inf, "RESOLUTION"));
        max_width = std::max(max_width, std::stoi(rep["attrs"]["width"].get<std::string>()));
        // One S per segment file, back to back from 0, adding up to every
        // frame of the source.
        const auto timescale = std::stoll(rep["template"]["timescale"].get<std::string>());
        const PlaylistLines media = read_playlist(out / folder / "index.m3u8");
        ASSERT_EQ(rep["segments"].size(), media.uris.size());
        std::int64_t next = 0, bytes = 0;
        std::vector<std::int64_t> these;
        for (std::size_t i = 0; i < rep["segments"].size(); ++i) {
            const auto start = rep["segments"][i][0].get<std::int64_t>();
            const auto duration = rep["segments"][i][1].get<std::int64_t>();
            EXPECT_EQ(start, next) << "segment " << i + 1;
            EXPECT_EQ(media.uris[i], seg_name(static_cast<int>(i) + 1));
            EXPECT_NEAR(static_cast<double>(duration) / static_cast<double>(timescale), media.extinf[i], 1e-6);
            bytes += static_cast<std::int64_t>(fs::file_size(out / folder / seg_name(static_cast<int>(i) + 1)));
            these.push_back(start);
            next = start + duration;
        }
        EXPECT_EQ(next * fps, frames * timescale) << "the timeline adds up to every frame";
        EXPECT_FALSE(fs::exists(out / folder / seg_name(static_cast<int>(rep["segments"].size()) + 1)));
        starts.push_back(these);
        // bandwidth: the peak, at least the rung's average and within 2x of it.
        const double average = static_cast<double>(bytes) * 8.0 * fps / static_cast<double>(frames);
        const double bandwidth = std::stod(rep["attrs"]["bandwidth"].get<std::string>());
        EXPECT_GE(bandwidth, average * 0.99);
        EXPECT_LE(bandwidth, average * 2.0);
    }
    EXPECT_EQ(video["attrs"]["maxWidth"], std::to_string(max_width));
    for (const auto& s : starts) EXPECT_EQ(s, starts.front()) << "segment boundaries differ between representations";

    const json& audio = mpd["sets"][1];
    EXPECT_EQ(audio["attrs"]["contentType"], "audio");
    EXPECT_EQ(audio["attrs"]["lang"], "und");
    ASSERT_EQ(audio["reps"].size(), 1u);
    const json& a = audio["reps"][0];
    EXPECT_EQ(a["attrs"]["codecs"], "mp4a.40.2");
    EXPECT_EQ(a["channels"], "2");
    EXPECT_EQ(a["template"]["initialization"], "audio/aac/init.mp4");
    const PlaylistLines audio_media = read_playlist(out / "audio/aac/index.m3u8");
    ASSERT_EQ(a["segments"].size(), audio_media.uris.size());
    EXPECT_EQ(a["segments"][0][0], 0) << "the first fragment's decode time";
}

TEST(Dash, AManifestOverTheHlsSegmentsThatFfmpegReadsWithEveryFrame) {
    const fs::path src = make_clip("dash-src", {320, 240, "25", 7.0, true, ""});
    const fs::path out = fresh_dir("dash") / "out";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "dash,mp4", "--rung",
                                        "240p=320x240@500", "--rung", "120p=160x120@150", "--preset", "12",
                                        "--progress", "plain"},
                                       {}, 180);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_mpd_matches_the_segments(out, 175, 25);
    EXPECT_TRUE(fs::exists(out / "240p.mp4")) << "mp4 named in the list too";
    const ProcessResult v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;

    // FFmpeg's dash demuxer: every representation, every frame (one AV1
    // packet is one temporal unit: one frame). Packets, not decoded frames,
    // so that the count is the demuxer's alone: on Debian 13 (SVT-AV1 2.3,
    // FFmpeg 7.1) the 320x240 rung of this clip at preset 12 has 175
    // packets that libdav1d decodes to 174 frames, in the rung's MP4 and
    // HLS playlist too, and so does FFmpeg's own one-process encode of the
    // clip with libsvtav1 at preset 12: the encoder's, not ladder's.
    const ProcessResult probed =
        run_process({"ffprobe", "-v", "error", "-count_packets", "-show_entries",
                     "stream=codec_type,width,height,nb_read_packets", "-of", "json", (out / "manifest.mpd").string()},
                    {}, 120);
    ASSERT_EQ(probed.exit_code, 0) << probed.err;
    std::multiset<std::string> streams;
    const json probe_json = json::parse(probed.out);
    for (const json& s : probe_json["streams"])
        streams.insert(s["codec_type"] == "video"
                           ? std::to_string(s["width"].get<int>()) + "x" + std::to_string(s["height"].get<int>()) + ":" +
                                 s["nb_read_packets"].get<std::string>()
                           : s["codec_type"].get<std::string>());
    EXPECT_EQ(streams, (std::multiset<std::string>{"320x240:175", "160x120:175", "audio"})) << probed.out;
}

TEST(Dash, PlanShardsAndStitchWriteItToo) {
    const fs::path src = make_clip("dash-shard-src", {160, 120, "25", 6.0, true, ""});
    const fs::path root = fresh_dir("dash-shards");
    const fs::path work = root / "work";
    const ProcessResult plan = run_ladder({"plan", src.string(), "-o", work.string(), "--rung", "120p=160x120@150",
                                           "--rung", "90p=128x96@80", "--preset", "12"},
                                          {}, 120);
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    for (const char* s : {"0/2", "1/2"}) {
        const ProcessResult shard = run_ladder({"encode", "--plan", (work / "plan.json").string(), "--shard", s}, {}, 120);
        ASSERT_EQ(shard.exit_code, 0) << shard.err;
    }
    const fs::path out = root / "out";
    const ProcessResult stitched =
        run_ladder({"stitch", work.string(), "-o", out.string(), "--format", "hls,dash"}, {}, 120);
    ASSERT_EQ(stitched.exit_code, 0) << stitched.err;
    expect_mpd_matches_the_segments(out, 150, 25);
}

// ladder validate reads the MPD too, and names what is wrong in it.
TEST(Dash, ValidateNamesWhatIsWrongInABrokenManifest) {
    const fs::path src = make_clip("dash-broken-src", {160, 120, "25", 6.0, true, ""});
    const fs::path root = fresh_dir("dash-broken");
    const fs::path good = root / "good";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", good.string(), "--format", "hls,dash", "--rung",
                                        "120p=160x120@150", "--rung", "96p=128x96@100", "--preset", "12"},
                                       {}, 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const ProcessResult ok = run_ladder({"validate", good.string()});
    ASSERT_EQ(ok.exit_code, 0) << ok.out << ok.err;
    const std::string mpd = read_text(good / "manifest.mpd");
    ASSERT_NE(mpd.find(R"(<S t="0" d="50" r="2" />)"), std::string::npos) << mpd;

    struct Tamper {
        std::string name, from, to, expected;
    };
    const std::vector<Tamper> tampers{
        {"cut", "</MPD>", "", "manifest.mpd: does not parse"},
        {"extra-segment", R"(<S t="0" d="50" r="2" />)", R"(<S t="0" d="50" r="3" />)",
         "segment \"120p/seg_00004.m4s\" is missing"},
        {"codecs", R"(codecs="av01.0.00M.08.0.110.06.06.06.0" width="160")",
         R"(codecs="av01.0.08M.08.0.110.06.06.06.0" width="160")",
         "manifest.mpd: representation 120p: codecs says av01.0.08M.08.0.110.06.06.06.0 but its init segment's "
         "av1C says av01.0.00M.08.0.110.06.06.06.0"},
        {"bandwidth", R"(id="120p" bandwidth=")", R"(id="120p" bandwidth="9)", "bandwidth=9"},
        {"duration", R"(<S t="0" d="50" r="2" />)", R"(<S t="0" d="45" r="2" />)", "segment 1 lasts 1.800000 s"},
        {"outside", R"(initialization="120p/init.mp4")", R"(initialization="../good/120p/init.mp4")",
         "representation 120p: initialization \"../good/120p/init.mp4\""},
    };
    for (const auto& t : tampers) {
        SCOPED_TRACE(t.name);
        const std::size_t at = mpd.find(t.from);
        ASSERT_NE(at, std::string::npos) << t.from << "\n" << mpd;
        const fs::path copy = root / t.name;
        fs::copy(good, copy, fs::copy_options::recursive);
        std::string broken = mpd;
        broken.replace(at, t.from.size(), t.to);
        std::ofstream(copy / "manifest.mpd", std::ios::trunc) << broken;
        const ProcessResult v = run_ladder({"validate", copy.string()});
        EXPECT_EQ(v.exit_code, 1) << v.out;
        EXPECT_NE((v.out + v.err).find(t.expected), std::string::npos) << v.out << v.err;
    }
}

// The audio's timeline against its segments and against the video (issue
// 41), at 8 kHz, where an AAC frame is 128 ms: an S that is not what its
// segment plays, and an audio init segment whose edit list no longer hides
// the encoder's priming (media_time 0: the priming plays first and the audio
// ends a frame after the video), are named for DASH and HLS alike.
TEST(Dash, ValidateNamesAudioOffItsSegmentsOrOffTheVideo) {
    const fs::path src = fresh_dir("dash-audio-8k-src") / "source.mkv";
    const ProcessResult made = run_process({"ffmpeg", "-hide_banner", "-v", "error", "-y", "-f", "lavfi", "-i",
                                            "testsrc2=size=160x120:rate=25:duration=4", "-f", "lavfi", "-i",
                                            "sine=frequency=440:sample_rate=8000:duration=4", "-c:v", "libx264",
                                            "-pix_fmt", "yuv420p", "-c:a", "pcm_s16le", src.string()});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    const fs::path root = fresh_dir("dash-audio-8k");
    const fs::path good = root / "good";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", good.string(), "--format", "hls,dash", "--rung",
                                        "120p=160x120@150", "--segment-seconds", "2", "--preset", "12"},
                                       {}, 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const ProcessResult ok = run_ladder({"validate", good.string()});
    ASSERT_EQ(ok.exit_code, 0) << ok.out << ok.err;
    const std::string mpd = read_text(good / "manifest.mpd");
    // 2 s of video is 16000 samples; the AAC frames start at -1024 (the
    // priming), 0, 1024, ...: the nearest boundary is 16384 (15360 is
    // farther), and the audio ends with the video at 32000.
    ASSERT_NE(mpd.find(R"(<S t="0" d="16384" />)"), std::string::npos) << mpd;
    ASSERT_NE(mpd.find(R"(<S d="15616" />)"), std::string::npos) << mpd;

    const fs::path timeline = root / "timeline";
    fs::copy(good, timeline, fs::copy_options::recursive);
    std::string broken = mpd;
    broken.replace(broken.find(R"(<S t="0" d="16384" />)"), 21, R"(<S t="0" d="15360" />)");
    std::ofstream(timeline / "manifest.mpd", std::ios::trunc) << broken;
    ProcessResult v = run_ladder({"validate", timeline.string()});
    EXPECT_EQ(v.exit_code, 1) << v.out;
    EXPECT_NE(v.out.find("manifest.mpd: representation audio-aac: segment 1 starts at 0.000000 s and lasts 1.920000 s "
                         "in the SegmentTimeline, but its samples play from 0.000000 s for 2.048000 s"),
              std::string::npos)
        << v.out;

    const fs::path priming = root / "priming";
    fs::copy(good, priming, fs::copy_options::recursive);
    std::string init = read_text(priming / "audio/aac/init.mp4");
    const auto elst = init.find("elst");
    ASSERT_NE(elst, std::string::npos) << "an edit list in the audio's init segment";
    init.replace(elst + 16, 4, std::string(4, '\0'));  // media_time (version 0: after flags, count, duration)
    std::ofstream(priming / "audio/aac/init.mp4", std::ios::binary | std::ios::trunc) << init;
    v = run_ladder({"validate", priming.string()});
    EXPECT_EQ(v.exit_code, 1) << v.out;
    for (const std::string expected :
         {"manifest.mpd: representation audio-aac starts at 0.128000 s (where its first AAC frame, the encoder's "
          "priming, ends), the video at 0.000000 s",
          "manifest.mpd: representation audio-aac ends at 4.128000 s, the video at 4.000000 s",
          "master.m3u8: audio audio/aac/index.m3u8 starts at 0.128000 s",
          "master.m3u8: audio audio/aac/index.m3u8 ends at 4.128000 s"})
        EXPECT_NE(v.out.find(expected), std::string::npos) << expected << "\n" << v.out;
}

// An 8 s ladder of three rungs in HLS and DASH for the player checks (one
// encode for the test processes that play it: run_ladder_shared).
fs::path three_rung_ladder(const std::string& name) {
    const fs::path src = make_clip("dash-player-src", {640, 360, "25", 8.0, true, ""});
    const fs::path out = fresh_dir(name) / "out";
    const ProcessResult r = run_ladder_shared({"encode", src.string(), "-o", out.string(), "--format", "hls,dash",
                                               "--rung", "360p=640x360@700", "--rung", "270p=480x270@400", "--rung",
                                               "180p=320x180@200", "--preset", "12"},
                                              out);
    if (r.exit_code != 0) throw std::runtime_error("ladder failed: " + r.err);
    return out;
}

// A player check's result on a ladder whose segments 2 are gone: exit 1, on
// the HTTP 404.
void expect_missing_segments_fail(const std::string& script, const fs::path& out) {
    for (const char* rung : {"180p", "270p", "360p"}) fs::remove(out / rung / "seg_00002.m4s");
    const ProcessResult broken = run_player(script, out, {"--manifest", "manifest.mpd"});
    EXPECT_EQ(broken.exit_code, 1) << broken.out << broken.err;
    EXPECT_NE(broken.out.find("HTTP 404"), std::string::npos) << broken.out;
}

// A second real client: Shaka Player in headless Chromium plays the DASH
// manifest and the HLS master to the end and switches representations when
// told to; a segment gone makes it fail (the check can fail).
TEST(Dash, ShakaPlayerPlaysTheManifestAndTheMasterPlaylistAndSwitches) {
    const fs::path out = three_rung_ladder("dash-shaka");
    const std::string shaka = std::string(LADDER_SOURCE_DIR) + "/tests/player/play-shaka.mjs";
    for (const char* manifest : {"manifest.mpd", "master.m3u8"}) {
        SCOPED_TRACE(manifest);
        const ProcessResult play =
            run_process({"node", shaka, out.string(), "--manifest", manifest, "--switch", "--timeout-ms", "90000"}, {}, 150);
        EXPECT_EQ(play.exit_code, 0) << play.out << play.err;
        EXPECT_NE(play.out.find("PLAYER-RESULT {\"ok\":true"), std::string::npos) << play.out;
        EXPECT_NE(play.out.find("loaded " + std::string(manifest) + ": 3 variant(s)"), std::string::npos) << play.out;
        EXPECT_NE(play.out.find("switch to 640x360 confirmed"), std::string::npos) << play.out;
    }
    expect_missing_segments_fail("play-shaka.mjs", out);
}

// The DASH Industry Forum's reference player, dash.js, reads the same MPD:
// plays it to the end, switches representations when told to, and fails
// when segments are gone.
TEST(Dash, DashJsPlaysTheManifestToTheEndAndSwitches) {
    const fs::path out = three_rung_ladder("dash-dashjs");
    const ProcessResult play = run_player("play-dashjs.mjs", out, {"--switch"});
    ASSERT_EQ(play.exit_code, 0) << play.out << play.err;
    const json played = player_result(play.out);
    ASSERT_TRUE(played.is_object()) << play.out;
    EXPECT_EQ(played["representations"].size(), 3u) << played.dump();
    ASSERT_EQ(played["switches"].size(), 2u) << played.dump();
    EXPECT_NE(played["switches"][0]["to"]["height"], played["switches"][1]["to"]["height"]) << played.dump();
    EXPECT_TRUE(played["ended"].get<bool>());
    expect_missing_segments_fail("play-dashjs.mjs", out);
}

TEST(Dash, AFormatListWithAnUnknownNameIsAUsageError) {
    const fs::path src = make_clip("dash-bad-src", {160, 120, "25", 1.0, false, ""});
    const fs::path out = fresh_dir("dash-bad") / "out";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "hls,smooth"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("'smooth' is not a format: use a comma list of hls, dash and mp4"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out / "manifest.mpd"));
}

}  // namespace
}  // namespace ladder::test
