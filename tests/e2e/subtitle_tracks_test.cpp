// Text subtitle tracks become segmented WebVTT renditions (HLS), a text
// AdaptationSet each (DASH) and mov_text tracks (MP4); a picture-based track
// is skipped with one warning naming it. The source is a Matroska file with
// SubRip (English, default), ASS (French, forced, titled), WebVTT (Spanish)
// and PGS (German) tracks, and an MP4 with a mov_text track. Checked with
// ffprobe's packet times, the files themselves, `ladder validate` and
// hls.js in Chromium (its text track's cues).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <tuple>
#include <nlohmann/json.hpp>

#include "corpus_media.hpp"
#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& file, const std::string& text) {
    std::ofstream(file, std::ios::binary) << text;
}

constexpr const char* kEnglishSrt =
    "1\n00:00:00,500 --> 00:00:01,500\nHello <i>world</i>\n\n"
    "2\n00:00:02,500 --> 00:00:04,200\nAcross a boundary\n\n"
    "3\n00:00:06,000 --> 00:00:07,000\nThe end\n";

constexpr const char* kFrenchAss =
    "[Script Info]\nScriptType: v4.00+\nPlayResX: 384\nPlayResY: 288\n\n[V4+ Styles]\n"
    "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, "
    "Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, "
    "MarginV, Encoding\n"
    "Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0\n\n[Events]\n"
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
    "Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,Bonjour {\\b1}le monde{\\b0}\n"
    "Dialogue: 0,0:00:05.00,0:00:05.80,Default,,0,0,0,,Fin\\Nligne deux\n";

constexpr const char* kSpanishVtt = "WEBVTT\n\n00:00:03.000 --> 00:00:03.500\nHola\n";

// A PGS stream of three END segments: a valid .sup file ladder must skip,
// never decode.
void write_pgs(const fs::path& file) {
    std::string bytes;
    for (std::uint32_t pts : {0u, 90000u, 180000u}) {
        bytes += "PG";
        for (int shift : {24, 16, 8, 0}) bytes += static_cast<char>((pts >> shift) & 0xff);
        bytes += std::string(4, '\0');  // dts
        bytes += static_cast<char>(0x80);  // END segment
        bytes += std::string(2, '\0');     // size 0
    }
    write_text(file, bytes);
}

fs::path subtitled_source() {
    const fs::path dir = fresh_dir("subtitles-src");
    write_text(dir / "en.srt", kEnglishSrt);
    write_text(dir / "fr.ass", kFrenchAss);
    write_text(dir / "es.vtt", kSpanishVtt);
    write_pgs(dir / "de.sup");
    const fs::path file = dir / "subtitled.mkv";
    ffmpeg(join({{"-f", "lavfi", "-i", testsrc("160x90", "25", 8.0), "-f", "lavfi", "-i", sine(8.0), "-i",
                  (dir / "en.srt").string(), "-i", (dir / "fr.ass").string(), "-i", (dir / "es.vtt").string(), "-i",
                  (dir / "de.sup").string(), "-map", "0:v", "-map", "1:a", "-map", "2", "-map", "3", "-map", "4", "-map",
                  "5"},
                 kH264,
                 {"-pix_fmt", "yuv420p", "-c:a", "aac", "-c:s", "copy", "-metadata:s:s:0", "language=eng",
                  "-metadata:s:s:1", "language=fra", "-metadata:s:s:1", "title=Français (forcé)", "-metadata:s:s:2",
                  "language=spa", "-metadata:s:s:3", "language=deu", "-disposition:s:0", "default", "-disposition:s:1",
                  "forced", "-disposition:s:2", "0", "-disposition:s:3", "0", file.string()}}));
    return file;
}

const std::vector<std::string> kSettings{"--rung", "90p=160x90@150", "--segment-seconds", "2", "--preset", "12"};

std::vector<std::string> with_settings(std::vector<std::string> args) {
    args.insert(args.end(), kSettings.begin(), kSettings.end());
    return args;
}

std::vector<std::string> media_tags(const fs::path& master, const std::string& type) {
    std::vector<std::string> out;
    for (const auto& t : read_playlist(master).tags)
        if (t.rfind("#EXT-X-MEDIA:", 0) == 0 && attribute(t.substr(13), "TYPE") == type) out.push_back(t.substr(13));
    return out;
}

struct Cue {
    double start = 0, duration = 0;
};

// The cue times an independent reader (ffprobe) finds in a subtitle stream.
std::vector<Cue> cue_times(const fs::path& file, const std::string& selector) {
    std::vector<Cue> out;
    const nlohmann::json j = ffprobe_json({"-show_packets", "-select_streams", selector}, file);  // named: a range-for over a temporary's member dangles
    for (const auto& p : j["packets"])
        out.push_back({number(p, "pts_time"), number(p, "duration_time")});
    return out;
}

void expect_cues(const std::vector<Cue>& got, const std::vector<Cue>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_NEAR(got[i].start, want[i].start, 0.001) << what << " cue " << i;
        EXPECT_NEAR(got[i].duration, want[i].duration, 0.001) << what << " cue " << i;
    }
}

int occurrences(const std::string& text, const std::string& what) {
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// The three English cues of the subtitled source at their times, in a
// player's text track (as play-shaka.mjs / play-dashjs.mjs report it).
void expect_english_cues_at_their_times(const nlohmann::json& track) {
    const auto& cues = track["cues"];
    ASSERT_EQ(cues.size(), 3u) << cues.dump();
    const std::vector<std::pair<double, double>> when{{0.5, 1.5}, {2.5, 4.2}, {6.0, 7.0}};
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_NEAR(cues[i]["start"].get<double>(), when[i].first, 0.01) << cues[i].dump();
        EXPECT_NEAR(cues[i]["end"].get<double>(), when[i].second, 0.01) << cues[i].dump();
    }
}

TEST(SubtitleTracks, TextTracksBecomeWebVttRenditionsDashSetsAndMovText) {
    const fs::path src = subtitled_source();
    const fs::path out = fresh_dir("subtitles") / "out";
    ProcessResult r = run_ladder(with_settings({"encode", src.string(), "-o", out.string(), "--format", "hls,dash,mp4"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(occurrences(r.err, "warning: input " + src.string() +
                                     ": subtitle track 4 (stream #5, deu, hdmv_pgs_subtitle) is a picture-based "
                                     "subtitle: skipped"),
              1)
        << r.err;

    const auto subs = media_tags(out / "master.m3u8", "SUBTITLES");
    ASSERT_EQ(subs.size(), 3u);
    struct Want {
        std::string lang, name, is_default, forced, uri;
    };
    const std::vector<Want> want{{"en", "eng", "YES", "NO", "subtitles/eng/index.m3u8"},
                                 {"fr", "Français (forcé)", "NO", "YES", "subtitles/fra/index.m3u8"},
                                 {"es", "spa", "NO", "NO", "subtitles/spa/index.m3u8"}};
    for (std::size_t i = 0; i < want.size(); ++i) {
        SCOPED_TRACE(subs[i]);
        EXPECT_EQ(attribute(subs[i], "GROUP-ID"), "subs");
        EXPECT_EQ(attribute(subs[i], "LANGUAGE"), want[i].lang);
        EXPECT_EQ(attribute(subs[i], "NAME"), want[i].name);
        EXPECT_EQ(attribute(subs[i], "DEFAULT"), want[i].is_default);
        EXPECT_EQ(attribute(subs[i], "FORCED"), want[i].forced);
        EXPECT_EQ(attribute(subs[i], "AUTOSELECT"), "YES");
        EXPECT_EQ(attribute(subs[i], "URI"), want[i].uri);
    }
    for (const auto& t : read_playlist(out / "master.m3u8").tags) {
        if (t.rfind("#EXT-X-STREAM-INF:", 0) == 0) {
            EXPECT_EQ(attribute(t.substr(18), "SUBTITLES"), "subs") << t;
        }
    }

    // Segmented WebVTT: one segment per video segment, each with the
    // timestamp map; a cue spanning a boundary is in both segments.
    const PlaylistLines video = read_playlist(out / "90p" / "index.m3u8");
    const PlaylistLines eng = read_playlist(out / "subtitles" / "eng" / "index.m3u8");
    ASSERT_EQ(eng.uris.size(), video.uris.size());
    for (std::size_t i = 0; i < eng.extinf.size(); ++i) EXPECT_NEAR(eng.extinf[i], video.extinf[i], 1e-6);
    std::vector<std::string> segs;
    for (const auto& u : eng.uris) segs.push_back(read_text(out / "subtitles" / "eng" / u));
    for (const auto& s : segs) EXPECT_EQ(s.rfind("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n", 0), 0u) << s;
    EXPECT_NE(segs[0].find("Hello <i>world</i>"), std::string::npos) << segs[0];
    EXPECT_NE(segs[1].find("Across a boundary"), std::string::npos) << segs[1];
    EXPECT_NE(segs[2].find("Across a boundary"), std::string::npos) << segs[2];
    EXPECT_EQ(occurrences(segs[2], "-->"), 1) << "only the cue reaching into [4, 6): " << segs[2];
    EXPECT_NE(segs[3].find("The end"), std::string::npos) << segs[3];

    // The whole tracks, read back by ffprobe: the cues where the source had them.
    expect_cues(cue_times(out / "subtitles" / "eng" / "subtitles.vtt", "s:0"), {{0.5, 1.0}, {2.5, 1.7}, {6.0, 1.0}},
                "eng WebVTT");
    expect_cues(cue_times(out / "subtitles" / "fra" / "subtitles.vtt", "s:0"), {{1.0, 1.0}, {5.0, 0.8}}, "fra WebVTT");
    expect_cues(cue_times(out / "subtitles" / "spa" / "subtitles.vtt", "s:0"), {{3.0, 0.5}}, "spa WebVTT");
    EXPECT_NE(read_text(out / "subtitles" / "fra" / "subtitles.vtt").find("Bonjour <b>le monde</b>"), std::string::npos)
        << "ASS styling carried as WebVTT markup";

    // MP4: a mov_text track per text track, with the same cues and dispositions.
    const auto streams = ffprobe_json({"-show_streams", "-select_streams", "s"}, out / "90p.mp4")["streams"];
    ASSERT_EQ(streams.size(), 3u);
    const std::vector<std::tuple<std::string, int, int>> mp4_want{{"eng", 1, 0}, {"fra", 0, 1}, {"spa", 0, 0}};
    for (std::size_t i = 0; i < streams.size(); ++i) {
        SCOPED_TRACE(streams[i].dump());
        EXPECT_EQ(streams[i].value("codec_name", ""), "mov_text");
        EXPECT_EQ(streams[i]["tags"].value("language", ""), std::get<0>(mp4_want[i]));
        EXPECT_EQ(streams[i]["disposition"].value("default", -1), std::get<1>(mp4_want[i]));
        EXPECT_EQ(streams[i]["disposition"].value("forced", -1), std::get<2>(mp4_want[i]));
    }
    std::vector<Cue> mp4_eng;
    for (const auto& c : cue_times(out / "90p.mp4", "s:0"))
        if (c.duration > 0 && c.start < 8.0) mp4_eng.push_back(c);  // the muxer's empty gap samples have no text
    // mov_text fills the gaps between cues with empty samples; the cues are
    // the samples that start where the source's cues start.
    int found = 0;
    for (const auto& want_cue : std::vector<Cue>{{0.5, 1.0}, {2.5, 1.7}, {6.0, 1.0}})
        for (const auto& c : mp4_eng)
            found += std::abs(c.start - want_cue.start) < 0.001 && std::abs(c.duration - want_cue.duration) < 0.001;
    EXPECT_EQ(found, 3);

    // DASH: a text AdaptationSet per track over its whole WebVTT file.
    const std::string mpd = read_text(out / "manifest.mpd");
    EXPECT_EQ(occurrences(mpd, "contentType=\"text\" mimeType=\"text/vtt\""), 3) << mpd;
    EXPECT_NE(mpd.find("<BaseURL>subtitles/fra/subtitles.vtt</BaseURL>"), std::string::npos) << mpd;
    EXPECT_NE(mpd.find("value=\"forced-subtitle\""), std::string::npos) << mpd;

    ProcessResult v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;

    // Shaka Player reads the text AdaptationSets and shows the first one's
    // cues at their times.
    const ProcessResult shaka = run_player("play-shaka.mjs", out, {"--subtitles", "--rate", "2"});
    ASSERT_EQ(shaka.exit_code, 0) << shaka.out << shaka.err;
    const nlohmann::json played = player_result(shaka.out);
    ASSERT_TRUE(played.is_object()) << shaka.out;
    EXPECT_EQ(played["shakaTextTracks"].size(), 3u) << played.dump();
    const nlohmann::json* shown = nullptr;
    for (const auto& t : played["textTracks"])
        if (t.value("mode", "") == "showing") shown = &t;
    ASSERT_NE(shown, nullptr) << played["textTracks"].dump();
    expect_english_cues_at_their_times(*shown);

    // dash.js too, with the MPD's first text track (English) chosen.
    const ProcessResult dashjs = run_player("play-dashjs.mjs", out, {"--subtitles", "--rate", "2"});
    ASSERT_EQ(dashjs.exit_code, 0) << dashjs.out << dashjs.err;
    const nlohmann::json by_dashjs = player_result(dashjs.out);
    ASSERT_TRUE(by_dashjs.is_object()) << dashjs.out;
    EXPECT_EQ(by_dashjs["dashjsTextTracks"].size(), 3u) << by_dashjs.dump();
    const nlohmann::json* dashjs_shown = nullptr;
    for (const auto& t : by_dashjs["textTracks"])
        if (t.value("mode", "") == "showing") dashjs_shown = &t;
    ASSERT_NE(dashjs_shown, nullptr) << by_dashjs["textTracks"].dump();
    EXPECT_EQ(dashjs_shown->value("language", ""), "en") << dashjs_shown->dump();
    expect_english_cues_at_their_times(*dashjs_shown);
}

TEST(SubtitleTracks, MovTextSourceAndLanguageChoice) {
    const fs::path dir = fresh_dir("subtitles-movtext");
    write_text(dir / "en.srt", kEnglishSrt);
    const fs::path src = dir / "movtext.mp4";
    ffmpeg(join({{"-f", "lavfi", "-i", testsrc("160x90", "25", 8.0), "-i", (dir / "en.srt").string(), "-map", "0:v",
                  "-map", "1"},
                 kH264, {"-pix_fmt", "yuv420p", "-c:s", "mov_text", "-metadata:s:s:0", "language=eng", src.string()}}));
    ASSERT_EQ(stream_of(src, "s:0").value("codec_name", ""), "mov_text");
    ProcessResult r = run_ladder(with_settings({"encode", src.string(), "-o", (dir / "out").string()}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_cues(cue_times(dir / "out" / "subtitles" / "eng" / "subtitles.vtt", "s:0"),
                {{0.5, 1.0}, {2.5, 1.7}, {6.0, 1.0}}, "from mov_text");

    const fs::path mkv = subtitled_source();
    ProcessResult fr = run_ladder(with_settings({"encode", mkv.string(), "-o", (dir / "fra").string(), "--subtitles",
                                                 "fra", "--audio", "none"}));
    ASSERT_EQ(fr.exit_code, 0) << fr.err;
    const auto subs = media_tags(dir / "fra" / "master.m3u8", "SUBTITLES");
    ASSERT_EQ(subs.size(), 1u);
    EXPECT_EQ(attribute(subs[0], "LANGUAGE"), "fr");
    EXPECT_EQ(fr.err.find("picture-based"), std::string::npos) << "the German track was not asked for: " << fr.err;

    ProcessResult none = run_ladder(with_settings({"encode", mkv.string(), "-o", (dir / "none").string(),
                                                   "--subtitles", "none"}));
    ASSERT_EQ(none.exit_code, 0) << none.err;
    EXPECT_FALSE(fs::exists(dir / "none" / "subtitles"));
    EXPECT_TRUE(media_tags(dir / "none" / "master.m3u8", "SUBTITLES").empty());

    ProcessResult absent = run_ladder(with_settings({"encode", mkv.string(), "-o", (dir / "ita").string(),
                                                     "--subtitles", "ita"}));
    EXPECT_EQ(absent.exit_code, 2);
    EXPECT_NE(absent.err.find("has no subtitle track in ita (its subtitle tracks are tagged eng, fra, spa, deu)"),
              std::string::npos)
        << absent.err;
}

TEST(SubtitleTracks, PlanShardsAndStitchCarryTheChosenTracks) {
    const fs::path src = subtitled_source();
    const fs::path root = fresh_dir("subtitles-stitch");
    const fs::path work = root / "work";
    ProcessResult plan = run_ladder(with_settings({"plan", src.string(), "-o", work.string(), "--subtitles", "eng"}));
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    EXPECT_EQ(nlohmann::json::parse(read_text(work / "plan.json"))["subtitles"], "eng");
    ProcessResult shard = run_ladder({"encode", "--plan", (work / "plan.json").string(), "--shard", "0/1"});
    ASSERT_EQ(shard.exit_code, 0) << shard.err;
    ProcessResult stitch = run_ladder({"stitch", work.string(), "-o", (root / "out").string(), "--format", "both"});
    ASSERT_EQ(stitch.exit_code, 0) << stitch.err;
    const auto subs = media_tags(root / "out" / "master.m3u8", "SUBTITLES");
    ASSERT_EQ(subs.size(), 1u);
    EXPECT_EQ(attribute(subs[0], "LANGUAGE"), "en");
    expect_cues(cue_times(root / "out" / "subtitles" / "eng" / "subtitles.vtt", "s:0"),
                {{0.5, 1.0}, {2.5, 1.7}, {6.0, 1.0}}, "stitched");
    EXPECT_EQ(ffprobe_json({"-show_streams", "-select_streams", "s"}, root / "out" / "90p.mp4")["streams"].size(), 1u);
    ProcessResult v = run_ladder({"validate", (root / "out").string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

TEST(SubtitleTracks, HlsJsShowsTheCuesAtTheirTimes) {
    const fs::path src = subtitled_source();
    const fs::path out = fresh_dir("subtitles-player") / "out";
    ProcessResult r = run_ladder(with_settings({"encode", src.string(), "-o", out.string()}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const ProcessResult p = run_player("play.mjs", out, {"--subtitles", "--rate", "2"});
    ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
    const nlohmann::json result = player_result(p.out);
    ASSERT_TRUE(result.is_object()) << p.out;
    ASSERT_EQ(result["subtitleTracks"].size(), 3u);
    EXPECT_TRUE(result["subtitleTracks"][1]["forced"].get<bool>());
    const nlohmann::json* shown = nullptr;
    for (const auto& t : result["textTracks"])
        if (t.value("mode", "") == "showing") shown = &t;
    ASSERT_NE(shown, nullptr) << result["textTracks"].dump();
    EXPECT_EQ((*shown)["language"], "en");
    const auto& cues = (*shown)["cues"];
    ASSERT_EQ(cues.size(), 3u) << "each cue once, the one in two segments too: " << cues.dump();
    const std::vector<std::tuple<double, double, std::string>> want{
        {0.5, 1.5, "Hello <i>world</i>"}, {2.5, 4.2, "Across a boundary"}, {6.0, 7.0, "The end"}};
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_NEAR(cues[i]["start"].get<double>(), std::get<0>(want[i]), 0.01) << cues[i].dump();
        EXPECT_NEAR(cues[i]["end"].get<double>(), std::get<1>(want[i]), 0.01) << cues[i].dump();
        EXPECT_EQ(cues[i]["text"], std::get<2>(want[i]));
    }
}

// Cue text that WebVTT cannot hold as it is: "-->" (it starts a timing
// line), '&' and '<' that start no character reference or tag, and blank
// lines inside a cue (a blank line ends it) or at its ends. The ASS track
// comes first (hls.js shows the first track), the SubRip one second.
constexpr const char* kAwkwardAss =
    "[Script Info]\nScriptType: v4.00+\nPlayResX: 384\nPlayResY: 288\n\n[V4+ Styles]\n"
    "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, "
    "Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, "
    "MarginV, Encoding\n"
    "Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0\n\n[Events]\n"
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
    "Dialogue: 0,0:00:00.50,0:00:01.50,Default,,0,0,0,,Hello --> world\n"
    "Dialogue: 0,0:00:02.00,0:00:03.00,Default,,0,0,0,,Tom & Jerry: a<b, 3 > 2\n"
    "Dialogue: 0,0:00:03.50,0:00:04.50,Default,,0,0,0,,Line one\\N\\NLine three\n"
    "Dialogue: 0,0:00:05.00,0:00:06.00,Default,,0,0,0,,\\N{\\i1}a --> b{\\i0}\\N\n";

constexpr const char* kAwkwardSrt =
    "1\n00:00:00,500 --> 00:00:01,500\nHello --> world\n\n"
    "2\n00:00:02,000 --> 00:00:03,000\nTom & Jerry: a<b, 3 > 2\n\n"
    "3\n00:00:03,500 --> 00:00:04,500\n<notatag>stays & <3\n";

// The cues' text as FFmpeg's webvtt demuxer and decoder read it, written
// out by its SubRip encoder: one string per cue (its lines joined by LF).
std::vector<std::string> decoded_cue_text(const fs::path& vtt) {
    const ProcessResult r = run_process({"ffmpeg", "-v", "error", "-i", vtt.string(), "-f", "srt", "-"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> cues;
    std::istringstream in(r.out);
    std::string line, text;
    int in_cue = 0;  // lines read of the current cue: number, timing, text...
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();  // its line breaks inside a cue are CRLF
        if (line.empty()) {
            if (in_cue > 2) cues.push_back(text);
            in_cue = 0;
            text.clear();
            continue;
        }
        if (in_cue++ >= 2) text += (text.empty() ? "" : "\n") + line;
    }
    if (in_cue > 2) cues.push_back(text);
    return cues;
}

TEST(SubtitleTracks, CueTextIsValidWebVttWhateverTheSourceHolds) {
    const fs::path dir = fresh_dir("subtitles-awkward-src");
    write_text(dir / "awkward.ass", kAwkwardAss);
    write_text(dir / "awkward.srt", kAwkwardSrt);
    const fs::path src = dir / "awkward.mkv";
    ffmpeg(join({{"-f", "lavfi", "-i", testsrc("160x90", "25", 6.5), "-i", (dir / "awkward.ass").string(), "-i",
                  (dir / "awkward.srt").string(), "-map", "0:v", "-map", "1", "-map", "2"},
                 kH264,
                 {"-pix_fmt", "yuv420p", "-c:s", "copy", "-metadata:s:s:0", "language=eng", "-metadata:s:s:1",
                  "language=fra", "-disposition:s:0", "default", "-disposition:s:1", "0", src.string()}}));
    const fs::path out = fresh_dir("subtitles-awkward") / "out";
    ProcessResult r = run_ladder(with_settings({"encode", src.string(), "-o", out.string(), "--audio", "none"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;

    // No "-->" but in timing lines, in any file ladder wrote.
    static const std::regex timing(R"(^(\d{2}:)?\d{2}:\d{2}\.\d{3} --> (\d{2}:)?\d{2}:\d{2}\.\d{3}( .*)?$)");
    for (const auto& entry : fs::recursive_directory_iterator(out / "subtitles")) {
        if (entry.path().extension() != ".vtt") continue;
        std::istringstream in(read_text(entry.path()));
        for (std::string line; std::getline(in, line);) {
            if (line.find("-->") == std::string::npos) continue;
            EXPECT_TRUE(std::regex_match(line, timing)) << entry.path() << ": " << line;
        }
    }

    // FFmpeg's own webvtt demuxer and decoder read every cue back, at its
    // time and with its text.
    const fs::path eng = out / "subtitles" / "eng" / "subtitles.vtt";
    const fs::path fra = out / "subtitles" / "fra" / "subtitles.vtt";
    expect_cues(cue_times(eng, "s:0"), {{0.5, 1.0}, {2.0, 1.0}, {3.5, 1.0}, {5.0, 1.0}}, "ASS as WebVTT");
    expect_cues(cue_times(fra, "s:0"), {{0.5, 1.0}, {2.0, 1.0}, {3.5, 1.0}}, "SubRip as WebVTT");
    const auto ass_text = decoded_cue_text(eng);
    ASSERT_EQ(ass_text.size(), 4u);
    EXPECT_EQ(ass_text[0], "Hello --> world");
    EXPECT_EQ(ass_text[1], "Tom & Jerry: a<b, 3 > 2");
    EXPECT_EQ(ass_text[2].rfind("Line one\n", 0), 0u) << ass_text[2];
    EXPECT_EQ(ass_text[2].substr(ass_text[2].size() - 11), "\nLine three") << "one cue, its blank line kept";
    EXPECT_EQ(ass_text[3], "<i>a --> b</i>");
    EXPECT_EQ(decoded_cue_text(fra),
              (std::vector<std::string>{"Hello --> world", "Tom & Jerry: a<b, 3 > 2", "stays & <3"}));

    // hls.js (the browser's WebVTT parser) shows the same text.
    const ProcessResult p = run_player("play.mjs", out, {"--subtitles", "--rate", "2"});
    ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
    const nlohmann::json result = player_result(p.out);
    ASSERT_TRUE(result.is_object()) << p.out;
    const nlohmann::json* shown = nullptr;
    for (const auto& t : result["textTracks"])
        if (t.value("mode", "") == "showing") shown = &t;
    ASSERT_NE(shown, nullptr) << result["textTracks"].dump();
    const auto& cues = (*shown)["cues"];
    ASSERT_EQ(cues.size(), 4u) << cues.dump();
    EXPECT_EQ(cues[0]["shown"], "Hello --> world") << cues[0].dump();
    EXPECT_EQ(cues[1]["shown"], "Tom & Jerry: a<b, 3 > 2") << cues[1].dump();
    EXPECT_EQ(cues[2]["shown"], "Line one\n\u00a0\nLine three") << cues[2].dump();
    EXPECT_EQ(cues[3]["shown"], "a --> b") << cues[3].dump();
}

}  // namespace
}  // namespace ladder::test
