// End-to-end: the default output, CMAF/HLS. Playlists are read with plain
// line parsing here, media with ffprobe / libavformat, so the checks do not
// lean on ladder's own playlist code.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "av/input_file.hpp"
#include "hls_tools.hpp"
#include "media_tools.hpp"
#include "mux/av1_sequence_header.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

constexpr double kFps = 25.0;

struct Av1cFields {
    int profile, level, tier, bit_depth, mono, ssx, ssy, chroma_pos;
};

// av1C (AV1-ISOBMFF §2.3.3) read from the init segment through libavformat.
Av1cFields read_av1c(const fs::path& init, AVCodecParameters* color_out) {
    av::InputFile in(init.string());
    const AVCodecParameters* par = in.get()->streams[0]->codecpar;
    EXPECT_GE(par->extradata_size, 4);
    const uint8_t* c = par->extradata;
    EXPECT_EQ(c[0], 0x81) << "marker=1, version=1";
    Av1cFields f{c[1] >> 5, c[1] & 31, c[2] >> 7, (c[2] & 0x40) ? ((c[2] & 0x20) ? 12 : 10) : 8,
                 (c[2] >> 4) & 1, (c[2] >> 3) & 1, (c[2] >> 2) & 1, c[2] & 3};
    avcodec_parameters_copy(color_out, par);
    return f;
}

std::vector<std::string> expected_rung_files(int segments) {
    std::vector<std::string> f{"iframes.m3u8", "index.m3u8", "init.mp4"};
    for (int i = 1; i <= segments; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "seg_%05d.m4s", i);
        f.push_back(name);
    }
    std::sort(f.begin(), f.end());
    return f;
}

std::vector<std::string> files_in(const fs::path& dir) {
    std::vector<std::string> f;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file()) f.push_back(e.path().filename().string());
    std::sort(f.begin(), f.end());
    return f;
}

void check_rung(const fs::path& out, const std::string& rung, int width, int height, long frames, long chunk_frames,
                const fs::path& source, const fs::path& scratch) {
    SCOPED_TRACE("rung " + rung);
    const fs::path dir = out / rung;
    const int segments = static_cast<int>((frames + chunk_frames - 1) / chunk_frames);
    EXPECT_EQ(files_in(dir), expected_rung_files(segments)) << "complete files only, no temporaries";

    // Media playlist.
    PlaylistLines p = read_playlist(dir / "index.m3u8");
    EXPECT_TRUE(p.has("#EXT-X-VERSION:7"));
    EXPECT_TRUE(p.has("#EXT-X-PLAYLIST-TYPE:VOD"));
    EXPECT_TRUE(p.has("#EXT-X-MAP:URI=\"init.mp4\""));
    EXPECT_TRUE(p.has("#EXT-X-ENDLIST"));
    ASSERT_EQ(p.extinf.size(), static_cast<std::size_t>(segments));
    EXPECT_NEAR(std::accumulate(p.extinf.begin(), p.extinf.end(), 0.0), frames / kFps, 1.0 / kFps);
    for (std::size_t i = 0; i < p.extinf.size(); ++i) {
        const long seg_frames = std::min<long>(chunk_frames, frames - static_cast<long>(i) * chunk_frames);
        EXPECT_NEAR(p.extinf[i], seg_frames / kFps, 1e-6) << "EXTINF from the real sample durations";
        EXPECT_LE(std::lround(p.extinf[i]), p.target_duration) << "RFC 8216 4.3.3.1";
    }
    EXPECT_EQ(p.target_duration, static_cast<int>(std::lround(chunk_frames / kFps)));

    // Init segment: cmfc brand, av1C = in-band header, colr = header colour.
    const std::string init = read_text(dir / "init.mp4");
    EXPECT_EQ(init.substr(4, 4), "ftyp");
    EXPECT_NE(init.substr(0, 64).find("cmfc"), std::string::npos) << "CMAF brand";
    EXPECT_NE(init.find("colr"), std::string::npos);
    EXPECT_NE(init.find("nclx"), std::string::npos);
    av::CodecParametersPtr color = av::make_codec_parameters();
    Av1cFields av1c = read_av1c(dir / "init.mp4", color.get());
    EXPECT_EQ(color->width, width);
    EXPECT_EQ(color->height, height);

    // The whole track (init + every segment) read back: frames, key frames
    // exactly at segment starts, timestamps continuous (tfdt).
    std::vector<fs::path> parts{dir / "init.mp4"};
    for (const auto& u : p.uris) parts.push_back(dir / u);
    const fs::path whole = scratch / (rung + "-whole.mp4");
    concat_files(parts, whole);
    FileFacts f = probe(whole);
    ASSERT_EQ(f.video.size(), 1u);
    EXPECT_EQ(f.video[0].frames, frames);
    std::vector<long> keys;
    for (long k = 0; k < frames; k += chunk_frames) keys.push_back(k);
    EXPECT_EQ(key_frame_indexes(whole), keys);
    EXPECT_NEAR(f.video[0].duration, frames / kFps, 1.0 / kFps);
    EXPECT_EQ(decode_errors(whole), "");
    EXPECT_GE(psnr_against_source(whole, source, width, height), 30.0);
    EXPECT_EQ(av1c_vs_inband_differences(whole), std::vector<std::string>{});

    // Colour: the colr box (via libavformat) agrees with the sequence header.
    av::InputFile in(whole.string());
    av::PacketPtr pkt = av::make_packet();
    ASSERT_TRUE(in.read(pkt.get()));
    auto hdr = mux::parse_sequence_header({pkt->data, static_cast<std::size_t>(pkt->size)});
    ASSERT_TRUE(hdr);
    EXPECT_EQ(av1c.profile, hdr->profile);
    EXPECT_EQ(av1c.level, mux::seq_level_idx(*hdr));
    EXPECT_EQ(av1c.bit_depth, mux::bit_depth(*hdr));
    EXPECT_EQ(static_cast<int>(color->color_primaries), static_cast<int>(hdr->pri));
    EXPECT_EQ(static_cast<int>(color->color_trc), static_cast<int>(hdr->trc));
    EXPECT_EQ(static_cast<int>(color->color_space), static_cast<int>(hdr->mtrx));
    EXPECT_EQ(color->color_range == AVCOL_RANGE_JPEG, hdr->color_range == 1);

    // I-frame playlist: one byte range per segment holding exactly its key frame.
    PlaylistLines ip = read_playlist(dir / "iframes.m3u8");
    EXPECT_TRUE(ip.has("#EXT-X-I-FRAMES-ONLY"));
    ASSERT_EQ(ip.byteranges.size(), static_cast<std::size_t>(segments));
    for (std::size_t i = 0; i < ip.byteranges.size(); ++i) {
        EXPECT_EQ(ip.byteranges[i].second, 0u);
        EXPECT_LT(ip.byteranges[i].first, fs::file_size(dir / ip.uris[i]));
        const fs::path one = scratch / (rung + "-iframe.mp4");
        init_plus_prefix(dir / "init.mp4", dir / ip.uris[i], ip.byteranges[i].first, one);
        EXPECT_EQ(key_frame_indexes(one), std::vector<long>{0}) << ip.uris[i];
        // The range ends inside mdat by design: decode just its key frame.
        ProcessResult d = run_process({"ffmpeg", "-hide_banner", "-v", "error", "-c:v", "libdav1d", "-i", one.string(),
                                       "-frames:v", "1", "-f", "null", "-"});
        EXPECT_EQ(d.exit_code, 0) << d.err;
        EXPECT_EQ(d.err.find("dav1d"), std::string::npos) << d.err;
    }
}

// The CODECS string built from av1C bytes read here, independently.
std::string codecs_from_init(const fs::path& init) {
    av::CodecParametersPtr par = av::make_codec_parameters();
    Av1cFields a = read_av1c(init, par.get());
    char base[32];
    std::snprintf(base, sizeof base, "av01.%d.%02d%c.%02d", a.profile, a.level, a.tier ? 'H' : 'M', a.bit_depth);
    char tail[48];
    std::snprintf(tail, sizeof tail, ".%d.%d%d%d.%02d.%02d.%02d.%d", a.mono, a.ssx, a.ssy, a.chroma_pos,
                  static_cast<int>(par->color_primaries), static_cast<int>(par->color_trc),
                  static_cast<int>(par->color_space), par->color_range == AVCOL_RANGE_JPEG ? 1 : 0);
    return std::string(tail) == ".0.110.01.01.01.0" ? base : std::string(base) + tail;
}

TEST(EncodeHls, TwoRungsWithAudioIsACompleteLadder) {
    const fs::path src = make_clip("hls320", {320, 240, "25", 3.0, true, ""});
    const fs::path out = fresh_dir("hls-two-rungs");
    const fs::path scratch = fresh_dir("hls-two-rungs-scratch");
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--rung", "240p=320x240@600", "--rung",
                                  "120p=160x120@200", "--segment-seconds", "1", "--preset", "12"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    check_rung(out, "240p", 320, 240, 75, 25, src, scratch);
    check_rung(out, "120p", 160, 120, 75, 25, src, scratch);

    // Master playlist.
    PlaylistLines m = read_playlist(out / "master.m3u8");
    EXPECT_TRUE(m.has("#EXT-X-INDEPENDENT-SEGMENTS"));
    ASSERT_EQ(m.stream_inf_by_uri.size(), 2u);
    // Audio rendition.
    PlaylistLines a = read_playlist(out / "audio/aac/index.m3u8");
    ASSERT_EQ(a.extinf.size(), 3u) << "audio segments line up with the 3 video segments";
    double audio_bits = 0;
    for (const auto& u : a.uris) audio_bits += 8.0 * fs::file_size(out / "audio/aac" / u);
    const double audio_seconds = std::accumulate(a.extinf.begin(), a.extinf.end(), 0.0);
    EXPECT_NEAR(audio_seconds, 3.0, 0.05);
    double boundary_audio = 0;
    for (std::size_t k = 0; k + 1 < a.extinf.size(); ++k) {
        boundary_audio += a.extinf[k];
        // Cut on the AAC frame boundary nearest the video's; the priming
        // (1024 samples before 0, hidden by the edit list) is not counted.
        EXPECT_NEAR(boundary_audio, (k + 1) * 1.0, 512.0 / 48000 + 1e-3);
    }
    bool saw_media = false;
    for (const auto& t : m.tags) {
        if (t.rfind("#EXT-X-MEDIA:", 0) != 0) continue;
        saw_media = true;
        EXPECT_EQ(attribute(t.substr(13), "TYPE"), "AUDIO");
        EXPECT_EQ(attribute(t.substr(13), "GROUP-ID"), "audio-aac");
        EXPECT_EQ(attribute(t.substr(13), "LANGUAGE"), "und");
        EXPECT_EQ(attribute(t.substr(13), "DEFAULT"), "YES");
        EXPECT_EQ(attribute(t.substr(13), "AUTOSELECT"), "YES");
        EXPECT_EQ(attribute(t.substr(13), "CHANNELS"), "2");
        EXPECT_EQ(attribute(t.substr(13), "URI"), "audio/aac/index.m3u8");
    }
    EXPECT_TRUE(saw_media);
    for (const auto& [uri, attrs] : m.stream_inf_by_uri) {
        SCOPED_TRACE(uri);
        const std::string rung = uri.substr(0, uri.find('/'));
        EXPECT_EQ(uri, rung + "/index.m3u8");
        EXPECT_EQ(attribute(attrs, "CODECS"), codecs_from_init(out / rung / "init.mp4") + ",mp4a.40.2");
        EXPECT_EQ(attribute(attrs, "RESOLUTION"), rung == "240p" ? "320x240" : "160x120");
        EXPECT_EQ(attribute(attrs, "FRAME-RATE"), "25.000");
        EXPECT_EQ(attribute(attrs, "VIDEO-RANGE"), "SDR");
        EXPECT_EQ(attribute(attrs, "AUDIO"), "audio-aac");
        double video_bits = 0;
        for (const auto& u : read_playlist(out / uri).uris) video_bits += 8.0 * fs::file_size(out / rung / u);
        const double measured_average = video_bits / 3.0 + audio_bits / audio_seconds;
        const double average = std::stod(attribute(attrs, "AVERAGE-BANDWIDTH"));
        const double peak = std::stod(attribute(attrs, "BANDWIDTH"));
        std::printf("[ metric   ] %s BANDWIDTH %.0f AVERAGE-BANDWIDTH %.0f measured average %.0f\n", rung.c_str(),
                    peak, average, measured_average);
        EXPECT_NEAR(average, measured_average, 0.10 * measured_average);
        EXPECT_GE(peak, average);
    }
    int iframe_streams = 0;
    for (const auto& t : m.tags)
        if (t.rfind("#EXT-X-I-FRAME-STREAM-INF:", 0) == 0) {
            ++iframe_streams;
            const std::string uri = attribute(t.substr(26), "URI");
            EXPECT_TRUE(fs::exists(out / uri)) << uri;
            EXPECT_EQ(uri.substr(uri.find('/')), "/iframes.m3u8");
        }
    EXPECT_EQ(iframe_streams, 2);

    // A real HLS client: libavformat's hls demuxer reads every variant.
    for (const auto& [uri, attrs] : m.stream_inf_by_uri) {
        FileFacts f = probe(out / uri);
        ASSERT_EQ(f.video.size(), 1u);
        EXPECT_EQ(f.video[0].frames, 75) << uri;
        EXPECT_NEAR(f.duration, 3.0, 1.0 / kFps) << uri;
    }
    FileFacts audio = probe(out / "audio/aac/index.m3u8");
    ASSERT_EQ(audio.audio.size(), 1u);
    EXPECT_NEAR(audio.duration, 3.0, 0.05);
}

TEST(EncodeHls, FormatBothWritesHlsAndMp4FromTheSameChunks) {
    const fs::path src = make_clip("both", {320, 240, "25", 2.0, true, ""});
    const fs::path out = fresh_dir("hls-both");
    const fs::path scratch = fresh_dir("hls-both-scratch");
    ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--format", "both", "--rung",
                                  "120p=160x120@200", "--segment-seconds", "1", "--preset", "12"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_TRUE(fs::exists(out / "master.m3u8"));
    ASSERT_TRUE(fs::exists(out / "120p.mp4"));
    // Same encoded packets in both: compare the video packet sizes in order.
    const fs::path whole = scratch / "whole.mp4";
    concat_files({out / "120p/init.mp4", out / "120p/seg_00001.m4s", out / "120p/seg_00002.m4s"}, whole);
    auto sizes = [](const fs::path& f) {
        ProcessResult p = run_process({"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                                       "packet=size", "-of", "csv=p=0", f.string()});
        return p.out;
    };
    EXPECT_EQ(sizes(whole), sizes(out / "120p.mp4"));
    EXPECT_EQ(probe(out / "120p.mp4").video[0].frames, 50);
}

}  // namespace
}  // namespace ladder::test
