// Every audio track of a source: an English stereo track (the default), a
// French 5.1 track and a Spanish mono commentary, each with its own tone at
// its own level so that a rendition can be traced to its track. Checked with
// ffprobe and ffmpeg's volumedetect (HLS renditions, MP4 tracks), the MPD's
// AdaptationSets, `ladder validate`, and hls.js in Chromium switching audio.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "corpus_media.hpp"
#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

// Mean volumes the three tracks are made with (sine at 1/8 full scale is
// about -21 dB; the others are 20 and 40 dB below it).
constexpr double kEnglishAbove = -30.0;
constexpr double kFrenchBelow = -32.0, kFrenchAbove = -50.0;
constexpr double kSpanishBelow = -52.0;

fs::path three_language_source() {
    const fs::path file = fresh_dir("audio-tracks-src") / "three-languages.mkv";
    ffmpeg(join({{"-f", "lavfi", "-i", testsrc("160x90", "25", 8.0), "-f", "lavfi", "-i", sine(8.0, 440), "-f",
                  "lavfi", "-i", sine(8.0, 660), "-f", "lavfi", "-i", sine(8.0, 880), "-filter_complex",
                  "[1:a]pan=stereo|FL=c0|FR=c0[en];[2:a]volume=0.1,pan=5.1|FL=c0|FR=c0|FC=c0|LFE=c0|BL=c0|BR=c0[fr];"
                  "[3:a]volume=0.01[es]",
                  "-map", "0:v", "-map", "[en]", "-map", "[fr]", "-map", "[es]"},
                 kH264,
                 {"-pix_fmt", "yuv420p", "-c:a", "aac", "-metadata:s:a:0", "language=eng", "-metadata:s:a:0",
                  "title=English", "-metadata:s:a:1", "language=fra", "-metadata:s:a:1", "title=Français",
                  "-metadata:s:a:2", "language=spa", "-metadata:s:a:2", "title=Commentary", "-disposition:a:0",
                  "default", "-disposition:a:1", "0", "-disposition:a:2", "0", file.string()}}));
    return file;
}

double volume_of(const fs::path& file, int audio_index) {
    ProcessResult r = run_process({"ffmpeg", "-hide_banner", "-nostats", "-i", file.string(), "-map",
                                   "0:a:" + std::to_string(audio_index), "-af", "volumedetect", "-f", "null", "-"});
    static const std::regex re(R"(mean_volume:\s*(-?[0-9.]+|-inf) dB)");
    std::smatch m;
    if (!std::regex_search(r.err, m, re)) throw std::runtime_error("volumedetect failed on " + file.string());
    return m[1] == "-inf" ? -200.0 : std::stod(m[1]);
}

// An HLS audio rendition's init and media segments as one file.
fs::path joined_rendition(const fs::path& out, const std::string& id) {
    const fs::path dir = out / "audio" / id;
    std::vector<fs::path> parts{dir / "init.mp4"};
    for (const auto& u : read_playlist(dir / "index.m3u8").uris) parts.push_back(dir / u);
    const fs::path whole = out.parent_path() / (out.filename().string() + "-" + id + ".mp4");
    concat_files(parts, whole);
    return whole;
}

std::vector<std::string> tags_starting(const fs::path& playlist, const std::string& prefix) {
    std::vector<std::string> out;
    for (const auto& t : read_playlist(playlist).tags)
        if (t.rfind(prefix, 0) == 0) out.push_back(t.substr(prefix.size()));
    return out;
}

const std::vector<std::string> kSettings{"--rung", "90p=160x90@150", "--segment-seconds", "1", "--preset", "12"};

std::vector<std::string> with_settings(std::vector<std::string> args) {
    args.insert(args.end(), kSettings.begin(), kSettings.end());
    return args;
}

TEST(AudioTracks, EveryTrackBecomesARenditionInHlsDashAndMp4) {
    const fs::path src = three_language_source();
    const fs::path out = fresh_dir("audio-tracks") / "out";
    ProcessResult r = run_ladder(with_settings({"encode", src.string(), "-o", out.string(), "--format", "hls,dash,mp4"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("4 audio renditions"), std::string::npos) << r.err;

    // HLS: the stereo group holds each track once; the 5.1 group the French
    // 5.1 rendition in place of its stereo one.
    const auto media = tags_starting(out / "master.m3u8", "#EXT-X-MEDIA:");
    ASSERT_EQ(media.size(), 6u);
    struct Want {
        std::string group, lang, name, channels, is_default, uri;
    };
    const std::vector<Want> want{
        {"audio-aac", "en", "English", "2", "YES", "audio/aac/index.m3u8"},
        {"audio-aac", "fr", "Français", "2", "NO", "audio/aac_fra/index.m3u8"},
        {"audio-aac", "es", "Commentary", "1", "NO", "audio/aac_spa/index.m3u8"},
        {"audio-aac-51", "en", "English", "2", "YES", "audio/aac/index.m3u8"},
        {"audio-aac-51", "fr", "Français 5.1", "6", "NO", "audio/aac_fra_51/index.m3u8"},
        {"audio-aac-51", "es", "Commentary", "1", "NO", "audio/aac_spa/index.m3u8"},
    };
    for (std::size_t i = 0; i < want.size(); ++i) {
        SCOPED_TRACE(media[i]);
        EXPECT_EQ(attribute(media[i], "TYPE"), "AUDIO");
        EXPECT_EQ(attribute(media[i], "GROUP-ID"), want[i].group);
        EXPECT_EQ(attribute(media[i], "LANGUAGE"), want[i].lang);
        EXPECT_EQ(attribute(media[i], "NAME"), want[i].name);
        EXPECT_EQ(attribute(media[i], "CHANNELS"), want[i].channels);
        EXPECT_EQ(attribute(media[i], "DEFAULT"), want[i].is_default);
        EXPECT_EQ(attribute(media[i], "AUTOSELECT"), "YES");
        EXPECT_EQ(attribute(media[i], "URI"), want[i].uri);
    }
    const auto variants = tags_starting(out / "master.m3u8", "#EXT-X-STREAM-INF:");
    ASSERT_EQ(variants.size(), 2u) << "the rung once per audio group";
    EXPECT_EQ(attribute(variants[0], "AUDIO"), "audio-aac");
    EXPECT_EQ(attribute(variants[1], "AUDIO"), "audio-aac-51");
    EXPECT_GT(std::stol(attribute(variants[1], "BANDWIDTH")), std::stol(attribute(variants[0], "BANDWIDTH")))
        << "the 5.1 group's largest rendition counts";

    // Each rendition is its own track: channels, length, and the tone's level.
    const fs::path en = joined_rendition(out, "aac"), fr = joined_rendition(out, "aac_fra"),
                   fr51 = joined_rendition(out, "aac_fra_51"), es = joined_rendition(out, "aac_spa");
    EXPECT_EQ(stream_of(en, "a:0").value("channels", 0), 2);
    EXPECT_EQ(stream_of(fr, "a:0").value("channels", 0), 2);
    EXPECT_EQ(stream_of(fr51, "a:0").value("channels", 0), 6);
    EXPECT_EQ(stream_of(es, "a:0").value("channels", 0), 1);
    EXPECT_GT(volume_of(en, 0), kEnglishAbove);
    for (const auto& f : {fr, fr51}) {
        EXPECT_LT(volume_of(f, 0), kFrenchBelow) << f;
        EXPECT_GT(volume_of(f, 0), kFrenchAbove) << f;
    }
    EXPECT_LT(volume_of(es, 0), kSpanishBelow);
    for (const auto& f : {en, fr, fr51, es}) EXPECT_NEAR(probe(f).audio.at(0).duration, 8.0, 0.05) << f;

    // MP4: every rendition, the default track first and the only one marked default.
    const fs::path mp4 = out / "90p.mp4";
    const auto streams = ffprobe_json({"-show_streams", "-select_streams", "a"}, mp4)["streams"];
    ASSERT_EQ(streams.size(), 4u);
    const std::vector<std::pair<std::string, int>> mp4_want{{"eng", 2}, {"fra", 2}, {"fra", 6}, {"spa", 1}};
    for (std::size_t i = 0; i < streams.size(); ++i) {
        SCOPED_TRACE(streams[i].dump());
        EXPECT_EQ(streams[i]["tags"].value("language", ""), mp4_want[i].first);
        EXPECT_EQ(streams[i].value("channels", 0), mp4_want[i].second);
        EXPECT_EQ(streams[i]["disposition"].value("default", -1), i == 0 ? 1 : 0);
        EXPECT_NEAR(number(streams[i], "duration"), 8.0, 0.05);
    }
    EXPECT_GT(volume_of(mp4, 0), kEnglishAbove);
    EXPECT_LT(volume_of(mp4, 2), kFrenchBelow);
    EXPECT_LT(volume_of(mp4, 3), kSpanishBelow);

    // DASH: an AdaptationSet per language and channel layout, Role main on the default.
    const std::string mpd = read_text(out / "manifest.mpd");
    static const std::regex set_re(
        R"re(<AdaptationSet[^>]*contentType="audio"[^>]*lang="([a-z]+)"[^>]*>\s*<Label>([^<]*)</Label>\s*<Role[^>]*value="(\w+)"[^>]*/>[\s\S]*?AudioChannelConfiguration[^>]*value="(\d)")re");
    std::vector<std::string> sets;
    for (auto it = std::sregex_iterator(mpd.begin(), mpd.end(), set_re); it != std::sregex_iterator(); ++it)
        sets.push_back((*it)[1].str() + "|" + (*it)[2].str() + "|" + (*it)[3].str() + "|" + (*it)[4].str());
    EXPECT_EQ(sets, (std::vector<std::string>{"en|English|main|2", "fr|Français|alternate|2",
                                              "fr|Français 5.1|alternate|6", "es|Commentary|alternate|1"}))
        << mpd;

    ProcessResult v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;

    // A second real player reads the MPD: Shaka makes a variant of the rung
    // with each audio AdaptationSet and plays to the end.
    const ProcessResult shaka = run_player("play-shaka.mjs", out, {"--rate", "4"});
    ASSERT_EQ(shaka.exit_code, 0) << shaka.out << shaka.err;
    const nlohmann::json played = player_result(shaka.out);
    ASSERT_TRUE(played.is_object()) << shaka.out;
    std::set<std::pair<std::string, int>> audio_sets;
    for (const auto& t : played["tracks"]) audio_sets.insert({t.value("language", ""), t.value("channels", 0)});
    EXPECT_EQ(audio_sets, (std::set<std::pair<std::string, int>>{{"en", 2}, {"fr", 2}, {"fr", 6}, {"es", 1}}))
        << played["tracks"].dump();
    EXPECT_TRUE(played["ended"].get<bool>());

    // dash.js reads the MPD too: every audio AdaptationSet, Role main to
    // start with, and a switch to French mid-play.
    const ProcessResult dashjs = run_player("play-dashjs.mjs", out, {"--audio-language", "fr", "--rate", "4"});
    ASSERT_EQ(dashjs.exit_code, 0) << dashjs.out << dashjs.err;
    const nlohmann::json by_dashjs = player_result(dashjs.out);
    ASSERT_TRUE(by_dashjs.is_object()) << dashjs.out;
    std::set<std::pair<std::string, int>> dashjs_sets;
    for (const auto& t : by_dashjs["audioTracks"]) dashjs_sets.insert({t.value("lang", ""), t.value("channels", 0)});
    EXPECT_EQ(dashjs_sets, (std::set<std::pair<std::string, int>>{{"en", 2}, {"fr", 2}, {"fr", 6}, {"es", 1}}))
        << by_dashjs["audioTracks"].dump();
    EXPECT_EQ(by_dashjs["audioTrack"].value("lang", ""), "en") << "the AdaptationSet with Role main";
    EXPECT_TRUE(by_dashjs["audioSwitch"].value("confirmed", false)) << by_dashjs["audioSwitch"].dump();
    EXPECT_EQ(by_dashjs["audioSwitch"]["to"].value("lang", ""), "fr");
}

TEST(AudioTracks, AudioLanguagesChooseTracksAndAnAbsentLanguageIsRefused) {
    const fs::path src = three_language_source();
    const fs::path root = fresh_dir("audio-languages");

    ProcessResult fr = run_ladder(with_settings({"encode", src.string(), "-o", (root / "fra").string(), "--audio",
                                                 "aac:fra"}));
    ASSERT_EQ(fr.exit_code, 0) << fr.err;
    const auto media = tags_starting(root / "fra" / "master.m3u8", "#EXT-X-MEDIA:");
    ASSERT_EQ(media.size(), 2u) << "French stereo, and French 5.1 in the 5.1 group";
    EXPECT_EQ(attribute(media[0], "LANGUAGE"), "fr");
    EXPECT_EQ(attribute(media[0], "DEFAULT"), "YES") << "the first track chosen is the default";
    EXPECT_EQ(attribute(media[1], "CHANNELS"), "6");
    EXPECT_NE(fr.err.find("is not in --audio aac:fra: left out"), std::string::npos) << fr.err;
    EXPECT_LT(volume_of(joined_rendition(root / "fra", "aac"), 0), kFrenchBelow) << "aac/ holds the French track";

    ProcessResult two = run_ladder(with_settings({"encode", src.string(), "-o", (root / "two").string(), "--audio",
                                                  "aac:spa,eng", "--format", "mp4"}));
    ASSERT_EQ(two.exit_code, 0) << two.err;
    const auto streams = ffprobe_json({"-show_streams", "-select_streams", "a"}, root / "two" / "90p.mp4")["streams"];
    ASSERT_EQ(streams.size(), 2u);
    EXPECT_EQ(streams[0]["tags"].value("language", ""), "eng") << "the source's default track first";
    EXPECT_EQ(streams[1]["tags"].value("language", ""), "spa");

    ProcessResult none = run_ladder(with_settings({"encode", src.string(), "-o", (root / "none").string(), "--audio",
                                                   "none"}));
    ASSERT_EQ(none.exit_code, 0) << none.err;
    EXPECT_FALSE(fs::exists(root / "none" / "audio"));
    EXPECT_TRUE(tags_starting(root / "none" / "master.m3u8", "#EXT-X-MEDIA:").empty());

    ProcessResult absent = run_ladder(with_settings({"encode", src.string(), "-o", (root / "deu").string(), "--audio",
                                                     "aac:deu"}));
    EXPECT_EQ(absent.exit_code, 2);
    EXPECT_NE(absent.err.find("has no audio track in deu (its audio tracks are tagged eng, fra, spa)"),
              std::string::npos)
        << absent.err;
    EXPECT_EQ(count_lines(absent.err), 1) << absent.err;
    EXPECT_FALSE(fs::exists(root / "deu" / "master.m3u8"));

    ProcessResult bad = run_ladder({"encode", src.string(), "-o", (root / "bad").string(), "--audio", "mp3"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("--audio mp3: expected aac"), std::string::npos) << bad.err;
}

TEST(AudioTracks, PlanShardsAndStitchCarryTheChosenTracks) {
    const fs::path src = three_language_source();
    const fs::path root = fresh_dir("audio-stitch");
    const fs::path work = root / "work";
    ProcessResult plan = run_ladder(with_settings({"plan", src.string(), "-o", work.string(), "--audio", "aac:fra,eng"}));
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    EXPECT_EQ(nlohmann::json::parse(read_text(work / "plan.json"))["audio"], "aac:fra,eng");
    ProcessResult shard = run_ladder({"encode", "--plan", (work / "plan.json").string(), "--shard", "0/1"});
    ASSERT_EQ(shard.exit_code, 0) << shard.err;
    ProcessResult stitch = run_ladder({"stitch", work.string(), "-o", (root / "out").string()});
    ASSERT_EQ(stitch.exit_code, 0) << stitch.err;
    const auto media = tags_starting(root / "out" / "master.m3u8", "#EXT-X-MEDIA:");
    ASSERT_EQ(media.size(), 4u) << "English and French stereo; English and French 5.1";
    EXPECT_EQ(attribute(media[0], "LANGUAGE"), "en");
    EXPECT_EQ(attribute(media[1], "LANGUAGE"), "fr");
    EXPECT_NEAR(probe(joined_rendition(root / "out", "aac_fra_51")).audio.at(0).duration, 8.0, 0.05);
    ProcessResult v = run_ladder({"validate", (root / "out").string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

TEST(AudioTracks, HlsJsListsTheAudioTracksAndSwitchesLanguage) {
    const fs::path src = three_language_source();
    const fs::path out = fresh_dir("audio-player") / "out";
    ProcessResult r = run_ladder(with_settings({"encode", src.string(), "-o", out.string()}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const ProcessResult p = run_player("play.mjs", out, {"--audio-switch", "--rate", "2"});
    ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
    const nlohmann::json result = player_result(p.out);
    ASSERT_TRUE(result.is_object()) << p.out;
    EXPECT_TRUE(result["ended"].get<bool>());
    ASSERT_EQ(result["audioTracks"].size(), 6u) << "every EXT-X-MEDIA of both groups";
    std::set<std::string> languages;
    for (const auto& a : result["audioTracks"]) languages.insert(a.value("lang", ""));
    EXPECT_EQ(languages, (std::set<std::string>{"en", "fr", "es"}));
    const auto& sw = result["audioSwitch"];
    ASSERT_TRUE(sw.is_object()) << result.dump();
    EXPECT_TRUE(sw["confirmed"].get<bool>()) << sw.dump();
    EXPECT_NE(sw["toLang"], sw["fromLang"]) << sw.dump();
    EXPECT_EQ(sw["fromLang"], "en") << "hls.js starts on the DEFAULT=YES track";
}

}  // namespace
}  // namespace ladder::test
