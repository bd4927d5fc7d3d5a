// The audio starts with the video's first frame and ends with its last, in
// HLS, DASH and MP4, at every sample rate AAC allows (8 to 96 kHz), mono,
// stereo and 5.1, with odd frame rates, segment lengths and a video whose
// length is not a whole number of AAC frames (issue 41). The source's audio
// is silent for exactly 1 s, then a tone: FFmpeg decodes each output (with
// -copyts, so that its timestamps stay as the file gives them) and its
// silencedetect filter says where the tone starts; ffprobe says where the
// audio ends. An output that plays the AAC encoder's priming (1024 samples)
// has the tone one AAC frame late; one that keeps the encoder's padding
// ends up to two frames after the video.
#include <gtest/gtest.h>

#include <ostream>
#include <regex>

#include "corpus_media.hpp"
#include "hls_tools.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

constexpr double kToneStart = 1.0;

struct Case {
    int rate;
    int channels;  // 1, 2 or 6 (5.1)
    std::string fps;
    double seconds;
    std::string segment_seconds;
    // How much longer the source's audio is than its video: > 0, every output
    // cuts it at the video's end; < 0, every output pads it with silence to
    // the video's end.
    double audio_over = 0.25;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.rate << " Hz, " << c.channels << " ch, " << c.fps << " fps, " << c.seconds << " s, segments of "
        << c.segment_seconds << " s, audio " << c.audio_over << " s over the video";
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    const Case& c = info.param;
    const char* layout = c.channels == 1 ? "Mono" : c.channels == 2 ? "Stereo" : "Surround";
    return std::string(layout) + std::to_string(c.rate) + "Hz_" + std::to_string(info.index);
}

double aac_frame(int rate) { return 1024.0 / rate; }

// Silence until kToneStart, then a 440 Hz tone, on every channel, to the
// sample; c.audio_over longer than the video (shorter when negative).
fs::path tone_source(const Case& c) {
    const fs::path file = fresh_dir("audio-timing-src") / "source.mkv";
    const std::string tone = "if(gte(t," + std::to_string(kToneStart) + "),0.5*sin(2*PI*440*t),0)";
    std::string exprs = tone;
    for (int i = 1; i < c.channels; ++i) exprs += "|" + tone;
    const std::string layout = c.channels == 1 ? "mono" : c.channels == 2 ? "stereo" : "5.1";
    ffmpeg(join({{"-f", "lavfi", "-i", testsrc("160x90", c.fps, c.seconds), "-f", "lavfi", "-i",
                  "aevalsrc=exprs='" + exprs + "':c=" + layout + ":s=" + std::to_string(c.rate) +
                      ":d=" + std::to_string(c.seconds + c.audio_over)},
                 kH264,
                 {"-pix_fmt", "yuv420p", "-c:a", "pcm_s16le", file.string()}}));
    return file;
}

// Where the tone starts in the first audio stream `map` of file (ffmpeg's -map).
double tone_start(const fs::path& file, const std::string& map) {
    const ProcessResult r = run_process({"ffmpeg", "-hide_banner", "-nostats", "-copyts", "-i", file.string(), "-map",
                                         map, "-af", "silencedetect=n=-26dB:d=0.3", "-f", "null", "-"});
    static const std::regex re(R"(silence_end: (-?[0-9.]+))");
    std::smatch m;
    if (!std::regex_search(r.err, m, re)) throw std::runtime_error("no tone found in " + file.string() + ": " + r.err);
    return std::stod(m[1]);
}

// An HLS rendition's init segment and media segments as one fragmented MP4.
fs::path joined(const fs::path& folder) {
    std::vector<fs::path> parts{folder / "init.mp4"};
    for (const auto& u : read_playlist(folder / "index.m3u8").uris) parts.push_back(folder / u);
    const fs::path whole = folder.parent_path() / (folder.filename().string() + "-joined.mp4");
    concat_files(parts, whole);
    return whole;
}

// Where a fragmented track's presentation ends: its first packet's time
// (before 0 when an edit list hides the priming) plus how long its samples
// last. FFmpeg 5.1 and 7.1 agree on both; 7.1 reports the stream's
// start_time after the samples it skips, 5.1 before them.
double fragmented_audio_end(const fs::path& file) {
    const auto packets = ffprobe_json({"-select_streams", "a:0", "-show_packets", "-read_intervals", "%+#1",
                                       "-show_entries", "packet=pts_time"},
                                      file)["packets"];
    if (packets.empty()) throw std::runtime_error("no audio packet in " + file.string());
    return number(packets[0], "pts_time") + number(stream_of(file, "a:0"), "duration");
}

// Every AAC packet of the first audio stream but the last holds one whole
// frame: its successor starts 1024 samples later. A frame the encoder was
// given short in mid-stream (FFmpeg 7.1 refuses one: "frame_size (1024) was
// not respected for a non-last frame"; 5.1 encoded it padded) shows as a
// shorter step.
void expect_whole_aac_frames(const fs::path& file, int rate) {
    const auto packets =
        ffprobe_json({"-select_streams", "a:0", "-show_packets", "-show_entries", "packet=pts_time"}, file)["packets"];
    ASSERT_GT(packets.size(), 2u) << file;
    for (std::size_t i = 1; i + 1 < packets.size(); ++i) {
        const double step = number(packets[i], "pts_time") - number(packets[i - 1], "pts_time");
        ASSERT_NEAR(step * rate, 1024.0, 0.5) << file << ": packet " << i << " of " << packets.size();
    }
}

// S elements of the audio Representation whose init segment is `init`: [t, d].
std::vector<std::pair<long long, long long>> dash_timeline(const std::string& mpd, const std::string& init,
                                                           long long& timescale) {
    const auto at = mpd.find("initialization=\"" + init + "\"");
    if (at == std::string::npos) throw std::runtime_error("no SegmentTemplate for " + init);
    const auto open = mpd.rfind("<SegmentTemplate", at);
    const std::string tmpl = mpd.substr(open, mpd.find("</SegmentTemplate>", at) - open);
    std::smatch m;
    if (!std::regex_search(tmpl, m, std::regex(R"re(timescale="(\d+)")re"))) throw std::runtime_error("no timescale");
    timescale = std::stoll(m[1]);
    std::vector<std::pair<long long, long long>> out;
    long long now = 0;
    static const std::regex s_re(R"re(<S( t="(\d+)")? d="(\d+)"( r="(\d+)")? />)re");
    for (std::sregex_iterator it(tmpl.begin(), tmpl.end(), s_re), end; it != end; ++it) {
        const std::smatch& s = *it;
        if (s[2].matched) now = std::stoll(s[2]);
        const long long d = std::stoll(s[3]);
        for (long long r = 0; r <= (s[5].matched ? std::stoll(s[5]) : 0); ++r, now += d) out.push_back({now, d});
    }
    return out;
}

class AudioTiming : public ::testing::TestWithParam<Case> {};

TEST_P(AudioTiming, StartsAndEndsWithTheVideoInHlsDashAndMp4) {
    const Case& c = GetParam();
    const fs::path src = tone_source(c);
    const fs::path out = fresh_dir("audio-timing") / "out";
    const ProcessResult r = run_ladder({"encode", src.string(), "-o", out.string(), "--rung", "90p=160x90@150",
                                        "--segment-seconds", c.segment_seconds, "--preset", "12", "--format",
                                        "hls,dash,mp4", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const ProcessResult v = run_ladder({"validate", out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;

    const double frame = aac_frame(c.rate);
    const nlohmann::json video = stream_of(out / "90p.mp4", "v:0");
    const double video_end = number(video, "start_time") + number(video, "duration");
    ASSERT_GT(video_end, c.seconds - 0.1);
    const PlaylistLines video_playlist = read_playlist(out / "90p/index.m3u8");
    const std::string mpd = read_text(out / "manifest.mpd");

    std::vector<fs::path> renditions;
    for (const auto& e : fs::directory_iterator(out / "audio"))
        if (e.is_directory()) renditions.push_back(e.path());
    ASSERT_EQ(renditions.size(), c.channels > 2 ? 2u : 1u) << "a 5.1 source has a stereo and a 5.1 rendition";
    for (const fs::path& folder : renditions) {
        SCOPED_TRACE(folder.filename().string());
        const fs::path whole = joined(folder);
        EXPECT_EQ(number(stream_of(whole, "a:0"), "sample_rate"), c.rate);
        // The priming is not heard: the tone starts where the source has it.
        EXPECT_NEAR(tone_start(whole, "0:a:0"), kToneStart, frame / 2);
        // The padding is not presented: the audio ends with the last frame.
        EXPECT_NEAR(fragmented_audio_end(whole), video_end, 1e-3);
        expect_whole_aac_frames(whole, c.rate);

        // EXTINF: what each segment presents; the cuts within an AAC frame
        // of the video's (on the nearest frame boundary but at the end).
        const PlaylistLines audio = read_playlist(folder / "index.m3u8");
        ASSERT_EQ(audio.extinf.size(), video_playlist.extinf.size());
        double audio_at = 0, video_at = 0;
        for (std::size_t k = 0; k < audio.extinf.size(); ++k) {
            audio_at += audio.extinf[k];
            video_at += video_playlist.extinf[k];
            EXPECT_NEAR(audio_at, video_at, frame + 1e-3) << "segment " << k + 1;
        }
        EXPECT_NEAR(audio_at, video_end, 1e-3);

        // DASH: the same segments, from 0 to the video's end.
        long long timescale = 0;
        const auto timeline = dash_timeline(mpd, "audio/" + folder.filename().string() + "/init.mp4", timescale);
        ASSERT_EQ(timeline.size(), audio.extinf.size());
        EXPECT_EQ(timeline.front().first, 0);
        EXPECT_NEAR(static_cast<double>(timeline.back().first + timeline.back().second) / timescale, video_end,
                    1e-3);
    }

    // MP4: every audio track starts and ends with the video too.
    const auto streams = ffprobe_json({"-show_streams", "-select_streams", "a"}, out / "90p.mp4")["streams"];
    ASSERT_EQ(streams.size(), renditions.size());
    for (std::size_t i = 0; i < streams.size(); ++i) {
        SCOPED_TRACE("90p.mp4 audio " + std::to_string(i));
        EXPECT_NEAR(tone_start(out / "90p.mp4", "0:a:" + std::to_string(i)), kToneStart, frame / 2);
        EXPECT_NEAR(number(streams[i], "start_time") + number(streams[i], "duration"), video_end, 1e-3);
    }
    expect_whole_aac_frames(out / "90p.mp4", c.rate);
}

INSTANTIATE_TEST_SUITE_P(
    EveryAacRate, AudioTiming,
    ::testing::Values(Case{8000, 1, "25", 4.1, "2"},  // the issue's: 128 ms of priming
                      Case{11025, 2, "30000/1001", 4.1, "1.5"}, Case{16000, 1, "24000/1001", 5.0, "4"},
                      Case{22050, 1, "25", 4.0, "2"},  // the issue's repro: validate failed
                      Case{22050, 2, "30", 3.3, "1"}, Case{24000, 2, "25", 4.1, "1.5"},
                      Case{32000, 6, "25", 4.1, "2"}, Case{44100, 2, "30000/1001", 4.1, "2"},
                      Case{48000, 6, "24", 4.1, "1.5"}, Case{88200, 2, "25", 3.1, "1"},
                      Case{96000, 1, "30000/1001", 4.1, "4"},
                      // Audio that ends before the video: silence to its end.
                      Case{8000, 2, "30000/1001", 4.1, "1.5", -0.3}, Case{44100, 1, "25", 3.0, "2", -0.5},
                      Case{48000, 6, "25", 2.5, "1", -0.04}),
    case_name);

}  // namespace
}  // namespace ladder::test
