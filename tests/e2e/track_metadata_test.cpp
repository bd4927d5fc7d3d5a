// Text from the source's metadata (track titles, language tags) reaches the
// HLS master playlist, the DASH manifest and the MP4 tracks whatever it
// holds: quotes, line breaks, control bytes, bytes that are not UTF-8, a
// very long title, ISO 639-2 bibliographic codes. The run never fails on it,
// names stay apart, HLS and DASH get the shortest RFC 5646 language tag and
// the MP4 tracks (CMAF init segments and MP4 files) the ISO 639-2/T code in
// mdhd. Every variant says CLOSED-CAPTIONS=NONE. Read back with plain text
// parsing, xmllint, ffprobe, `ladder validate`, hls.js and Shaka Player.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "corpus_media.hpp"
#include "hls_tools.hpp"
#include "media_tools.hpp"

extern "C" {
#include <libavutil/avstring.h>
}

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSrt = "1\n00:00:00,500 --> 00:00:01,500\nHello\n";
const std::string kQuoted = "Director's \"Cut\" commentary";
const std::string kLongTitle = "Ondertitels \xff " + [] {
    std::string s;
    for (int i = 0; i < 150; ++i) s += "\xC3\xA9";  // é
    return s;
}();

// Three audio tracks whose titles need cleaning (two of them the same once
// cleaned) and two subtitle tracks, tagged with ISO 639-2/B codes.
fs::path metadata_source() {
    const fs::path dir = fresh_dir("metadata-src");
    std::ofstream(dir / "s.srt") << kSrt;
    const fs::path file = dir / "metadata.mkv";
    ffmpeg(join({{"-f", "lavfi", "-i", testsrc("160x90", "25", 4.0), "-f", "lavfi", "-i", sine(4.0, 440), "-f",
                  "lavfi", "-i", sine(4.0, 660), "-f", "lavfi", "-i", sine(4.0, 880), "-i", (dir / "s.srt").string(),
                  "-i", (dir / "s.srt").string(), "-map", "0:v", "-map", "1:a", "-map", "2:a", "-map", "3:a", "-map",
                  "4", "-map", "5"},
                 kH264,
                 {"-pix_fmt", "yuv420p", "-c:a", "aac", "-c:s", "copy",
                  "-metadata:s:a:0", "language=ger", "-metadata:s:a:0", "title=" + kQuoted,
                  "-metadata:s:a:1", "language=fre", "-metadata:s:a:1", "title=Director's \"Cut\"\x01 commentary",
                  "-metadata:s:a:2", "language=fil", "-metadata:s:a:2", "title=Line one\r\nline two\t(tab)",
                  "-metadata:s:s:0", "language=dut", "-metadata:s:s:0", "title=" + kLongTitle,
                  "-metadata:s:s:1", "language=chi", "-metadata:s:s:1", "title=Tom & Jerry <b>",
                  "-disposition:a:0", "default", "-disposition:a:1", "0", "-disposition:a:2", "0", file.string()}}));
    return file;
}

const std::vector<std::string> kMetadataSettings{"--rung", "90p=160x90@150", "--segment-seconds", "2", "--preset", "12"};

std::vector<std::string> metadata_args(std::vector<std::string> args) {
    args.insert(args.end(), kMetadataSettings.begin(), kMetadataSettings.end());
    return args;
}

std::vector<std::string> lines_starting(const fs::path& playlist, const std::string& prefix) {
    std::vector<std::string> out;
    for (const auto& t : read_playlist(playlist).tags)
        if (t.rfind(prefix, 0) == 0) out.push_back(t.substr(prefix.size()));
    return out;
}

// UTF-8 with no control character but LF (RFC 8216 §4.1).
bool playlist_text(const std::string& s) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        std::int32_t code = 0;
        if (av_utf8_decode(&code, &p, end, 0) < 0) return false;
        if ((code < 0x20 && code != '\n') || (code >= 0x7f && code <= 0x9f)) return false;
    }
    return true;
}

// Every stream's language tag (mdhd in MP4), as ffprobe reads it.
std::vector<std::string> languages(const fs::path& file, const std::string& selector) {
    std::vector<std::string> out;
    const nlohmann::json j = ffprobe_json({"-show_streams", "-select_streams", selector}, file);
    for (const auto& s : j["streams"]) out.push_back(s["tags"].value("language", "und"));
    return out;
}

TEST(TrackMetadata, TitlesAndLanguageTagsReachHlsDashAndMp4WhateverTheyHold) {
    const fs::path src = metadata_source();
    const fs::path out = fresh_dir("metadata") / "out";
    ProcessResult r = run_ladder(metadata_args({"encode", src.string(), "-o", out.string(), "--format", "hls,dash,mp4"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;

    // HLS: names cleaned and still apart, the shortest language tags.
    const std::string master = read_text(out / "master.m3u8");
    EXPECT_TRUE(playlist_text(master)) << master;
    const auto media = lines_starting(out / "master.m3u8", "#EXT-X-MEDIA:");
    ASSERT_EQ(media.size(), 5u);
    const std::vector<std::pair<std::string, std::string>> want{
        {"de", "Director's 'Cut' commentary (track 1)"},
        {"fr", "Director's 'Cut' commentary (track 2)"},
        {"fil", "Line one line two (tab)"},
        {"nl", ""},  // the long title: checked below
        {"zh", "Tom & Jerry <b>"}};
    for (std::size_t i = 0; i < want.size(); ++i) {
        SCOPED_TRACE(media[i]);
        EXPECT_EQ(attribute(media[i], "LANGUAGE"), want[i].first);
        if (!want[i].second.empty()) {
            EXPECT_EQ(attribute(media[i], "NAME"), want[i].second);
        }
    }
    const std::string cut = attribute(media[3], "NAME");
    EXPECT_EQ(cut.rfind("Ondertitels \xEF\xBF\xBD \xC3\xA9\xC3\xA9", 0), 0u) << "U+FFFD for the byte that is not UTF-8";
    EXPECT_LE(cut.size(), 128u);
    EXPECT_EQ(cut.substr(cut.size() - 3), "\xE2\x80\xA6") << "a long title is cut, with an ellipsis";
    for (const auto& v : lines_starting(out / "master.m3u8", "#EXT-X-STREAM-INF:"))
        EXPECT_EQ(attribute(v, "CLOSED-CAPTIONS"), "NONE") << v;
    ProcessResult v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;

    // DASH: well-formed XML (xmllint), the same names escaped, the same tags.
    ProcessResult xml = run_process({"xmllint", "--noout", (out / "manifest.mpd").string()});
    EXPECT_EQ(xml.exit_code, 0) << xml.err;
    const std::string mpd = read_text(out / "manifest.mpd");
    for (const char* lang : {"de", "fr", "fil", "nl", "zh"})
        EXPECT_NE(mpd.find(std::string("lang=\"") + lang + "\""), std::string::npos) << lang << "\n" << mpd;
    EXPECT_NE(mpd.find("<Label>Director's 'Cut' commentary (track 2)</Label>"), std::string::npos) << mpd;
    EXPECT_NE(mpd.find("<Label>Tom &amp; Jerry &lt;b&gt;</Label>"), std::string::npos) << mpd;

    // mdhd: the ISO 639-2/T code in each audio init segment and MP4 track.
    const std::map<std::string, std::string> init_language{{"aac", "deu"}, {"aac_fre", "fra"}, {"aac_fil", "fil"}};
    for (const auto& [id, language] : init_language)
        EXPECT_EQ(languages(out / "audio" / id / "init.mp4", "a"), std::vector<std::string>{language}) << id;
    EXPECT_EQ(languages(out / "90p.mp4", "a"), (std::vector<std::string>{"deu", "fra", "fil"}));
    EXPECT_EQ(languages(out / "90p.mp4", "s"), (std::vector<std::string>{"nld", "zho"}));

    // hls.js reads every name and language as written.
    const ProcessResult p = run_player("play.mjs", out, {"--rate", "4"});
    ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
    const nlohmann::json played = player_result(p.out);
    ASSERT_TRUE(played.is_object()) << p.out;
    std::set<std::pair<std::string, std::string>> tracks;
    for (const auto& a : played["audioTracks"]) tracks.insert({a.value("lang", ""), a.value("name", "")});
    EXPECT_EQ(tracks, (std::set<std::pair<std::string, std::string>>{
                          {"de", "Director's 'Cut' commentary (track 1)"},
                          {"fr", "Director's 'Cut' commentary (track 2)"},
                          {"fil", "Line one line two (tab)"}}))
        << played["audioTracks"].dump();
}

// A 5.1 track and a stereo track titled as the first one's 5.1 rendition is
// named: the 5.1 group holds both, under different names.
TEST(TrackMetadata, NamesStayApartInEveryGroup) {
    const fs::path file = fresh_dir("metadata-groups-src") / "groups.mkv";
    ffmpeg(join({{"-f", "lavfi", "-i", testsrc("160x90", "25", 2.0), "-f", "lavfi", "-i", sine(2.0), "-f", "lavfi",
                  "-i", sine(2.0, 660), "-filter_complex", "[1:a]pan=5.1|FL=c0|FR=c0|FC=c0|LFE=c0|BL=c0|BR=c0[six]",
                  "-map", "0:v", "-map", "[six]", "-map", "2:a"},
                 kH264,
                 {"-pix_fmt", "yuv420p", "-c:a", "aac", "-metadata:s:a:0", "title=Main", "-metadata:s:a:1",
                  "title=Main 5.1", "-disposition:a:0", "default", "-disposition:a:1", "0", file.string()}}));
    const fs::path out = fresh_dir("metadata-groups") / "out";
    ProcessResult r = run_ladder(metadata_args({"encode", file.string(), "-o", out.string()}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, std::set<std::string>> names;
    int media = 0;
    for (const auto& m : lines_starting(out / "master.m3u8", "#EXT-X-MEDIA:")) {
        ++media;
        EXPECT_TRUE(names[attribute(m, "GROUP-ID")].insert(attribute(m, "NAME")).second) << m;
    }
    EXPECT_EQ(media, 4) << "two tracks in each of two groups";
    ProcessResult v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

// RFC 8216 §4.3.4.2: CLOSED-CAPTIONS=NONE on one variant means on all. With
// it, Shaka Player does not parse the AV1 for CEA-608 captions (without it
// it warns, per load, that it cannot), and hls.js plays as before.
TEST(TrackMetadata, EveryVariantSaysNoClosedCaptions) {
    const fs::path src = make_clip("captions-src", {320, 180, "25", 4.0, true, ""});
    const fs::path out = fresh_dir("captions") / "out";
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--rung", "180p=320x180@300", "--rung",
                                  "90p=160x90@150", "--segment-seconds", "2", "--preset", "12"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto variants = lines_starting(out / "master.m3u8", "#EXT-X-STREAM-INF:");
    ASSERT_EQ(variants.size(), 2u);
    for (const auto& v : variants) EXPECT_EQ(attribute(v, "CLOSED-CAPTIONS"), "NONE") << v;

    const ProcessResult shaka = run_player("play-shaka.mjs", out, {"--manifest", "master.m3u8", "--rate", "4"});
    ASSERT_EQ(shaka.exit_code, 0) << shaka.out << shaka.err;
    const nlohmann::json played = player_result(shaka.out);
    ASSERT_TRUE(played.is_object()) << shaka.out;
    for (const auto& w : played["consoleWarnings"])
        EXPECT_EQ(w.get<std::string>().find("CEA"), std::string::npos) << w;
    const ProcessResult hlsjs = run_player("play.mjs", out, {"--rate", "4"});
    EXPECT_EQ(hlsjs.exit_code, 0) << hlsjs.out << hlsjs.err;
}

}  // namespace
}  // namespace ladder::test
