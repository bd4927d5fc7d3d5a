// Decode lanes (engine/source/decode_lanes.hpp): the source decoded in ranges
// between clean key frames, at once, gives byte for byte the frames of one
// pass, with the same numbers, and decodes each source packet once. Checked
// on containers and streams a user brings: MP4, Matroska and MPEG-TS with
// B-frames, a variable frame rate, and open GOPs (H.264, HEVC, MPEG-2),
// whose key frames' leading pictures the lane before the cut decodes.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <thread>
#include <stop_token>

#include "av/logging.hpp"
#include "engine/run/job.hpp"
#include "engine/source/decode_cuts.hpp"
#include "engine/source/decode_lanes.hpp"
#include "engine/source/source_info.hpp"
#include "engine/base/stage_threads.hpp"
#include "media_tools.hpp"

extern "C" {
#include <libavutil/hash.h>
#include <libavutil/imgutils.h>
}

namespace ladder::test {
namespace {

struct LaneSource {
    std::string name;
    std::string container;  // file extension
    std::string x264_params;
    std::string video_filter;  // after the lavfi source
    bool expect_cuts = true;
    std::string codec = "libx264";
    // Key frames with leading pictures: the lane before an open cut also
    // decodes its key frame, so up to one packet more per cut is read.
    bool open_gop = false;
};

std::filesystem::path make_lane_source(const LaneSource& s) {
    const auto dir = fresh_dir("decode-lanes-" + s.name);
    const auto path = dir / ("src." + s.container);
    std::vector<std::string> argv{"ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                                  "testsrc2=size=192x108:rate=25:duration=8,noise=alls=12:allf=t" + s.video_filter,
                                  "-c:v", s.codec, "-pix_fmt", "yuv420p", "-g", "23", "-bf", "3"};
    if (s.codec != "mpeg2video") {
        argv.push_back("-preset");
        argv.push_back("veryfast");
    }
    if (!s.x264_params.empty()) {
        argv.push_back(s.codec == "libx265" ? "-x265-params" : "-x264-params");
        argv.push_back(s.x264_params);
    }
    if (s.video_filter.find("setpts") != std::string::npos) {
        argv.push_back("-fps_mode");
        argv.push_back("passthrough");
    }
    argv.push_back("-y");
    argv.push_back(path.string());
    const ProcessResult r = run_process(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return path;
}

std::string frame_digest(const AVFrame* f) {
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(
        av_image_get_buffer_size(static_cast<AVPixelFormat>(f->format), f->width, f->height, 1)));
    av_image_copy_to_buffer(bytes.data(), static_cast<int>(bytes.size()), f->data, f->linesize,
                            static_cast<AVPixelFormat>(f->format), f->width, f->height, 1);
    AVHashContext* ctx = nullptr;
    av_hash_alloc(&ctx, "MD5");
    av_hash_init(ctx);
    av_hash_update(ctx, bytes.data(), bytes.size());
    char hex[64];
    av_hash_final_hex(ctx, reinterpret_cast<std::uint8_t*>(hex), sizeof hex);
    av_hash_freep(&ctx);
    return hex;
}

struct Decoded {
    std::map<std::int64_t, std::string> frames;  // number -> digest
    engine::PumpCounters totals;
    int lanes = 0;
    int duplicates = 0;
};

Decoded decode(const std::filesystem::path& path, const std::vector<std::int64_t>& cuts) {
    auto input = engine::open_source(path);
    const engine::SourceInfo src = engine::describe_source(*input);
    engine::NullProgressSink progress;
    // Channels large enough for the whole clip: read after the lanes end.
    engine::DecodeLanes lanes(*input, src, cuts, 1, 1000, nullptr, progress, {}, !cuts.empty());
    {
        engine::StageThreads stages{std::stop_token{}};
        lanes.start(stages);
        stages.join();
        if (auto failure = stages.failure()) std::rethrow_exception(failure);
    }
    Decoded d;
    d.lanes = lanes.size();
    for (int lane = 0; lane < lanes.size(); ++lane)
        while (auto f = lanes.channel(lane, 0).pop(std::stop_token{}))
            if (!d.frames.emplace((*f)->pts, frame_digest(f->get())).second) ++d.duplicates;
    d.totals = lanes.totals();
    return d;
}

class DecodeLanesTest : public ::testing::TestWithParam<LaneSource> {};

TEST_P(DecodeLanesTest, LanesGiveTheFramesOfOnePassByteForByte) {
    av::quiet_library_logs();
    const LaneSource& s = GetParam();
    const auto path = make_lane_source(s);
    const auto input = engine::open_source(path);
    const engine::SourceInfo src = engine::describe_source(*input);
    const std::vector<std::int64_t> cuts = engine::find_decode_cuts(path.string(), src.video_stream, 4, 1.0);
    if (s.expect_cuts) {
        ASSERT_GE(cuts.size(), 2u) << "clean key frames every 23 frames in 8 s";
    } else {
        EXPECT_TRUE(cuts.empty()) << "no key frame a decoder can start at";
    }

    const Decoded one = decode(path, {});
    const Decoded lanes = decode(path, cuts);
    EXPECT_EQ(lanes.lanes, static_cast<int>(cuts.size()) + 1);
    EXPECT_EQ(lanes.duplicates, 0);
    ASSERT_EQ(lanes.frames.size(), one.frames.size());
    EXPECT_EQ(lanes.frames.begin()->first, 0);
    EXPECT_EQ(lanes.frames.rbegin()->first, static_cast<std::int64_t>(one.frames.size()) - 1) << "no gap";
    int differ = 0;
    for (const auto& [n, digest] : one.frames)
        if (lanes.frames.at(n) != digest) ++differ;
    EXPECT_EQ(differ, 0) << "frames whose pixels differ from one pass";
    const auto open_cuts = static_cast<std::int64_t>(s.open_gop ? cuts.size() : 0);
    EXPECT_GE(lanes.totals.video_packets, one.totals.video_packets) << "each packet read by one lane";
    EXPECT_LE(lanes.totals.video_packets, one.totals.video_packets + open_cuts) << "each packet read by one lane";
    EXPECT_GE(lanes.totals.frames_decoded, one.totals.frames_decoded) << "each frame decoded once";
    EXPECT_LE(lanes.totals.frames_decoded, one.totals.frames_decoded + open_cuts) << "each frame decoded once";
    EXPECT_EQ(lanes.totals.damaged, 0) << "no lane decoded a picture without what it refers to";
}

INSTANTIATE_TEST_SUITE_P(
    Containers, DecodeLanesTest,
    ::testing::Values(LaneSource{"mp4", "mp4", "", "", true}, LaneSource{"mkv", "mkv", "", "", true},
                      LaneSource{"ts", "ts", "", "", true},
                      // Timestamps off the frame grid: the constant-rate step
                      // repeats and drops frames the same way in every lane.
                      LaneSource{"vfr", "mkv", "", ",setpts='N/25/TB+if(eq(mod(N\\,7)\\,3)\\,0.019/TB\\,0)+if(gt(N\\,100)\\,0.4/TB\\,0)'", true},
                      // Leading pictures after key frames that reference the
                      // frames before (open GOPs): the lane before such a cut
                      // decodes them. H.264 with recovery points, HEVC's CRA
                      // pictures with RASL ones (x265's default), MPEG-2 in
                      // a transport stream (broadcast).
                      LaneSource{"open-gop", "mkv", "open-gop=1", "", true, "libx264", true},
                      LaneSource{"open-gop-mp4", "mp4", "open-gop=1", "", true, "libx264", true},
                      LaneSource{"hevc-cra", "mp4", "log-level=error:keyint=23:min-keyint=23:open-gop=1", "", true,
                                 "libx265", true},
                      LaneSource{"mpeg2-ts", "ts", "", "", true, "mpeg2video", true},
                      // x264's intra refresh in a transport stream: the parser
                      // flags every recovery point "key", but a decoder that
                      // starts there shows nothing until the refresh has gone
                      // round: no cut (a lane from there lost its first frames
                      // and the run failed).
                      LaneSource{"intra-refresh-ts", "ts", "intra-refresh=1", "", false}),
    [](const ::testing::TestParamInfo<LaneSource>& info) {
        std::string n = info.param.name;
        for (char& c : n)
            if (c == '-') c = '_';
        return n;
    });

// Lanes that start while the decode runs (what the run does when its
// encoders wait for frames): the first lane is held back by a full channel,
// two more lanes take the far halves of what it has not read, and together
// they still give the frames of one pass, each once.
class DecodeLanesGrow : public ::testing::TestWithParam<LaneSource> {};

TEST_P(DecodeLanesGrow, LanesStartedWhileDecodingTakeOverTheRestExactly) {
    av::quiet_library_logs();
    const auto path = make_lane_source(GetParam());
    const Decoded one = decode(path, {});
    auto input = engine::open_source(path);
    const engine::SourceInfo src = engine::describe_source(*input);
    engine::NullProgressSink progress;
    engine::DecodeLanes lanes(*input, src, {}, 1, 4, nullptr, progress, {}, true);
    std::mutex mu;
    std::map<std::int64_t, std::string> frames;
    int duplicates = 0;
    auto drain = [&](engine::FrameChannel& channel) {
        return std::jthread([&channel, &mu, &frames, &duplicates] {
            while (auto f = channel.pop(std::stop_token{})) {
                const std::string digest = frame_digest(f->get());
                std::lock_guard lock(mu);
                if (!frames.emplace((*f)->pts, digest).second) ++duplicates;
            }
        });
    };
    std::vector<std::jthread> drains;
    int added = 0;
    int started = 0;
    {
        engine::StageThreads stages{std::stop_token{}};
        lanes.start(stages);
        for (int i = 0; i < 2; ++i)
            EXPECT_TRUE(lanes.grow(stages, 1.0, [&] { ++added; },
                                   [&](int lane) {
                                       ++started;
                                       drains.push_back(drain(lanes.channel(lane, 0)));
                                   }));
        drains.push_back(drain(lanes.channel(0, 0)));
        stages.join();
        ASSERT_FALSE(stages.failure());
    }
    drains.clear();
    EXPECT_EQ(added, 2);
    EXPECT_EQ(started, 2);
    ASSERT_EQ(lanes.size(), 3);
    EXPECT_TRUE(lanes.all_read());
    EXPECT_EQ(duplicates, 0);
    ASSERT_EQ(frames.size(), one.frames.size());
    int differ = 0;
    for (const auto& [n, digest] : one.frames)
        if (frames.at(n) != digest) ++differ;
    EXPECT_EQ(differ, 0);
    EXPECT_GE(lanes.totals().frames_decoded, one.totals.frames_decoded) << "each frame decoded once";
    EXPECT_LE(lanes.totals().frames_decoded, one.totals.frames_decoded + (GetParam().open_gop ? 2 : 0))
        << "each frame decoded once (an open cut's key frame twice)";
    int ending = 0;
    for (int lane = 0; lane < 3; ++lane) ending += lanes.ends_source(lane)() ? 1 : 0;
    EXPECT_EQ(ending, 1) << "one lane ends with the source";
}

INSTANTIATE_TEST_SUITE_P(ClosedAndOpen, DecodeLanesGrow,
                         ::testing::Values(LaneSource{"grow", "mp4", "", "", true},
                                           LaneSource{"grow-open", "mp4", "open-gop=1", "", true, "libx264", true}),
                         [](const ::testing::TestParamInfo<LaneSource>& info) {
                             return info.param.open_gop ? std::string("open") : std::string("closed");
                         });

// A whole run on three lanes: every rung has every frame, the chunks are
// those of one pass (a lane boundary inside a chunk is joined), the audio
// read on its own has every packet, and the ladder validates.
TEST(DecodeLanesRun, AnEncodeOnThreeLanesMatchesOnePass) {
    av::quiet_library_logs();
    const auto src = make_lane_source(LaneSource{"run", "mp4", "", "", true});
    const auto with_audio = fresh_dir("decode-lanes-run-audio") / "src.mp4";
    const ProcessResult mux = run_process({"ffmpeg", "-hide_banner", "-loglevel", "error", "-i", src.string(), "-f",
                                           "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=8", "-c:v",
                                           "copy", "-c:a", "aac", "-shortest", "-y", with_audio.string()});
    ASSERT_EQ(mux.exit_code, 0) << mux.err;
    const FileFacts sf = probe(with_audio);
    ASSERT_EQ(sf.video.size(), 1u);

    auto run = [&](int decoders, const std::string& name, int max_decoders = 0) {
        engine::JobOptions o;
        o.input = with_audio;
        o.outdir = fresh_dir(name);
        o.ladder = engine::LadderSpec{{{"a", 192, 108, 300, 0, 0}, {"b", 128, 72, 150, 0, 0}}};
        o.preset = 12;
        o.cpu_slots = 2;
        o.segment_seconds = 1.0;
        o.decoders = decoders;
        o.max_decoders = max_decoders;
        engine::NullProgressSink sink;
        return std::pair(engine::run_job(o, sink), o.outdir);
    };
    const auto [one, one_dir] = run(1, "decode-lanes-run-1");
    const auto [three, three_dir] = run(3, "decode-lanes-run-3");

    ASSERT_EQ(three.decode_lanes.size(), 3u);
    std::int64_t next = 0;
    for (const auto& lane : three.decode_lanes) {
        EXPECT_EQ(lane.first_frame, next) << "lane " << lane.lane;
        EXPECT_GT(lane.end_frame, lane.first_frame);
        next = lane.end_frame;
    }
    EXPECT_EQ(next, sf.video[0].frames);
    EXPECT_EQ(three.source_video_packets, sf.video[0].packets) << "each packet read once";
    EXPECT_EQ(three.source_frames_decoded, sf.video[0].frames) << "each frame decoded once";
    EXPECT_EQ(three.audio_packets, one.audio_packets);
    ASSERT_EQ(three.rungs.size(), 2u);
    for (std::size_t r = 0; r < 2; ++r) {
        EXPECT_EQ(three.rungs[r].frames, sf.video[0].frames);
        EXPECT_EQ(three.rungs[r].chunks, one.rungs[r].chunks);
    }
    EXPECT_EQ(three.chunks.size(), one.chunks.size());
    for (const auto& c : three.chunks) {
        EXPECT_EQ(c.first_frame, c.index * 25);
        EXPECT_EQ(c.frames, std::min<std::int64_t>(25, sf.video[0].frames - c.index * 25));
    }
    const FileFacts out = probe(three_dir / "a" / "index.m3u8");
    ASSERT_EQ(out.video.size(), 1u);
    EXPECT_EQ(out.video[0].frames, sf.video[0].frames);
    const ProcessResult v = run_ladder({"validate", three_dir.string()});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;

    // Lanes the run may start while it goes (how many depends on when the
    // encoders wait): the audio is read on its own from the start.
    const auto [grown, grown_dir] = run(0, "decode-lanes-run-grown", 3);
    EXPECT_GE(grown.decode_lanes.size(), 1u);
    EXPECT_LE(grown.decode_lanes.size(), 3u);
    EXPECT_EQ(grown.source_frames_decoded, sf.video[0].frames);
    EXPECT_EQ(grown.audio_packets, one.audio_packets);
    for (std::size_t r = 0; r < 2; ++r) EXPECT_EQ(grown.rungs[r].frames, sf.video[0].frames);
    const ProcessResult vg = run_ladder({"validate", grown_dir.string()});
    EXPECT_EQ(vg.exit_code, 0) << vg.out << vg.err;
}

}  // namespace
}  // namespace ladder::test
