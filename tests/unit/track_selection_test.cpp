// Which audio and subtitle tracks become renditions (--audio, --subtitles),
// how the master playlist groups them, and the WebVTT text of a segment.
#include <gtest/gtest.h>

#include "engine/media/audio_selection.hpp"
#include "engine/base/errors.hpp"
#include "engine/media/subtitle_selection.hpp"
#include "mux/hls_master_builder.hpp"
#include "mux/hls_playlist.hpp"
#include "mux/webvtt_document.hpp"

namespace ladder {
namespace {

using engine::AudioChoice;
using engine::SourceAudioStream;
using engine::SourceSubtitleStream;

SourceAudioStream audio(int stream, int ordinal, std::string lang, int channels, bool is_default = false,
                        std::string title = "") {
    SourceAudioStream s;
    s.stream = stream;
    s.ordinal = ordinal;
    s.language = std::move(lang);
    s.channels = channels;
    s.is_default = is_default;
    s.title = std::move(title);
    s.codec_name = "aac";
    s.decodable = true;
    return s;
}

TEST(AudioChoice, ParsesEveryFormAndRefusesTheRest) {
    EXPECT_EQ(engine::parse_audio_choice("aac"), AudioChoice{});
    EXPECT_FALSE(engine::parse_audio_choice("none").enabled);
    const AudioChoice two = engine::parse_audio_choice("aac:eng,fra");
    EXPECT_EQ(two.languages, (std::vector<std::string>{"eng", "fra"}));
    EXPECT_EQ(two.to_string(), "aac:eng,fra");
    for (const char* bad : {"mp3", "aac:", "aac:eng,", "aac:,fra", "aac:e n"})
        EXPECT_THROW(engine::parse_audio_choice(bad), engine::InputError) << bad;
}

TEST(AudioSelection, EveryTrackStereoTheDefaultFirstAndFiveOneForMoreChannels) {
    const auto sel = engine::select_audio(
        {audio(1, 1, "fra", 6), audio(2, 2, "eng", 2, true, "English"), audio(3, 3, "und", 1)}, {}, "in.mkv");
    ASSERT_EQ(sel.renditions.size(), 4u);
    EXPECT_EQ(sel.renditions[0].id, "aac");
    EXPECT_EQ(sel.renditions[0].source_stream, 2) << "the default track first";
    EXPECT_TRUE(sel.renditions[0].is_default);
    EXPECT_EQ(sel.renditions[0].name, "English");
    EXPECT_EQ(sel.renditions[1].id, "aac_fra");
    EXPECT_EQ(sel.renditions[1].channels, 2);
    EXPECT_EQ(sel.renditions[2].id, "aac_fra_51");
    EXPECT_EQ(sel.renditions[2].channels, 6);
    EXPECT_EQ(sel.renditions[2].name, "fra 5.1");
    EXPECT_EQ(sel.renditions[3].id, "aac_track3") << "no language: named by its track";
    EXPECT_EQ(sel.renditions[3].channels, 1);
    EXPECT_EQ(sel.renditions[3].name, "Audio");
    for (std::size_t i = 1; i < sel.renditions.size(); ++i) EXPECT_FALSE(sel.renditions[i].is_default);
}

TEST(AudioSelection, TwoTracksOfOneLanguageGetIdsAndNamesOfTheirOwn) {
    const auto sel =
        engine::select_audio({audio(1, 1, "eng", 2, true), audio(2, 2, "eng", 2), audio(3, 3, "eng", 2)}, {}, "in");
    ASSERT_EQ(sel.renditions.size(), 3u);
    EXPECT_EQ(sel.renditions[1].id, "aac_track2");
    EXPECT_EQ(sel.renditions[2].id, "aac_track3");
    EXPECT_EQ(sel.renditions[0].name, "eng (track 1)");
    EXPECT_EQ(sel.renditions[1].name, "eng (track 2)");
}

TEST(AudioSelection, TitlesAreMadeFitForEveryOutputAndStayApart) {
    const auto sel = engine::select_audio({audio(1, 1, "ger", 2, true, "Director's \"Cut\""),
                                           audio(2, 2, "fre", 2, false, "Director's \"Cut\"\x01"),
                                           audio(3, 3, "eng", 6, false, "Main\r\n"), audio(4, 4, "spa", 2, false, "Main 5.1"),
                                           audio(5, 5, "i\"x", 2, false, "\t")},
                                          {}, "in");
    std::vector<std::string> names;
    for (const auto& r : sel.renditions) names.push_back(r.name);
    EXPECT_EQ(names, (std::vector<std::string>{"Director's 'Cut' (track 1)", "Director's 'Cut' (track 2)", "Main",
                                               "Main 5.1", "Main 5.1 (track 4)", "i'x"}));
    EXPECT_EQ(sel.renditions[5].id, "aac_track5") << "a tag that is no folder name";
}

TEST(AudioSelection, LanguagesFilterAndAnAbsentOneIsANoteOrAnError) {
    const std::vector<SourceAudioStream> streams{audio(1, 1, "eng", 2, true), audio(2, 2, "FRA", 2)};
    const auto fr = engine::select_audio(streams, engine::parse_audio_choice("aac:fra,deu"), "in");
    ASSERT_EQ(fr.renditions.size(), 1u);
    EXPECT_EQ(fr.renditions[0].source_stream, 2) << "languages compare without case";
    EXPECT_TRUE(fr.renditions[0].is_default) << "the first chosen is the default when the default is left out";
    ASSERT_EQ(fr.notes.size(), 2u);
    EXPECT_NE(fr.notes[1].find("no audio track in language deu"), std::string::npos);
    EXPECT_THROW(engine::select_audio(streams, engine::parse_audio_choice("aac:deu"), "in"), engine::InputError);
    EXPECT_TRUE(engine::select_audio(streams, engine::parse_audio_choice("none"), "in").renditions.empty());
}

TEST(AudioSelection, AnUndecodableTrackIsLeftOutWithANote) {
    auto broken = audio(1, 1, "eng", 2, true);
    broken.decodable = false;
    const auto sel = engine::select_audio({broken, audio(2, 2, "fra", 2)}, {}, "in");
    ASSERT_EQ(sel.renditions.size(), 1u);
    EXPECT_EQ(sel.renditions[0].language, "fra");
    ASSERT_EQ(sel.notes.size(), 1u);
    EXPECT_NE(sel.notes[0].find("cannot be decoded"), std::string::npos);
}

SourceSubtitleStream subtitle(int stream, int ordinal, std::string lang, bool text, bool is_default = false,
                              bool forced = false) {
    SourceSubtitleStream s;
    s.stream = stream;
    s.ordinal = ordinal;
    s.language = std::move(lang);
    s.text = text;
    s.decodable = true;
    s.is_default = is_default;
    s.is_forced = forced;
    s.codec_name = text ? "subrip" : "hdmv_pgs_subtitle";
    return s;
}

TEST(SubtitleSelection, TextTracksOnlyOneDefaultAndAWarningPerPictureTrack) {
    const auto sel = engine::select_subtitles({subtitle(2, 1, "eng", true, true), subtitle(3, 2, "deu", false),
                                               subtitle(4, 3, "fra", true, true, true)},
                                              {}, "in.mkv");
    ASSERT_EQ(sel.renditions.size(), 2u);
    EXPECT_EQ(sel.renditions[0].id, "eng");
    EXPECT_TRUE(sel.renditions[0].is_default);
    EXPECT_EQ(sel.renditions[1].id, "fra");
    EXPECT_FALSE(sel.renditions[1].is_default) << "HLS allows one DEFAULT=YES per group";
    EXPECT_TRUE(sel.renditions[1].is_forced);
    ASSERT_EQ(sel.warnings.size(), 1u);
    EXPECT_NE(sel.warnings[0].find("subtitle track 2 (stream #3, deu, hdmv_pgs_subtitle) is a picture-based subtitle"),
              std::string::npos)
        << sel.warnings[0];
}

TEST(SubtitleSelection, TitlesAreMadeFitForEveryOutputAndStayApart) {
    auto a = subtitle(2, 1, "eng", true), b = subtitle(3, 2, "eng", true), c = subtitle(4, 3, "und", true);
    a.title = "Signs \"&\" songs";
    b.title = "Signs \"&\"\n songs";
    c.title = "\x1b";
    const auto sel = engine::select_subtitles({a, b, c}, {}, "in");
    ASSERT_EQ(sel.renditions.size(), 3u);
    EXPECT_EQ(sel.renditions[0].name, "Signs '&' songs");
    EXPECT_EQ(sel.renditions[1].name, "Signs '&' songs (track 2)");
    EXPECT_EQ(sel.renditions[2].name, "Subtitles 3");
}

TEST(SubtitleSelection, ChoiceParsesAndFilters) {
    EXPECT_TRUE(engine::parse_subtitle_choice("all").enabled);
    EXPECT_FALSE(engine::parse_subtitle_choice("none").enabled);
    EXPECT_EQ(engine::parse_subtitle_choice("eng,fra").languages, (std::vector<std::string>{"eng", "fra"}));
    EXPECT_THROW(engine::parse_subtitle_choice("eng,,fra"), engine::InputError);
    const std::vector<SourceSubtitleStream> streams{subtitle(2, 1, "eng", true), subtitle(3, 2, "fra", true)};
    const auto fr = engine::select_subtitles(streams, engine::parse_subtitle_choice("fra"), "in");
    ASSERT_EQ(fr.renditions.size(), 1u);
    EXPECT_EQ(fr.renditions[0].language, "fra");
    EXPECT_THROW(engine::select_subtitles(streams, engine::parse_subtitle_choice("ita"), "in"), engine::InputError);
}

mux::AudioRenditionSummary rendition(int track, std::string lang, int channels, std::uint64_t bytes_per_segment,
                                     bool is_default = false) {
    mux::AudioRenditionSummary a;
    a.track = track;
    a.name = lang + (channels > 2 ? " 5.1" : "");
    a.language = lang;
    a.uri = "audio/" + lang + std::to_string(channels) + "/index.m3u8";
    a.channels = channels;
    a.is_default = is_default;
    for (int i = 0; i < 3; ++i) a.segments.push_back({2.0, bytes_per_segment});
    return a;
}

TEST(MasterPlaylistGroups, FiveOneGroupTakesEachTrackOnceAndEveryRungIsListedPerGroup) {
    mux::VideoRenditionSummary v;
    v.uri = "720p/index.m3u8";
    v.iframe_uri = "720p/iframes.m3u8";
    v.width = 1280;
    v.height = 720;
    v.frame_rate = 25;
    v.codecs = "av01.0.05M.08";
    v.video_range = "SDR";
    for (int i = 0; i < 3; ++i) {
        v.segments.push_back({2.0, 500000});
        v.iframes.push_back({2.0, 50000});
    }
    const std::vector<mux::AudioRenditionSummary> audio{rendition(1, "eng", 2, 32000, true), rendition(2, "fra", 2, 32000),
                                                        rendition(2, "fra", 6, 96000)};
    const std::vector<mux::SubtitleRenditionSummary> subs{{"English", "eng", "subtitles/eng/index.m3u8", true, false}};
    const mux::MasterPlaylist m = mux::build_master_playlist({v}, audio, subs);
    ASSERT_EQ(m.media.size(), 5u);
    EXPECT_EQ(m.media[0].get("GROUP-ID"), "audio-aac");
    EXPECT_EQ(m.media[1].get("URI"), "audio/fra2/index.m3u8");
    EXPECT_EQ(m.media[2].get("GROUP-ID"), "audio-aac-51");
    EXPECT_EQ(m.media[2].get("URI"), "audio/eng2/index.m3u8") << "English has no 5.1: its stereo stands in";
    EXPECT_EQ(m.media[3].get("URI"), "audio/fra6/index.m3u8");
    EXPECT_EQ(m.media[3].get("CHANNELS"), "6");
    EXPECT_EQ(m.media[4].get("TYPE"), "SUBTITLES");
    EXPECT_EQ(m.media[4].get("FORCED"), "NO");
    ASSERT_EQ(m.variants.size(), 2u);
    EXPECT_EQ(m.variants[0].attributes.get("AUDIO"), "audio-aac");
    EXPECT_EQ(m.variants[1].attributes.get("AUDIO"), "audio-aac-51");
    for (const auto& var : m.variants) EXPECT_EQ(var.attributes.get("SUBTITLES"), "subs");
    for (const auto& var : m.variants) EXPECT_EQ(var.attributes.get("CLOSED-CAPTIONS"), "NONE");
    EXPECT_NE(mux::render_master_playlist(m).find(",CLOSED-CAPTIONS=NONE\n"), std::string::npos);
    // 500000 B per 2 s of video = 2 Mb/s; the group's largest audio is added.
    EXPECT_EQ(m.variants[0].attributes.get("AVERAGE-BANDWIDTH"), std::to_string(2000000 + 128000));
    EXPECT_EQ(m.variants[1].attributes.get("AVERAGE-BANDWIDTH"), std::to_string(2000000 + 384000));
}

TEST(WebVtt, SegmentTextHasTheTimestampMapAndTheCuesThatOverlapIt) {
    const std::vector<mux::WebVttCue> cues{{500, 1500, "one"}, {1900, 2600, "two"}, {4000, 4500, "three"}};
    const auto second = mux::cues_between(cues, 2000, 4000);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(second[0].text, "two") << "a cue ending at a boundary belongs to the segment before";
    EXPECT_EQ(mux::cues_between(cues, 0, 2000).size(), 2u);
    const std::string text = mux::render_webvtt(second, true);
    EXPECT_EQ(text.rfind("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n", 0), 0u) << text;
    EXPECT_NE(text.find("00:01.900 --> 00:02.600\ntwo"), std::string::npos) << text;
    EXPECT_EQ(mux::render_webvtt(cues, false).find("X-TIMESTAMP-MAP"), std::string::npos);
}

TEST(WebVtt, CuePayloadEscapesWhatWouldEndOrChangeTheCue) {
    EXPECT_EQ(mux::webvtt_cue_payload("Hello --> world"), "Hello --&gt; world");
    EXPECT_EQ(mux::webvtt_cue_payload("a-->b--->c"), "a--&gt;b---&gt;c");
    EXPECT_EQ(mux::webvtt_cue_payload("Tom & Jerry &amp; &lt; &gt; &lrm; &rlm; &nbsp; &eacute; &#233; &"),
              "Tom &amp; Jerry &amp; &lt; &gt; &lrm; &rlm; &nbsp; &amp;eacute; &amp;#233; &amp;");
    EXPECT_EQ(mux::webvtt_cue_payload("a<b, 3 > 2 <3"), "a&lt;b, 3 &gt; 2 &lt;3");
    EXPECT_EQ(mux::webvtt_cue_payload("<i>it</i> <b>b</b> <u>u</u> <c.yellow.big>c</c> <ruby>r<rt>t</rt></ruby>"),
              "<i>it</i> <b>b</b> <u>u</u> <c.yellow.big>c</c> <ruby>r<rt>t</rt></ruby>");
    EXPECT_EQ(mux::webvtt_cue_payload("<v Bob>Hi</v> <lang en-GB>colour</lang> <00:01.500>late <01:00:01.500>"),
              "<v Bob>Hi</v> <lang en-GB>colour</lang> <00:01.500>late <01:00:01.500>");
    EXPECT_EQ(mux::webvtt_cue_payload("<font color=red>x</font> <v>y</v> <i.>z</i> <00:1.5>"),
              "&lt;font color=red&gt;x&lt;/font&gt; &lt;v&gt;y</v> &lt;i.&gt;z</i> &lt;00:1.5&gt;");
}

TEST(WebVtt, CuePayloadKeepsItsLinesTogether) {
    EXPECT_EQ(mux::webvtt_cue_payload("Line one\n\nLine three"), "Line one\n&nbsp;\nLine three");
    EXPECT_EQ(mux::webvtt_cue_payload("one\r\ntwo\rthree\n \t\nfour"), "one\ntwo\nthree\n&nbsp;\nfour");
    EXPECT_EQ(mux::webvtt_cue_payload("\n\n<i>a</i>\n \n"), "<i>a</i>") << "blank lines at either end go";
    EXPECT_EQ(mux::webvtt_cue_payload(" \n\r\n"), "");
    EXPECT_EQ(mux::webvtt_cue_payload("already &amp; escaped --&gt; &lt;"), "already &amp; escaped --&gt; &lt;")
        << "escaping twice changes nothing";
    // In a document, every cue is one timing line and its payload.
    const std::string doc = mux::render_webvtt({{0, 1000, mux::webvtt_cue_payload("a\n\nb --> c")}}, false);
    EXPECT_NE(doc.find("\n\n00:00.000 --> 00:01.000\na\n&nbsp;\nb --&gt; c\n"), std::string::npos) << doc;
}

}  // namespace
}  // namespace ladder
