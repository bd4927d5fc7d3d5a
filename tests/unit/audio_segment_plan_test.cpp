// Where the audio of an output ends and where an audio rendition's segments
// are cut (engine/media/audio_segment_plan.hpp, issue 41): on the AAC frame
// boundary nearest each video boundary, at every rate, the last frame cut at
// the video's end.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <stdexcept>
#include <utility>

#include "av/handles.hpp"
#include "engine/base/errors.hpp"
#include "engine/media/audio_segment_plan.hpp"

namespace ladder::engine {
namespace {

constexpr std::int64_t kFrame = 1024;

// An encoder's frames: the priming at -1024, then one every 1024 samples,
// covering `samples` of audio.
std::vector<AacFrame> frames_for(std::int64_t samples) {
    std::vector<AacFrame> out;
    for (std::int64_t pts = -kFrame; pts < samples; pts += kFrame) out.push_back({pts, kFrame});
    return out;
}

// The frames an output of the video's length keeps, clipped at its end.
std::vector<AacFrame> clipped(std::vector<AacFrame> frames, std::int64_t video_end) {
    std::vector<AacFrame> out;
    for (const auto& f : frames) {
        av::PacketPtr pkt = av::make_packet();
        pkt->pts = f.pts;
        pkt->duration = f.duration;
        if (!clip_to_video_end(pkt.get(), video_end)) break;
        out.push_back({pkt->pts, pkt->duration});
    }
    return out;
}

std::int64_t end_of(const std::vector<AacFrame>& frames, std::size_t first, std::size_t end) {
    return end > first ? frames[end - 1].pts + frames[end - 1].duration : 0;
}

TEST(ClipToVideoEnd, KeepsWhatStartsBeforeTheEndAndCutsTheFrameAcrossIt) {
    av::PacketPtr pkt = av::make_packet();
    pkt->pts = 87040;
    pkt->duration = kFrame;
    EXPECT_TRUE(clip_to_video_end(pkt.get(), 90000));
    EXPECT_EQ(pkt->duration, kFrame) << "ends before the video";
    pkt->pts = 88064;
    EXPECT_TRUE(clip_to_video_end(pkt.get(), 88200));
    EXPECT_EQ(pkt->duration, 136) << "22050 Hz, 4 s: the last frame holds 136 samples of the video's";
    pkt->pts = 88200;
    pkt->duration = kFrame;
    EXPECT_FALSE(clip_to_video_end(pkt.get(), 88200)) << "starts at the end: not part of the output";
}

TEST(PlanAudioSegments, CutsOnTheFrameBoundaryNearestEachVideoBoundary) {
    // 22050 Hz, 2 s segments of a 4 s video (the repro): the video
    // boundary is at 44100; frames start at 43008 and 44032: 44032 is nearer.
    const auto frames = clipped(frames_for(88200), 88200);
    const auto first = plan_audio_segments(frames, {44100});
    ASSERT_EQ(first.size(), 2u);
    EXPECT_EQ(first[0], 0u) << "the priming frame opens the first segment";
    EXPECT_EQ(frames[first[1]].pts, 44032);
    EXPECT_EQ(end_of(frames, first[1], frames.size()), 88200) << "the audio ends with the video";
}

TEST(PlanAudioSegments, EveryCutIsWithinHalfAFrameAtEveryRateAndFrameRate) {
    for (int rate : {8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000})
        for (const auto& fps : std::initializer_list<std::pair<std::int64_t, std::int64_t>>{
                 {25, 1}, {30000, 1001}, {24000, 1001}, {24, 1}})
            for (double segment : {1.0, 1.5, 2.0, 4.0}) {
                // Plain variables, not a structured binding: the lambda below
                // captures them, which clang 14 (the sanitizer builds) refuses
                // for bindings.
                const std::int64_t num = fps.first;
                const std::int64_t den = fps.second;
                SCOPED_TRACE(::testing::Message() << rate << " Hz, " << num << "/" << den << " fps, " << segment << " s");
                const std::int64_t chunk_frames = std::lround(segment * num / den);
                const std::int64_t video_frames = 7 * chunk_frames / 2 + 3;  // not a whole number of segments
                auto samples = [&](std::int64_t f) { return (f * den * rate + num / 2) / num; };
                std::vector<std::int64_t> cuts;
                for (std::int64_t f = chunk_frames; f < video_frames; f += chunk_frames) cuts.push_back(samples(f));
                const std::int64_t video_end = samples(video_frames);
                const auto frames = clipped(frames_for(video_end + 3000), video_end);
                const auto first = plan_audio_segments(frames, cuts);
                ASSERT_EQ(first.size(), cuts.size() + 1);
                for (std::size_t k = 0; k < cuts.size(); ++k) {
                    const std::int64_t cut = frames[first[k + 1]].pts;
                    EXPECT_LE(std::abs(cut - cuts[k]), kFrame / 2) << "segment " << k + 1;
                }
                EXPECT_EQ(end_of(frames, first.back(), frames.size()), video_end);
            }
}

TEST(PlanAudioSegments, ALastVideoSegmentShorterThanHalfAFrameStillGetsTheLastFrame) {
    // 8 kHz (128 ms frames), 2 s segments, a video of 2.04 s: the last video
    // segment (40 ms) holds no frame's middle.
    const auto frames = clipped(frames_for(16320), 16320);
    const auto first = plan_audio_segments(frames, {16000});
    ASSERT_EQ(first.size(), 2u);
    EXPECT_EQ(first[1], frames.size() - 1);
    EXPECT_EQ(frames[first[1]].pts, 15360) << "a frame early: the one across the video's end";
    EXPECT_EQ(end_of(frames, first[1], frames.size()), 16320);
}

TEST(PlanAudioSegments, RefusesVideoSegmentsShorterThanAFrame) {
    // 8 kHz, segments of one frame at 25 fps (40 ms): most would hold no AAC frame.
    const auto frames = clipped(frames_for(8000), 8000);
    std::vector<std::int64_t> cuts;
    for (std::int64_t c = 320; c < 8000; c += 320) cuts.push_back(c);
    EXPECT_THROW(plan_audio_segments(frames, cuts), std::invalid_argument);
    EXPECT_THROW(plan_audio_segments({}, {}), std::invalid_argument);
}

// Checked before anything is encoded (exit 2): a segment shorter than one
// AAC frame of any rendition, at the frame where the plan above would find
// a segment without audio.
AudioRenditionSpec rendition_at(int sample_rate) {
    AudioRenditionSpec r;
    r.ordinal = 1;
    r.name = "English";
    r.sample_rate = sample_rate;
    return r;
}

TEST(SegmentsHoldAacFrames, ASegmentShorterThanAFrameIsRefusedWithTheShortestThatWorks) {
    // 8 kHz: a frame is 128 ms; at 25 fps three frames (120 ms) are too few, four (160 ms) enough.
    try {
        check_segments_hold_aac_frames({rendition_at(8000)}, 3, AVRational{25, 1});
        FAIL() << "three frames at 25 fps are shorter than an AAC frame at 8 kHz";
    } catch (const InputError& e) {
        EXPECT_STREQ(e.what(),
                     "audio track 1 (\"English\", AAC at 8000 Hz): segments of 3 frames (120 ms) are shorter than one "
                     "AAC frame (128 ms), so some segment would have no audio: use --segment-seconds 0.160 or "
                     "longer, or --audio none");
    }
    EXPECT_NO_THROW(check_segments_hold_aac_frames({rendition_at(8000)}, 4, AVRational{25, 1}));
}

TEST(SegmentsHoldAacFrames, TheBoundIsExactAtEveryRateAndFrameRate) {
    for (int rate : {7350, 8000, 11025, 16000, 22050, 44100, 48000, 96000})
        for (const AVRational fps : {AVRational{25, 1}, AVRational{30000, 1001}, AVRational{60, 1}, AVRational{1, 1}})
            for (std::int64_t frames = 1; frames < 8; ++frames) {
                const bool enough = static_cast<double>(frames) * fps.den / fps.num * rate >= 1024.0;
                if (enough)
                    EXPECT_NO_THROW(check_segments_hold_aac_frames({rendition_at(rate)}, frames, fps))
                        << rate << " Hz, " << fps.num << "/" << fps.den << ", " << frames;
                else
                    EXPECT_THROW(check_segments_hold_aac_frames({rendition_at(rate)}, frames, fps), InputError)
                        << rate << " Hz, " << fps.num << "/" << fps.den << ", " << frames;
            }
}

TEST(SegmentsHoldAacFrames, EveryRenditionIsCheckedAndAnUnknownRateIsLeftToThePlan) {
    EXPECT_THROW(check_segments_hold_aac_frames({rendition_at(48000), rendition_at(8000)}, 3, AVRational{25, 1}),
                 InputError);
    EXPECT_NO_THROW(check_segments_hold_aac_frames({rendition_at(0)}, 1, AVRational{25, 1}));
    EXPECT_NO_THROW(check_segments_hold_aac_frames({}, 1, AVRational{25, 1}));
}

}  // namespace
}  // namespace ladder::engine
