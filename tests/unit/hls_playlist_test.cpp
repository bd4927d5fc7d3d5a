// HLS playlists: the exact text ladder writes, round trips through the
// reader, hand-written playlists with RFC 8216 quirks, and every error.
#include "mux/hls_playlist.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <tuple>

namespace mux = ladder::mux;
using mux::ByteRange;
using mux::HlsAttributes;
using mux::MasterPlaylist;
using mux::MediaPlaylist;
using mux::MediaSegmentEntry;
using mux::PlaylistError;

namespace {

void expect_same(const HlsAttributes& a, const HlsAttributes& b) {
    ASSERT_EQ(a.items.size(), b.items.size());
    for (std::size_t i = 0; i < a.items.size(); ++i) {
        SCOPED_TRACE(a.items[i].name);
        EXPECT_EQ(a.items[i].name, b.items[i].name);
        EXPECT_EQ(a.items[i].value, b.items[i].value);
        EXPECT_EQ(a.items[i].quoted, b.items[i].quoted);
    }
}

void expect_same(const MediaPlaylist& a, const MediaPlaylist& b) {
    EXPECT_EQ(a.version, b.version);
    EXPECT_EQ(a.target_duration, b.target_duration);
    EXPECT_EQ(a.media_sequence, b.media_sequence);
    EXPECT_EQ(a.playlist_type, b.playlist_type);
    EXPECT_EQ(a.independent_segments, b.independent_segments);
    EXPECT_EQ(a.iframes_only, b.iframes_only);
    EXPECT_EQ(a.map_uri, b.map_uri);
    EXPECT_EQ(a.map_byte_range, b.map_byte_range);
    EXPECT_EQ(a.endlist, b.endlist);
    ASSERT_EQ(a.segments.size(), b.segments.size());
    for (std::size_t i = 0; i < a.segments.size(); ++i) {
        SCOPED_TRACE("segment " + std::to_string(i));
        // EXTINF has 6 decimals and the test durations have no more, so the
        // double read back is the very same double.
        EXPECT_EQ(a.segments[i].duration, b.segments[i].duration);
        EXPECT_EQ(a.segments[i].uri, b.segments[i].uri);
        ASSERT_EQ(a.segments[i].byte_range.has_value(), b.segments[i].byte_range.has_value());
        if (a.segments[i].byte_range) {
            EXPECT_EQ(a.segments[i].byte_range->length, b.segments[i].byte_range->length);
            EXPECT_EQ(a.segments[i].byte_range->offset, b.segments[i].byte_range->offset);
        }
    }
}

void expect_same(const MasterPlaylist& a, const MasterPlaylist& b) {
    EXPECT_EQ(a.version, b.version);
    EXPECT_EQ(a.independent_segments, b.independent_segments);
    ASSERT_EQ(a.media.size(), b.media.size());
    for (std::size_t i = 0; i < a.media.size(); ++i) expect_same(a.media[i], b.media[i]);
    ASSERT_EQ(a.variants.size(), b.variants.size());
    for (std::size_t i = 0; i < a.variants.size(); ++i) {
        expect_same(a.variants[i].attributes, b.variants[i].attributes);
        EXPECT_EQ(a.variants[i].uri, b.variants[i].uri);
    }
    ASSERT_EQ(a.iframe_streams.size(), b.iframe_streams.size());
    for (std::size_t i = 0; i < a.iframe_streams.size(); ++i) expect_same(a.iframe_streams[i], b.iframe_streams[i]);
}

MediaPlaylist sample_media() {
    MediaPlaylist p;
    p.target_duration = 2;
    p.playlist_type = "VOD";
    p.independent_segments = true;
    p.map_uri = "init.mp4";
    p.segments = {{2.0, "seg_00000.m4s", std::nullopt},
                  {2.002, "seg_00001.m4s", std::nullopt},
                  {1.48, "seg_00002.m4s", std::nullopt}};
    p.endlist = true;
    return p;
}

MediaPlaylist sample_iframes() {
    MediaPlaylist p;
    p.target_duration = 2;
    p.playlist_type = "VOD";
    p.independent_segments = true;
    p.iframes_only = true;
    p.map_uri = "init.mp4";
    p.segments = {{2.0, "seg_00000.m4s", ByteRange{4242, 0}},
                  {2.0, "seg_00001.m4s", ByteRange{3900, 0}},
                  {0.04, "seg_00001.m4s", ByteRange{1200, 52000}}};
    p.endlist = true;
    return p;
}

MasterPlaylist sample_master() {
    MasterPlaylist p;
    p.independent_segments = true;
    HlsAttributes audio;
    audio.set("TYPE", "AUDIO", false);
    audio.set("GROUP-ID", "audio-aac", true);
    audio.set("NAME", "English", true);
    audio.set("LANGUAGE", "en", true);
    audio.set("DEFAULT", "YES", false);
    audio.set("AUTOSELECT", "YES", false);
    audio.set("CHANNELS", "2", true);
    audio.set("URI", "audio/aac/index.m3u8", true);
    p.media.push_back(audio);
    for (const auto& [name, w, h, bw, avg] : {std::tuple{"720p", 1280, 720, 2500000, 2100000},
                                              std::tuple{"360p", 640, 360, 600000, 480000}}) {
        HlsAttributes v;
        v.set("BANDWIDTH", std::to_string(bw), false);
        v.set("AVERAGE-BANDWIDTH", std::to_string(avg), false);
        v.set("CODECS", "av01.0.08M.08,mp4a.40.2", true);
        v.set("RESOLUTION", std::to_string(w) + "x" + std::to_string(h), false);
        v.set("FRAME-RATE", "25.000", false);
        v.set("VIDEO-RANGE", "SDR", false);
        v.set("AUDIO", "audio-aac", true);
        p.variants.push_back({v, std::string(name) + "/index.m3u8"});
    }
    HlsAttributes i;
    i.set("BANDWIDTH", "120000", false);
    i.set("CODECS", "av01.0.08M.08", true);
    i.set("RESOLUTION", "1280x720", false);
    i.set("URI", "720p/iframes.m3u8", true);
    p.iframe_streams.push_back(i);
    return p;
}

// Runs f, expects a PlaylistError whose text contains every needle.
void expect_error(const std::function<void()>& f, std::initializer_list<std::string> needles) {
    try {
        f();
        ADD_FAILURE() << "no PlaylistError";
    } catch (const PlaylistError& e) {
        const std::string what = e.what();
        for (const auto& n : needles) EXPECT_NE(what.find(n), std::string::npos) << "\"" << n << "\" not in: " << what;
    }
}

void media_error(const std::string& text, std::initializer_list<std::string> needles) {
    SCOPED_TRACE(text);
    expect_error([&] { mux::parse_media_playlist(text, "rung/index.m3u8"); }, needles);
}

void master_error(const std::string& text, std::initializer_list<std::string> needles) {
    SCOPED_TRACE(text);
    expect_error([&] { mux::parse_master_playlist(text, "master.m3u8"); }, needles);
}

const std::string kMediaHead = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n";
const std::string kMasterHead = "#EXTM3U\n#EXT-X-VERSION:7\n";

}  // namespace

// ---------------------------------------------------------------- attributes

TEST(HlsAttributes, FindGetSet) {
    HlsAttributes a;
    EXPECT_EQ(a.find("BANDWIDTH"), nullptr);
    EXPECT_FALSE(a.get("BANDWIDTH"));
    a.set("BANDWIDTH", "1000", false);
    a.set("CODECS", "av01.0.08M.08", true);
    a.set("BANDWIDTH", "2000", false);  // replaces in place, keeps the order
    ASSERT_EQ(a.items.size(), 2u);
    EXPECT_EQ(a.items[0].name, "BANDWIDTH");
    EXPECT_EQ(a.get("BANDWIDTH"), "2000");
    ASSERT_NE(a.find("CODECS"), nullptr);
    EXPECT_TRUE(a.find("CODECS")->quoted);
}

// ---------------------------------------------------------------- writer

TEST(HlsPlaylistWriter, MediaPlaylistText) {
    EXPECT_EQ(mux::render_media_playlist(sample_media()),
              "#EXTM3U\n"
              "#EXT-X-VERSION:7\n"
              "#EXT-X-TARGETDURATION:2\n"
              "#EXT-X-MEDIA-SEQUENCE:0\n"
              "#EXT-X-PLAYLIST-TYPE:VOD\n"
              "#EXT-X-INDEPENDENT-SEGMENTS\n"
              "#EXT-X-MAP:URI=\"init.mp4\"\n"
              "#EXTINF:2.000000,\n"
              "seg_00000.m4s\n"
              "#EXTINF:2.002000,\n"
              "seg_00001.m4s\n"
              "#EXTINF:1.480000,\n"
              "seg_00002.m4s\n"
              "#EXT-X-ENDLIST\n");
}

TEST(HlsPlaylistWriter, MinimalMediaPlaylistText) {
    MediaPlaylist p;
    p.target_duration = 6;
    p.segments = {{5.5, "a.m4s", std::nullopt}};
    EXPECT_EQ(mux::render_media_playlist(p),
              "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:0\n"
              "#EXTINF:5.500000,\na.m4s\n");
}

TEST(HlsPlaylistWriter, IFramePlaylistText) {
    EXPECT_EQ(mux::render_media_playlist(sample_iframes()),
              "#EXTM3U\n"
              "#EXT-X-VERSION:7\n"
              "#EXT-X-TARGETDURATION:2\n"
              "#EXT-X-MEDIA-SEQUENCE:0\n"
              "#EXT-X-PLAYLIST-TYPE:VOD\n"
              "#EXT-X-INDEPENDENT-SEGMENTS\n"
              "#EXT-X-I-FRAMES-ONLY\n"
              "#EXT-X-MAP:URI=\"init.mp4\"\n"
              "#EXTINF:2.000000,\n"
              "#EXT-X-BYTERANGE:4242@0\n"
              "seg_00000.m4s\n"
              "#EXTINF:2.000000,\n"
              "#EXT-X-BYTERANGE:3900@0\n"
              "seg_00001.m4s\n"
              "#EXTINF:0.040000,\n"
              "#EXT-X-BYTERANGE:1200@52000\n"
              "seg_00001.m4s\n"
              "#EXT-X-ENDLIST\n");
}

TEST(HlsPlaylistWriter, MasterPlaylistText) {
    EXPECT_EQ(mux::render_master_playlist(sample_master()),
              "#EXTM3U\n"
              "#EXT-X-VERSION:7\n"
              "#EXT-X-INDEPENDENT-SEGMENTS\n"
              "\n"
              "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio-aac\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=YES,"
              "AUTOSELECT=YES,CHANNELS=\"2\",URI=\"audio/aac/index.m3u8\"\n"
              "#EXT-X-STREAM-INF:BANDWIDTH=2500000,AVERAGE-BANDWIDTH=2100000,CODECS=\"av01.0.08M.08,mp4a.40.2\","
              "RESOLUTION=1280x720,FRAME-RATE=25.000,VIDEO-RANGE=SDR,AUDIO=\"audio-aac\"\n"
              "720p/index.m3u8\n"
              "#EXT-X-STREAM-INF:BANDWIDTH=600000,AVERAGE-BANDWIDTH=480000,CODECS=\"av01.0.08M.08,mp4a.40.2\","
              "RESOLUTION=640x360,FRAME-RATE=25.000,VIDEO-RANGE=SDR,AUDIO=\"audio-aac\"\n"
              "360p/index.m3u8\n"
              "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=120000,CODECS=\"av01.0.08M.08\",RESOLUTION=1280x720,"
              "URI=\"720p/iframes.m3u8\"\n");
}

TEST(HlsPlaylistWriter, RefusesWhatCannotBeReadBack) {
    MasterPlaylist m;
    HlsAttributes bad_quote;
    bad_quote.set("BANDWIDTH", "1", false);
    bad_quote.set("CODECS", "av01\"x", true);
    m.variants.push_back({bad_quote, "a.m3u8"});
    expect_error([&] { mux::render_master_playlist(m); }, {"CODECS", "quoted string"});

    HlsAttributes comma;
    comma.set("BANDWIDTH", "1,2", false);
    m.variants = {{comma, "a.m3u8"}};
    expect_error([&] { mux::render_master_playlist(m); }, {"BANDWIDTH"});

    HlsAttributes quoted_number;
    quoted_number.set("BANDWIDTH", "1000", true);
    m.variants = {{quoted_number, "a.m3u8"}};
    expect_error([&] { mux::render_master_playlist(m); }, {"BANDWIDTH is not a decimal integer"});

    HlsAttributes lower;
    lower.set("bandwidth", "1000", false);
    m.variants = {{lower, "a.m3u8"}};
    expect_error([&] { mux::render_master_playlist(m); }, {"bandwidth"});

    MediaPlaylist p;
    p.target_duration = 2;
    p.segments = {{2.0, "a\nb.m4s", std::nullopt}};
    expect_error([&] { mux::render_media_playlist(p); }, {"URI"});
    p.segments = {{-1.0, "a.m4s", std::nullopt}};
    expect_error([&] { mux::render_media_playlist(p); }, {"EXTINF"});
    p.segments.clear();
    p.playlist_type = "LIVE";
    expect_error([&] { mux::render_media_playlist(p); }, {"VOD or EVENT"});
    p.playlist_type = "VOD";
    p.target_duration = -1;
    expect_error([&] { mux::render_media_playlist(p); }, {"negative"});
}

// ---------------------------------------------------------------- round trips

TEST(HlsPlaylistRoundTrip, Media) {
    const auto p = sample_media();
    expect_same(mux::parse_media_playlist(mux::render_media_playlist(p), "index.m3u8"), p);
}

TEST(HlsPlaylistRoundTrip, IFrames) {
    const auto p = sample_iframes();
    expect_same(mux::parse_media_playlist(mux::render_media_playlist(p), "iframes.m3u8"), p);
}

TEST(HlsPlaylistRoundTrip, Master) {
    const auto p = sample_master();
    expect_same(mux::parse_master_playlist(mux::render_master_playlist(p), "master.m3u8"), p);
}

TEST(HlsPlaylistRoundTrip, BareMediaAndMaster) {
    MediaPlaylist m;
    m.target_duration = 1;
    m.media_sequence = 12;
    m.playlist_type = "EVENT";
    expect_same(mux::parse_media_playlist(mux::render_media_playlist(m), "m"), m);
    MasterPlaylist master;
    expect_same(mux::parse_master_playlist(mux::render_master_playlist(master), "m"), master);
}

// ---------------------------------------------------------------- hand-written quirks

TEST(HlsPlaylistReader, MediaWithCrlfCommentsTitlesAndUnknownTags) {
    const std::string text =
        "#EXTM3U\r\n"
        "# written by hand\r\n"
        "#EXT-X-TARGETDURATION:6\r\n"
        "\r\n"
        "#EXT-X-VERSION:6\r\n"
        "#EXT-X-PLAYLIST-TYPE:VOD\r\n"
        "#EXT-X-MAP:URI=\"init.mp4\",BYTERANGE=\"700@0\"\r\n"
        "#EXT-X-SOMETHING-NEW:ANSWER=42\r\n"
        "#EXTINF:5.005,first segment, with a comma\r\n"
        "seg1.m4s\r\n"
        "#EXT-X-DISCONTINUITY\r\n"
        "#EXTINF:4,\r\n"
        "\r\n"
        "# a comment between EXTINF and its URI\r\n"
        "seg2.m4s\r\n"
        "#EXT-X-ENDLIST";  // no final line break
    const auto p = mux::parse_media_playlist(text, "hand.m3u8");
    EXPECT_EQ(p.version, 6);
    EXPECT_EQ(p.target_duration, 6);
    EXPECT_EQ(p.media_sequence, 0);
    EXPECT_EQ(p.playlist_type, "VOD");
    EXPECT_EQ(p.map_uri, "init.mp4");
    ASSERT_EQ(p.segments.size(), 2u);
    EXPECT_DOUBLE_EQ(p.segments[0].duration, 5.005);
    EXPECT_EQ(p.segments[0].uri, "seg1.m4s");
    EXPECT_DOUBLE_EQ(p.segments[1].duration, 4.0);
    EXPECT_EQ(p.segments[1].uri, "seg2.m4s");
    EXPECT_TRUE(p.endlist);
}

TEST(HlsPlaylistReader, ByteRangeWithoutOffsetContinuesTheSameUri) {
    const std::string text = kMediaHead +
                             "#EXT-X-I-FRAMES-ONLY\n"
                             "#EXTINF:2,\n#EXT-X-BYTERANGE:1000@500\nall.mp4\n"
                             "#EXTINF:2,\n#EXT-X-BYTERANGE:800\nall.mp4\n"
                             "#EXTINF:2,\n#EXT-X-BYTERANGE:300\nall.mp4\n"
                             "#EXTINF:2,\n#EXT-X-BYTERANGE:100@0\nother.mp4\n";
    const auto p = mux::parse_media_playlist(text, "iframes.m3u8");
    EXPECT_TRUE(p.iframes_only);
    ASSERT_EQ(p.segments.size(), 4u);
    EXPECT_EQ(p.segments[1].byte_range->offset, 1500u);
    EXPECT_EQ(p.segments[1].byte_range->length, 800u);
    EXPECT_EQ(p.segments[2].byte_range->offset, 2300u);
    EXPECT_EQ(p.segments[3].byte_range->offset, 0u);
}

TEST(HlsPlaylistReader, MasterWithAttributesInAnyOrderAndCommasInQuotes) {
    const std::string text =
        "#EXTM3U\r\n"
        "#EXT-X-INDEPENDENT-SEGMENTS\r\n"
        "#EXT-X-MEDIA:NAME=\"Deutsch\",TYPE=AUDIO,URI=\"a/de.m3u8\",GROUP-ID=\"aud\",LANGUAGE=\"de\"\r\n"
        "#EXT-X-STREAM-INF:CODECS=\"av01.0.08M.08,mp4a.40.2\",RESOLUTION=1920x1080,BANDWIDTH=6000000,"
        "FRAME-RATE=29.970,AUDIO=\"aud\",CLOSED-CAPTIONS=NONE\r\n"
        "# a comment before the URI\r\n"
        "1080p/index.m3u8\r\n"
        "#EXT-X-SESSION-DATA:DATA-ID=\"com.example.title\",VALUE=\"A, B\"\r\n"
        "#EXT-X-I-FRAME-STREAM-INF:URI=\"1080p/iframes.m3u8\",BANDWIDTH=200000\r\n";
    const auto p = mux::parse_master_playlist(text, "master.m3u8");
    EXPECT_EQ(p.version, 7);  // the model's default when the tag is absent
    EXPECT_TRUE(p.independent_segments);
    ASSERT_EQ(p.media.size(), 1u);
    EXPECT_EQ(p.media[0].get("GROUP-ID"), "aud");
    EXPECT_EQ(p.media[0].items[0].name, "NAME");  // playlist order is kept
    ASSERT_EQ(p.variants.size(), 1u);
    EXPECT_EQ(p.variants[0].attributes.get("CODECS"), "av01.0.08M.08,mp4a.40.2");
    EXPECT_TRUE(p.variants[0].attributes.find("CODECS")->quoted);
    EXPECT_EQ(p.variants[0].attributes.get("RESOLUTION"), "1920x1080");
    EXPECT_FALSE(p.variants[0].attributes.find("RESOLUTION")->quoted);
    EXPECT_EQ(p.variants[0].attributes.get("BANDWIDTH"), "6000000");
    EXPECT_EQ(p.variants[0].attributes.get("CLOSED-CAPTIONS"), "NONE");
    EXPECT_EQ(p.variants[0].uri, "1080p/index.m3u8");
    ASSERT_EQ(p.iframe_streams.size(), 1u);
    EXPECT_EQ(p.iframe_streams[0].get("URI"), "1080p/iframes.m3u8");
}

TEST(HlsPlaylistReader, LongLinesAreLinear) {
    // A fuzzer-sized line: 200k attributes, then a 4 MB unterminated quote.
    std::string attrs = "BANDWIDTH=1";
    for (int i = 0; i < 200000; ++i) attrs += ",X" + std::to_string(i) + "=1";
    const auto start = std::chrono::steady_clock::now();
    const auto p = mux::parse_master_playlist(kMasterHead + "#EXT-X-STREAM-INF:" + attrs + "\nv.m3u8\n", "big");
    EXPECT_EQ(p.variants.at(0).attributes.items.size(), 200001u);
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"" + std::string(4 << 20, ',') + "\n",
                 {"master.m3u8:3:", "not closed"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1" + std::string(4 << 20, '=') + "\n",
                 {"master.m3u8:3:"});
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 20.0);  // generous for sanitizer builds; quadratic would take hours
}

// EXT-X-MAP may name a byte range of its file (ladder writes none; validate
// checks the range against the file).
TEST(HlsPlaylistReader, MapByteRange) {
    const auto with = [](const std::string& map) {
        return kMediaHead + "#EXT-X-MAP:URI=\"init.mp4\"" + map + "\n#EXTINF:2,\nseg.m4s\n";
    };
    EXPECT_EQ(mux::parse_media_playlist(with(""), "m").map_byte_range, std::nullopt);
    EXPECT_EQ(mux::parse_media_playlist(with(",BYTERANGE=\"720@16\""), "m").map_byte_range, (ByteRange{720, 16}));
    EXPECT_EQ(mux::parse_media_playlist(with(",BYTERANGE=\"720\""), "m").map_byte_range, (ByteRange{720, 0}));
    media_error(with(",BYTERANGE=\"720@\""), {"rung/index.m3u8:4:", "EXT-X-MAP BYTERANGE is not"});
    media_error(with(",BYTERANGE=720"), {"rung/index.m3u8:4:", "BYTERANGE must be a quoted string"});
    media_error(with(",BYTERANGE=\"720@16\"") + "#EXT-X-MAP:URI=\"init.mp4\",BYTERANGE=\"720@0\"\n",
                {"rung/index.m3u8:7:", "another URI or BYTERANGE"});
    MediaPlaylist p = mux::parse_media_playlist(with(",BYTERANGE=\"720@16\""), "m");
    expect_same(mux::parse_media_playlist(mux::render_media_playlist(p), "m"), p);
}

// ---------------------------------------------------------------- limits

// `ladder validate` reads playlists with a limit on what the reader keeps:
// the first entries are kept, every one is counted, the rest still checked.
TEST(HlsPlaylistLimits, MediaKeepsTheFirstSegmentsAndCountsAll) {
    std::string text = kMediaHead;
    for (int i = 0; i < 1000; ++i) text += "#EXTINF:2,\nseg" + std::to_string(i) + ".m4s\n";
    const auto p = mux::parse_media_playlist(text, "index.m3u8", mux::PlaylistLimits{3});
    EXPECT_EQ(p.segments_listed, 1000u);
    ASSERT_EQ(p.segments.size(), 3u);
    EXPECT_EQ(p.segments[2].uri, "seg2.m4s");
    EXPECT_EQ(mux::parse_media_playlist(text, "index.m3u8").segments_listed, 1000u);
    // An error past the limit is still found.
    EXPECT_THROW(mux::parse_media_playlist(text + "#EXTINF:x,\nlate.m4s\n", "index.m3u8", mux::PlaylistLimits{3}),
                 PlaylistError);
}

TEST(HlsPlaylistLimits, ByteRangesPastTheLimitContinueTheSegmentBefore) {
    const std::string text = kMediaHead +
                             "#EXTINF:2,\n#EXT-X-BYTERANGE:1000@500\nall.mp4\n"
                             "#EXTINF:2,\n#EXT-X-BYTERANGE:800\nall.mp4\n"
                             "#EXTINF:2,\n#EXT-X-BYTERANGE:300\nall.mp4\n";
    const auto p = mux::parse_media_playlist(text, "iframes.m3u8", mux::PlaylistLimits{1});
    EXPECT_EQ(p.segments_listed, 3u);
    ASSERT_EQ(p.segments.size(), 1u);
    // The segment before, not kept, is still the one a range continues.
    EXPECT_THROW(mux::parse_media_playlist(kMediaHead + "#EXTINF:2,\n#EXT-X-BYTERANGE:1@0\na.mp4\n"
                                                        "#EXTINF:2,\n#EXT-X-BYTERANGE:1@0\nb.mp4\n"
                                                        "#EXTINF:2,\n#EXT-X-BYTERANGE:1\na.mp4\n",
                                           "iframes.m3u8", mux::PlaylistLimits{1}),
                 PlaylistError);
}

TEST(HlsPlaylistLimits, MasterCountsEntriesPastTheLimitWithoutReadingThem) {
    std::string text = kMasterHead + "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"A\",URI=\"a.m3u8\"\n";
    for (int i = 0; i < 500; ++i) text += "#EXT-X-STREAM-INF:BANDWIDTH=1\nv" + std::to_string(i) + ".m3u8\n";
    text += "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI=\"i.m3u8\"\n";
    const auto p = mux::parse_master_playlist(text, "master.m3u8", mux::PlaylistLimits{2});
    EXPECT_EQ(p.entries_listed, 502u);
    EXPECT_EQ(p.media.size(), 1u);
    ASSERT_EQ(p.variants.size(), 1u);
    EXPECT_EQ(p.variants[0].uri, "v0.m3u8");  // not overwritten by the URIs of variants not kept
    EXPECT_TRUE(p.iframe_streams.empty());
    EXPECT_EQ(mux::parse_master_playlist(text, "master.m3u8").entries_listed, 502u);
    // Attributes past the limit are not read (reading them takes memory);
    // the playlist's structure still is.
    EXPECT_NO_THROW(mux::parse_master_playlist(text + "#EXT-X-STREAM-INF:NO-BANDWIDTH\nx.m3u8\n", "master.m3u8",
                                               mux::PlaylistLimits{2}));
    EXPECT_THROW(mux::parse_master_playlist(text + "#EXT-X-STREAM-INF:BANDWIDTH=1\n", "master.m3u8",
                                            mux::PlaylistLimits{2}),
                 PlaylistError);
}

// ---------------------------------------------------------------- errors

TEST(HlsPlaylistErrors, MissingExtM3u) {
    media_error("", {"rung/index.m3u8:1:", "missing #EXTM3U", "empty"});
    media_error("#EXT-X-VERSION:7\n#EXTM3U\n", {"rung/index.m3u8:1:", "missing #EXTM3U"});
    media_error("\xEF\xBB\xBF#EXTM3U\n", {":1:", "byte order mark"});
    master_error(" #EXTM3U\n", {"master.m3u8:1:", "missing #EXTM3U"});
}

TEST(HlsPlaylistErrors, BareCarriageReturn) {
    media_error(kMediaHead + "#EXTINF:2,\nseg\r1.m4s\n", {":5:", "carriage return"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1\r\r\nv.m3u8\n", {":3:", "carriage return"});
}

TEST(HlsPlaylistErrors, ExtinfWithoutUri) {
    media_error(kMediaHead + "#EXTINF:2.0,\n", {"rung/index.m3u8:4:", "EXTINF without a following URI"});
    media_error(kMediaHead + "#EXTINF:2.0,\n#EXTINF:2.0,\nseg.m4s\n", {":4:", "EXTINF without a following URI"});
    media_error(kMediaHead + "seg.m4s\n", {":4:", "URI line without a preceding EXTINF"});
    media_error(kMediaHead + "#EXTINF:2.0\nseg.m4s\n", {":4:", "comma"});
}

TEST(HlsPlaylistErrors, ByteRange) {
    media_error(kMediaHead + "#EXTINF:2,\n#EXT-X-BYTERANGE:100\nseg.m4s\n",
                {":5:", "without an offset must follow a sub-range of the same URI"});
    media_error(kMediaHead + "#EXTINF:2,\n#EXT-X-BYTERANGE:100@0\na.mp4\n#EXTINF:2,\n#EXT-X-BYTERANGE:100\nb.mp4\n",
                {":8:", "same URI"});
    media_error(kMediaHead + "#EXTINF:2,\n#EXT-X-BYTERANGE:100@x\nseg.m4s\n",
                {":5:", "offset is not a decimal integer"});
    media_error(kMediaHead + "#EXTINF:2,\n#EXT-X-BYTERANGE:-1@0\nseg.m4s\n", {":5:", "length is not a decimal integer"});
    media_error(kMediaHead + "#EXT-X-BYTERANGE:1@0\n", {":4:", "EXT-X-BYTERANGE without a following URI"});
}

TEST(HlsPlaylistErrors, MalformedAttributeLists) {
    const std::string v = "\nv.m3u8\n";
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"av01" + v, {"master.m3u8:3:", "not closed"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1,,RESOLUTION=1x1" + v,
                 {":3:", "malformed attribute list"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH" + v, {":3:", "malformed attribute list", "no '='"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1," + v, {":3:", "ends with a comma"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1,BANDWIDTH=2" + v, {":3:", "more than once"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1, RESOLUTION=1x1" + v, {":3:", "malformed attribute list"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"a\"x" + v, {":3:", "expected ','"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1,bw=2" + v, {":3:", "not an attribute name"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=" + v, {":3:", "empty value"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF" + v, {":3:", "needs an attribute list"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:RESOLUTION=1x1" + v, {":3:", "no BANDWIDTH"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=av01" + v, {":3:", "CODECS must be a quoted"});
    master_error(kMasterHead + "#EXT-X-MEDIA:TYPE=AUDIO,NAME=\"x\"\n", {":3:", "no GROUP-ID"});
    master_error(kMasterHead + "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1\n", {":3:", "no URI"});
}

TEST(HlsPlaylistErrors, NumbersThatDoNotParse) {
    const std::string v = "\nv.m3u8\n";
    media_error("#EXTM3U\n#EXT-X-TARGETDURATION:two\n", {":2:", "EXT-X-TARGETDURATION is not a decimal integer"});
    media_error("#EXTM3U\n#EXT-X-TARGETDURATION:99999999999\n", {":2:", "out of range"});
    media_error("#EXTM3U\n#EXT-X-VERSION:7.0\n#EXT-X-TARGETDURATION:2\n", {":2:", "EXT-X-VERSION"});
    media_error(kMediaHead + "#EXT-X-MEDIA-SEQUENCE:-1\n", {":4:", "EXT-X-MEDIA-SEQUENCE"});
    media_error(kMediaHead + "#EXTINF:abc,\nseg.m4s\n", {":4:", "EXTINF duration is not a decimal number"});
    media_error(kMediaHead + "#EXTINF:-2.0,\nseg.m4s\n", {":4:", "EXTINF duration"});
    media_error(kMediaHead + "#EXTINF:2e1,\nseg.m4s\n", {":4:", "EXTINF duration"});
    media_error(kMediaHead + "#EXTINF:nan,\nseg.m4s\n", {":4:", "EXTINF duration"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=12x" + v, {":3:", "BANDWIDTH is not a decimal integer"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=99999999999999999999" + v, {":3:", "BANDWIDTH"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=1920by1080" + v,
                 {":3:", "RESOLUTION is not a resolution"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1,FRAME-RATE=inf" + v,
                 {":3:", "FRAME-RATE is not a decimal number"});
}

TEST(HlsPlaylistErrors, WrongKindOfPlaylist) {
    master_error(kMasterHead + "#EXTINF:2,\nseg.m4s\n", {"master.m3u8:3:", "EXTINF is a media playlist tag"});
    master_error(kMasterHead + "#EXT-X-TARGETDURATION:2\n", {":3:", "media playlist tag"});
    media_error(kMediaHead + "#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n",
                {"rung/index.m3u8:4:", "EXT-X-STREAM-INF is a master playlist tag"});
    media_error(kMediaHead + "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"a\"\n", {":4:", "master playlist tag"});
}

TEST(HlsPlaylistErrors, MediaPlaylistStructure) {
    media_error("#EXTM3U\n#EXTINF:2,\nseg.m4s\n", {"EXT-X-TARGETDURATION", "requires"});
    media_error(kMediaHead + "#EXT-X-TARGETDURATION:3\n", {":4:", "second EXT-X-TARGETDURATION"});
    media_error(kMediaHead + "#EXT-X-VERSION:7\n", {":4:", "second EXT-X-VERSION"});
    media_error(kMediaHead + "#EXT-X-PLAYLIST-TYPE:LIVE\n", {":4:", "VOD or EVENT"});
    media_error(kMediaHead + "#EXT-X-MAP:BYTERANGE=\"1@0\"\n", {":4:", "no URI"});
    media_error(kMediaHead + "#EXT-X-MAP:URI=\"a.mp4\"\n#EXT-X-MAP:URI=\"b.mp4\"\n", {":5:", "second EXT-X-MAP"});
}

TEST(HlsPlaylistErrors, MasterPlaylistStructure) {
    master_error(kMasterHead + "v.m3u8\n", {":3:", "URI line without a preceding EXT-X-STREAM-INF"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1\n", {":3:", "EXT-X-STREAM-INF without a following URI"});
    master_error(kMasterHead + "#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXT-X-STREAM-INF:BANDWIDTH=2\nv.m3u8\n",
                 {":3:", "EXT-X-STREAM-INF without a following URI"});
}
