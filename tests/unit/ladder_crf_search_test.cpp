// LadderCrfSearch: the ladder's rungs searched together, led by the
// smallest; and the cost of the whole search replayed on measured ladders.
#include "engine/rung/rung_crf_search.hpp"

#include "tests/unit/crf_search_replay.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace ladder::engine {
namespace {

using namespace crf_replay;

TEST(LadderCrfSearch, TheSmallestRungEncodesAloneUntilItsCrfIsNearThenEveryRungPlansFromItsSizes) {
    LadderCrfSearch search({{2500, 1280 * 720}, {600, 640 * 360}, {1200, 960 * 540}}, 25);
    EXPECT_FALSE(search.searching(0));
    EXPECT_TRUE(search.searching(1));
    EXPECT_FALSE(search.searching(2));
    // 360p: 4 s at CRF 40 makes 150 kb/s (it asks CRF 20), at CRF 20 300
    // (it asks CRF 10): its second pass still moved its CRF by 10, more
    // than kLeadNearMove, so the others wait for a lead nearer its CRF.
    search.record(1, {18750, 18750, 18750, 18750}, even_frames(4, 100));
    EXPECT_FALSE(search.searching(0));
    EXPECT_EQ(search.rung(1).choice().crf, 20);
    search.record(1, {37500, 37500, 37500, 37500}, even_frames(4, 100));
    EXPECT_EQ(search.rung(1).choice().crf, 10);
    EXPECT_EQ(search.rung(1).last_move(), 10);
    EXPECT_FALSE(search.searching(0));
    EXPECT_FALSE(search.searching(2));
    // At CRF 10 it makes 600: settled, it hands over to 540p; 720p, the
    // largest of three, waits for 540p's first encode and plans from its
    // sizes (times 720p's pixels over 540p's to the 0.84).
    search.record(1, {75000, 75000, 75000, 75000}, even_frames(4, 100));
    ASSERT_TRUE(search.rung(1).crf_found());
    EXPECT_FALSE(search.searching(0));
    EXPECT_FALSE(search.searching(1));
    EXPECT_TRUE(search.searching(2));
    EXPECT_EQ(search.rung(2).choice().crf, 10) << "1190 kb/s predicted from 600 x 2.25^0.84 at CRF 10";
    search.record(0, {1, 1, 1, 1}, even_frames(4, 100));
    EXPECT_EQ(search.rung(0).trials(), 0) << "a rung that waits records nothing";
    // 540p makes 2400 kb/s at its CRF: 720p's first plan takes 540p's
    // sizes, not the lead's (which say 720p makes 3.4x less there).
    search.record(2, {300000, 300000, 300000, 300000}, even_frames(4, 100));
    ASSERT_TRUE(search.searching(0));
    const int from_540p = search.rung(0).choice().crf;
    LadderCrfSearch lead_only({{2500, 1280 * 720}, {600, 640 * 360}}, 25);
    for (std::int64_t b : {18750, 37500, 75000}) lead_only.record(1, {b, b, b, b}, even_frames(4, 100));
    EXPECT_GT(from_540p, lead_only.rung(0).choice().crf + 4) << "planned from 540p's 2x overshoot";
    // A lead whose second pass moves its CRF by 4 or less hands over then,
    // still searching itself: 150 kb/s at CRF 40, 480 at CRF 20 (it asks
    // a CRF 3 lower).
    LadderCrfSearch near({{2500, 1280 * 720}, {600, 640 * 360}}, 25);
    near.record(1, {18750, 18750, 18750, 18750}, even_frames(4, 100));
    near.record(1, {60000, 60000, 60000, 60000}, even_frames(4, 100));
    ASSERT_FALSE(near.rung(1).crf_found());
    EXPECT_LE(near.rung(1).last_move(), LadderCrfSearch::kLeadNearMove);
    EXPECT_TRUE(near.searching(0));
    EXPECT_TRUE(near.searching(1));
    // A lead that settles at once hands over at once: at CRF 40 it made
    // 600 kb/s, so 720p is predicted at 600 x 4^0.84 = 1922 kb/s there,
    // and at 2536 (in the band of 2500) four steps lower with the one
    // slope a single encode has.
    LadderCrfSearch quick({{2500, 1280 * 720}, {600, 640 * 360}}, 25);
    quick.record(1, {75000, 75000, 75000, 75000}, even_frames(4, 100));  // 600 kb/s at CRF 40
    ASSERT_TRUE(quick.rung(1).settled());
    EXPECT_TRUE(quick.searching(0));
    EXPECT_EQ(quick.rung(0).choice().crf, 36);
    EXPECT_EQ(quick.rung(0).crf_of(3), 36);
    // A rung that waits records nothing.
    LadderCrfSearch waiting({{2500, 1280 * 720}, {600, 640 * 360}}, 25);
    waiting.record(0, {1, 1, 1, 1}, even_frames(4, 100));
    EXPECT_EQ(waiting.rung(0).trials(), 0);
}

// Content whose size falls twice as fast with CRF as the one slope a
// search assumes for a chunk made once, and a big rung that makes twice
// what the pixels' rule predicts from the lead (its first encode misses):
// led by a lead that has measured that fall, it takes it over and lands
// with its second encode; the same rung alone needs more.
TEST(LadderCrfSearch, ARungTakesTheLeadsFallWithCrfForChunksItMadeOnce) {
    const Chunks lead{{1, 3, 1, 0.5}, {2, 2, 2, 2}, 600 * std::exp(0.14 * 40), 0.14};
    const Chunks big{{1, 3, 1, 0.5}, {2, 2, 2, 2}, 8000 * std::exp(0.14 * 40), 0.14};
    const double target = 8000 * std::exp(-0.14 * 6);  // at CRF 46
    LadderCrfSearch search({{target, 1920 * 1080}, {600, 640 * 360}}, 25);
    for (int pass = 0; pass < 20 && !search.settled(); ++pass) {
        const bool big_searches = search.searching(0);
        const bool lead_searches = search.searching(1);
        if (lead_searches) search.record(1, lead.bytes(search.rung(1)), lead.frames());
        if (big_searches) search.record(0, big.bytes(search.rung(0)), big.frames());
    }
    ASSERT_TRUE(search.settled());
    EXPECT_EQ(search.rung(0).choice().verdict, CrfVerdict::on_target) << crf_verdict_name(search.rung(0).choice().verdict);
    EXPECT_EQ(search.rung(0).trials(), 2);
    RungCrfSearch alone(target, 25);
    search_to_the_end(alone, big);
    EXPECT_GT(alone.trials(), search.rung(0).trials());
}

// The lead hands its CRF over once: when it records first in a later pass,
// a rung that encoded in that pass at the CRF handed over keeps it until
// it records.
TEST(LadderCrfSearch, TheLeadsLaterPassesDoNotMoveAnotherRungsCrf) {
    LadderCrfSearch search({{600, 640 * 360}, {1200, 960 * 540}}, 25);
    // Its rate falls a little faster with CRF than the search first
    // assumes (600 kb/s at CRF 28): its second pass asks a CRF near the
    // one it made, which it has yet to encode.
    const Chunks lead{{1, 1, 1.2, 1, 1}, {2, 2, 2, 2, 2}, 600 * std::exp(0.08 * 28), 0.08};
    while (!search.searching(1)) search.record(0, lead.bytes(search.rung(0)), lead.frames());
    ASSERT_FALSE(search.rung(0).settled()) << "the lead must still need a pass";
    const int asked = search.rung(1).choice().crf;
    search.record(0, lead.bytes(search.rung(0)), lead.frames());
    EXPECT_EQ(search.rung(1).choice().crf, asked);
    EXPECT_EQ(search.rung(1).trials(), 0);
}

// The ladder's search on the measured curves: the smallest rung encodes
// twice first, the others start at the CRF it found or predicts. Cost in 1080p-rung encodes
// (a rung's encode costs its pixels); the four rungs are 1920x1080,
// 1280x720, 960x540, 640x360.
TEST(LadderCrfSearch, TheMeasuredLaddersSettleLedByTheirSmallestRungAtLessCostThanAlone) {
    auto rungs = measured_rungs();
    add_mixed_rungs(rungs);
    const std::vector<std::pair<std::string, std::int64_t>> sizes{
        {"1080p", 1920 * 1080}, {"720p", 1280 * 720}, {"540p", 960 * 540}, {"360p", 640 * 360}};
    double led_cost = 0, alone_cost = 0, mixed_cost = 0;
    int capped = 0;
    int total_passes = 0;
    for (const char* clip : {"automaton", "black-hold", "dips", "film-grain", "scene-cuts", "talking-head", "mixed"}) {
        SCOPED_TRACE(clip);
        std::vector<LadderCrfSearch::Rung> spec;
        std::vector<const MeasuredRung*> measured;
        for (const auto& [name, pixels] : sizes) {
            measured.push_back(&rungs.at(std::string(clip) + " " + name));
            spec.push_back({measured.back()->target_kbps, pixels});
        }
        const double fps = 25;  // the search needs only seconds
        LadderCrfSearch search(spec, fps);
        int passes = 0;
        while (!search.settled() && passes < 20) {
            ++passes;
            std::vector<bool> searched(search.size());
            for (std::size_t i = 0; i < search.size(); ++i) searched[i] = search.searching(i);
            for (std::size_t i = 0; i < search.size(); ++i)
                if (searched[i]) {
                    if (std::getenv("CRF_SEARCH_TRACE") && std::string(clip) == std::getenv("CRF_SEARCH_TRACE")) {
                        std::printf("pass %d %s asks:", passes, sizes[i].first.c_str());
                        for (std::size_t k = 0; k < measured[i]->chunk_seconds.size(); ++k) std::printf(" %d", search.rung(i).crf_of(k));
                        std::printf("\n");
                    }
                    search.record(i, encode_as_asked(*measured[i], search.rung(i)), frames_at(*measured[i], fps));
                }
        }
        ASSERT_TRUE(search.settled());
        total_passes += passes;
        for (std::size_t i = 0; i < search.size(); ++i) {
            SCOPED_TRACE(sizes[i].first);
            const CrfChoice& c = search.rung(i).choice();
            EXPECT_LE(c.kbps, spec[i].target_kbps * 1.05);
            if (c.verdict != CrfVerdict::at_ceiling) {
                EXPECT_GE(c.kbps, spec[i].target_kbps * 0.95);
            }
            // Peaks: every segment at most 1.95x the average (2x with a
            // margin for rounding), from the sizes at the settled CRFs.
            const double peak = peak_over_average(*measured[i], c.chunk_crf);
            EXPECT_LE(peak, RungCrfSearch::kPeakLimit + 1e-3);
            EXPECT_NEAR(peak, search.rung(i).peak_ratio(), 1e-3);
            capped += search.rung(i).peak_capped();
            led_cost += search.rung(i).encoded_rungs() * static_cast<double>(spec[i].pixels) / (1920 * 1080);
            if (std::string(clip) == "mixed")
                mixed_cost += search.rung(i).encoded_rungs() * static_cast<double>(spec[i].pixels) / (1920 * 1080);
            // The same rung searched alone from CRF 40.
            RungCrfSearch alone(spec[i].target_kbps, fps);
            while (!alone.settled())
                alone.record(encode_as_asked(*measured[i], alone), frames_at(*measured[i], fps));
            alone_cost += alone.encoded_rungs() * static_cast<double>(spec[i].pixels) / (1920 * 1080);
            if (std::getenv("CRF_SEARCH_PRINT"))
                std::printf("%s %s: %.2f encodes led (CRF %d, %s, %.0f kb/s, peak %.2f, %d capped), %.2f alone (CRF %d)\n",
                            clip, sizes[i].first.c_str(), search.rung(i).encoded_rungs(), c.crf,
                            crf_verdict_name(c.verdict), c.kbps, peak, search.rung(i).peak_capped(), alone.encoded_rungs(),
                            alone.choice().crf);
        }
    }
    std::printf("[ metric   ] measured ladders: %.2f 1080p-encodes led by the smallest rung (%.2f of them the mixed "
                "ladder's), %.2f alone; %d passes; %d chunks capped for their peaks\n",
                led_cost, mixed_cost, alone_cost, total_passes, capped);
    EXPECT_LT(led_cost, alone_cost);
}

}  // namespace
}  // namespace ladder::engine
