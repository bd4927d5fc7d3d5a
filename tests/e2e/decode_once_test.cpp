// The source is demuxed and decoded exactly once, whatever the number of
// rungs: the engine's own counters are compared with what ffprobe counts in
// the source, and every rung's output with the same number.
#include <gtest/gtest.h>

#include "av/logging.hpp"
#include "engine/run/job.hpp"
#include "media_tools.hpp"

namespace ladder::test {
namespace {

TEST(DecodeOnce, FourRungsReadAndDecodeTheSourceOnce) {
    av::quiet_library_logs();
    const auto src = make_clip("once", {320, 240, "25", 2.0, true, ""});
    const auto out = fresh_dir("decode-once");
    FileFacts sf = probe(src);
    ASSERT_EQ(sf.video.size(), 1u);

    engine::JobOptions o;
    o.input = src;
    o.outdir = out;
    o.ladder = engine::LadderSpec{{{"a", 320, 240, 400, 0, 0},
                                   {"b", 256, 192, 300, 0, 0},
                                   {"c", 160, 120, 200, 0, 0},
                                   {"d", 96, 72, 100, 0, 0}}};
    o.preset = 12;
    o.cpu_slots = 2;
    o.segment_seconds = 0.5;
    o.formats = {engine::OutputFormat::mp4};
    engine::NullProgressSink sink;
    engine::JobReport report = engine::run_job(o, sink);

    EXPECT_EQ(report.source_video_packets, sf.video[0].packets) << "each source packet demuxed once";
    EXPECT_EQ(report.source_frames_decoded, sf.video[0].frames) << "each source frame decoded once";
    EXPECT_EQ(report.frames_normalized, sf.video[0].frames);
    ASSERT_EQ(report.rungs.size(), 4u);
    for (const auto& r : report.rungs) {
        EXPECT_EQ(r.frames, sf.video[0].frames) << r.name;
        EXPECT_EQ(r.chunks, 4) << r.name;
        EXPECT_EQ(probe(r.output).video[0].frames, sf.video[0].frames) << r.name;
    }
    // 0.5 s at 25 fps rounds to 13-frame chunks; chunk k covers the same
    // frames in every rung: [13k, 13k + 13), the last one shorter.
    ASSERT_EQ(report.chunks.size(), 16u);
    for (const auto& c : report.chunks) {
        EXPECT_EQ(c.first_frame, c.index * 13);
        EXPECT_EQ(c.frames, c.index < 3 ? 13 : sf.video[0].frames - 39);
    }
}

}  // namespace
}  // namespace ladder::test
