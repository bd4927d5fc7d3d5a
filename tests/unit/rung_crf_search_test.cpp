#include "engine/rung/rung_crf_search.hpp"

#include "tests/unit/crf_search_replay.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ladder::engine {
namespace {

using namespace crf_replay;

// 4 chunks of 2 s at 25 fps, each making kbps.
std::vector<std::int64_t> even_bytes(double kbps) {
    const auto per_chunk = static_cast<std::int64_t>(kbps * 1000 / 8 * 2);
    return {per_chunk, per_chunk, per_chunk, per_chunk};
}

const std::vector<std::int64_t> kFourChunks{50, 50, 50, 50};

TEST(RungCrfSearch, NoEncodeYetAsksForTheFirstGuessWithinTheRange) {
    EXPECT_EQ(RungCrfSearch(1000, 25).choice().crf, 40);
    EXPECT_EQ(RungCrfSearch(1000, 25, 3).choice().crf, kCeilingCrf);
    EXPECT_EQ(RungCrfSearch(1000, 25, 70).choice().crf, kMaxCrf);
    EXPECT_EQ(RungCrfSearch(1000, 25).choice().verdict, CrfVerdict::encode_next);
}

TEST(RungCrfSearch, AnEncodeInTheBandSettlesTheRungAtItsCrf) {
    RungCrfSearch search(1000, 25);
    search.record(even_bytes(1040), kFourChunks);
    ASSERT_TRUE(search.settled());
    EXPECT_EQ(search.choice().verdict, CrfVerdict::on_target);
    EXPECT_EQ(search.choice().crf, 40);
    EXPECT_NEAR(search.choice().kbps, 1040, 1);
    EXPECT_EQ(search.trials(), 1);
}

TEST(RungCrfSearch, JustOverTheBandIsNotOnTarget) {
    RungCrfSearch search(1000, 25);
    search.record(even_bytes(1060), kFourChunks);
    EXPECT_FALSE(search.settled());
    // One chunk of four a step higher (about 7% of it) brings the rung into
    // the band: a quarter of an encode instead of a whole one at CRF 41.
    EXPECT_EQ(search.choice().crf, 40);
    const auto others = search.other_chunk_crfs();
    ASSERT_EQ(others.size(), 1u);
    EXPECT_EQ(others.front().second, 41);
    // That chunk made 7% less at 41: the rung settles in the band, its
    // chunks a step apart.
    std::vector<std::int64_t> bytes = even_bytes(1060);
    bytes[others.front().first] = std::llround(static_cast<double>(bytes[others.front().first]) * 0.93);
    search.record(bytes, kFourChunks);
    ASSERT_TRUE(search.settled());
    EXPECT_EQ(search.choice().verdict, CrfVerdict::mixed) << crf_verdict_name(search.choice().verdict);
    EXPECT_LE(search.choice().kbps, 1050);
    EXPECT_EQ(search.trials(), 2);
    EXPECT_NEAR(search.encoded_rungs(), 1.25, 1e-9);
}

TEST(RungCrfSearch, OneEncodeOverTheTargetAsksForAHigherCrfBySlope) {
    // Twice the target: half the rate is 10 steps at the default slope.
    RungCrfSearch search(1000, 25);
    search.record(even_bytes(2000), kFourChunks);
    EXPECT_EQ(search.choice().crf, 50);
    EXPECT_EQ(search.choice().verdict, CrfVerdict::encode_next);
}

TEST(RungCrfSearch, TwoEncodesGiveTheChunksTheirOwnSlope) {
    // 2000 kb/s at CRF 40, 1500 at 50: the chunks' own slope (not the
    // default) says where 1000 is.
    RungCrfSearch search(1000, 25);
    search.record(even_bytes(2000), kFourChunks);
    ASSERT_EQ(search.choice().crf, 50);
    search.record(even_bytes(1500), kFourChunks);
    const double slope = std::log(1500.0 / 2000) / 10;
    const int expected = 50 + static_cast<int>(std::ceil(std::log(1050.0 / 1500) / slope - 1e-9));
    EXPECT_EQ(search.choice().crf, expected);
}

TEST(RungCrfSearch, OverTheBandAtTheLargestCrfIsReportedNotHidden) {
    RungCrfSearch search(100, 25);
    for (int pass = 0; pass < 10 && !search.settled(); ++pass) search.record(even_bytes(5000), kFourChunks);
    ASSERT_TRUE(search.settled());
    EXPECT_EQ(search.choice().verdict, CrfVerdict::over_at_max_crf);
    EXPECT_EQ(search.choice().crf, kMaxCrf);
    EXPECT_STREQ(crf_verdict_name(search.choice().verdict), "over_at_largest_crf");
}

TEST(RungCrfSearch, EveryPassEncodesSomethingNewAndTheSearchStopsAtItsLimit) {
    // A rate that jumps between CRFs (1200 kb/s at even CRFs, 700 at odd
    // ones: nothing a slope describes): each pass asks at least one chunk
    // at a CRF it was not made at, and the search ends within its limit,
    // never over the band.
    RungCrfSearch search(1000, 25);
    std::set<std::pair<std::size_t, int>> made;
    for (int pass = 0; pass < 20 && !search.settled(); ++pass) {
        std::vector<std::int64_t> bytes;
        bool something_new = false;
        for (std::size_t k = 0; k < 4; ++k) {
            const int crf = search.crf_of(k);
            something_new = made.insert({k, crf}).second || something_new;
            bytes.push_back(static_cast<std::int64_t>((crf % 2 ? 700 : 1200) * 1000 / 8 * 2));
        }
        EXPECT_TRUE(something_new) << "pass " << pass << " asked only what was made";
        search.record(bytes, kFourChunks);
    }
    ASSERT_TRUE(search.settled());
    EXPECT_LE(search.trials(), RungCrfSearch::kMaxTrials);
    EXPECT_LE(search.choice().kbps, 1050);
}

TEST(RungCrfSearch, EveryMeasuredRungSettlesInTheBandOrAtTheCeilingAlone) {
    const auto rungs = measured_rungs();
    ASSERT_EQ(rungs.size(), 24u) << "docs/data/cq-budget-16cores/chunks.csv: six clips x four rungs";
    double encoded = 0;
    for (const auto& [name, r] : rungs) {
        SCOPED_TRACE(name);
        RungCrfSearch search(r.target_kbps, 25);
        while (!search.settled()) search.record(encode_as_asked(r, search), frames_at(r, 25));
        const CrfChoice& c = search.choice();
        encoded += search.encoded_rungs();
        if (std::getenv("CRF_SEARCH_PRINT"))
            std::printf("%s: %s CRF %d, %.0f kb/s of %.0f, %.2f encodes\n", name.c_str(), crf_verdict_name(c.verdict),
                        c.crf, c.kbps, r.target_kbps, search.encoded_rungs());
        EXPECT_NE(c.verdict, CrfVerdict::over_at_max_crf);
        EXPECT_NE(c.verdict, CrfVerdict::search_limit);
        EXPECT_LE(c.kbps, r.target_kbps * 1.05);
        if (c.verdict == CrfVerdict::at_ceiling)
            EXPECT_LE(c.crf, kCeilingCrf);
        else
            EXPECT_GE(c.kbps, r.target_kbps * 0.95) << "CRF " << c.crf;
        EXPECT_LE(search.peak_ratio(), RungCrfSearch::kPeakLimit);
    }
    std::printf("[ metric   ] 24 measured rungs alone from CRF 40: %.2f whole-rung encodes\n", encoded);
}

// A rung's search over a run's passes: each pass's chunks recorded at the
// CRF the search asked for, until it settles.
TEST(RungCrfSearchPasses, RecordsEachPassAtTheCrfItAskedForUntilSettled) {
    RungCrfSearch search(2500, 25);  // 10 s at 25 fps below
    constexpr auto kbps_at = [](int crf) { return 9000 * std::exp(-0.07 * crf); };
    EXPECT_EQ(search.choice().crf, 40);
    std::vector<int> asked;
    while (!search.settled() && search.trials() < 20) {
        asked.push_back(search.choice().crf);
        search.record(chunks_at(search.choice().crf, kbps_at, 5, 10), even_frames(5, 250));
    }
    ASSERT_TRUE(search.settled());
    EXPECT_EQ(search.choice().verdict, CrfVerdict::on_target) << search.choice().crf;
    EXPECT_NEAR(search.choice().kbps, 2500, 125);
    EXPECT_LE(search.trials(), 3);
    EXPECT_EQ(search.trials(), static_cast<int>(asked.size()));
    // A settled rung's later passes (its chunks taken back from the
    // journal) change nothing.
    const CrfChoice before = search.choice();
    search.record(chunks_at(50, kbps_at, 5, 10), even_frames(5, 250));
    EXPECT_EQ(search.trials(), static_cast<int>(asked.size()));
    EXPECT_EQ(search.choice().crf, before.crf);
}

TEST(RungCrfSearchPasses, AFlatPictureSettlesAtTheCeilingWithoutPadding) {
    RungCrfSearch search(600, 25);
    constexpr auto kbps_at = [](int crf) { return 200 * std::exp(-0.07 * crf); };
    while (!search.settled()) search.record(chunks_at(search.choice().crf, kbps_at, 4, 4), even_frames(4, 100));
    EXPECT_EQ(search.choice().verdict, CrfVerdict::at_ceiling);
    EXPECT_EQ(search.choice().crf, kCeilingCrf);
    EXPECT_LE(search.trials(), 3);
    EXPECT_STREQ(crf_verdict_name(search.choice().verdict), "at_quality_ceiling");
}

// Content whose rate does not fall smoothly with CRF (a step: nothing
// between 2x and a tenth of the target) still ends within the limit of
// encodes, on a choice that is not over the band.
TEST(RungCrfSearchPasses, EndsWithinItsLimitOfEncodesNeverOverTheBandWhenATrialWasNot) {
    RungCrfSearch search(1000, 25);
    constexpr auto kbps_at = [](int crf) { return crf < 47 ? 2000.0 : 100.0; };
    while (!search.settled()) search.record(chunks_at(search.choice().crf, kbps_at, 4, 4), even_frames(4, 100));
    EXPECT_LE(search.trials(), RungCrfSearch::kMaxTrials);
    EXPECT_LE(search.choice().kbps, 1050);
    EXPECT_TRUE(search.choice().verdict == CrfVerdict::mixed || search.choice().verdict == CrfVerdict::search_limit ||
                search.choice().verdict == CrfVerdict::under_for_peaks)
        << crf_verdict_name(search.choice().verdict);
    EXPECT_LE(search.peak_ratio(), RungCrfSearch::kPeakLimit);
}

TEST(RungCrfSearchPasses, APassWithOtherChunksThanTheFirstIsRefused) {
    RungCrfSearch search(1000, 25);
    search.record({1000, 1000, 1000}, {25, 25, 25});
    ASSERT_FALSE(search.settled());
    EXPECT_THROW(search.record({1000, 1000}, {25, 25}), std::invalid_argument);
    EXPECT_THROW(search.record({1000, 1000, 1000}, {25, 25}), std::invalid_argument);
    EXPECT_THROW(RungCrfSearch(1000, 25).record({}, {}), std::invalid_argument);
    EXPECT_THROW(RungCrfSearch(1000, 25).record({1000}, {0}), std::invalid_argument);
}

TEST(RungCrfSearchPasses, AChunkOverTheLimitGetsItsOwnCrfAndTheOthersTakeBackWhatItFreed) {
    // One chunk 5x the others (2.8x the average), in the middle and first
    // (the others' CRFs are then not the first chunk's).
    for (const std::size_t peak : {std::size_t{2}, std::size_t{0}}) {
        SCOPED_TRACE(peak);
        Chunks content{{1, 1, 1, 1, 1}, {2, 2, 2, 2, 2}};
        content.weight[peak] = 5;
        const std::size_t other = peak == 0 ? 1 : 0;
        RungCrfSearch search(2500, 25);
        search_to_the_end(search, content);
        const CrfChoice& c = search.choice();
        EXPECT_EQ(c.verdict, CrfVerdict::on_target) << crf_verdict_name(c.verdict);
        EXPECT_GE(c.kbps, 2500 * 0.95);
        EXPECT_LE(c.kbps, 2500 * 1.05);
        EXPECT_LE(search.peak_ratio(), RungCrfSearch::kPeakLimit);
        EXPECT_GT(search.peak_ratio(), 1.5) << "capped far below the limit: quality thrown away";
        EXPECT_EQ(search.peak_capped(), 1);
        EXPECT_GT(c.chunk_crf[peak], c.chunk_crf[other]);
        EXPECT_EQ(c.crf, c.chunk_crf[other]);
        EXPECT_LE(search.trials(), 5);
    }
}

TEST(RungCrfSearchPasses, AShortLastChunkCountsWithTheOneBeforeIt) {
    // A 0.2-s last chunk at 3x the others' rate: HLS measures it with the
    // 2-s chunk before it, which keeps the pair under the limit.
    RungCrfSearch search(2500, 25);
    search_to_the_end(search, Chunks{{1, 1, 1, 1, 3}, {2, 2, 2, 2, 0.2}});
    EXPECT_EQ(search.peak_capped(), 0);
    EXPECT_LE(search.peak_ratio(), RungCrfSearch::kPeakLimit);
    // The same rate over a whole 2-s chunk is a peak.
    RungCrfSearch whole(2500, 25);
    search_to_the_end(whole, Chunks{{1, 1, 1, 1, 3}, {2, 2, 2, 2, 2}});
    EXPECT_EQ(whole.peak_capped(), 1);
    EXPECT_LE(whole.peak_ratio(), RungCrfSearch::kPeakLimit);
}

TEST(RungCrfSearchPasses, AtTheQualityCeilingThePeakIsMeasuredAgainstTheRealAverage) {
    // A flat picture with one busy chunk: far under the target at CRF 10,
    // so the limit is twice what the rung makes, not twice its target.
    RungCrfSearch search(2500, 25);
    search_to_the_end(search, Chunks{{0.01, 0.01, 0.06, 0.01}, {2, 2, 2, 2}});
    EXPECT_EQ(search.choice().verdict, CrfVerdict::at_ceiling) << crf_verdict_name(search.choice().verdict);
    EXPECT_EQ(search.peak_capped(), 1);
    EXPECT_LE(search.peak_ratio(), RungCrfSearch::kPeakLimit);
    EXPECT_EQ(search.choice().chunk_crf[0], kCeilingCrf);
}

TEST(RungCrfSearchPasses, ASegmentOverTheLimitIsCappedInThePassThatMovesTheBase) {
    // Chunk 2 makes 5x the others: once its sizes are known, the pass that
    // moves the rung's base asks chunk 2 at a CRF of its own.
    const Chunks content{{1, 1, 5, 1, 1}, {2, 2, 2, 2, 2}};
    RungCrfSearch search(2500, 25);
    search.record(content.bytes(search), content.frames());
    ASSERT_FALSE(search.settled());
    const auto others = search.other_chunk_crfs();
    ASSERT_EQ(others.size(), 1u);
    EXPECT_EQ(others[0].first, 2u);
    EXPECT_GT(others[0].second, search.choice().crf);
    EXPECT_EQ(search.peak_capped(), 1);
    search_to_the_end(search, content);
    EXPECT_LE(search.peak_ratio(), RungCrfSearch::kPeakLimit);
    EXPECT_EQ(search.choice().verdict, CrfVerdict::on_target) << crf_verdict_name(search.choice().verdict);
}

// A long rung whose content changes: most segments spend little, some
// spend ten times as much. The base and the caps settle together, every
// segment under the limit, in the band, a pass after the first encoding
// only what changed.
TEST(RungCrfSearchPasses, ContentThatChangesSettlesInTheBandWithEverySegmentUnderTheLimit) {
    Chunks content;
    for (int k = 0; k < 30; ++k) {
        content.weight.push_back(k % 7 == 3 ? 10.0 : k % 5 == 1 ? 3.0 : 0.6 + 0.05 * k);
        content.seconds.push_back(k == 29 ? 0.6 : 2.0);
    }
    RungCrfSearch search(2500, 25);
    search_to_the_end(search, content);
    const CrfChoice& c = search.choice();
    EXPECT_TRUE(c.verdict == CrfVerdict::on_target || c.verdict == CrfVerdict::mixed) << crf_verdict_name(c.verdict);
    EXPECT_GE(c.kbps, 2500 * 0.95);
    EXPECT_LE(c.kbps, 2500 * 1.05);
    EXPECT_LE(search.peak_ratio(), RungCrfSearch::kPeakLimit);
    EXPECT_GE(search.peak_capped(), 4) << "every busy segment capped";
    EXPECT_LE(search.trials(), 4);
    EXPECT_LT(search.encoded_rungs(), static_cast<double>(search.trials())) << "some pass encoded only some chunks";
}

// A two-hour source's rung (3600 chunks of 2 s), every seventh chunk a
// burst: it settles in the band with every segment under the limit.
TEST(RungCrfSearchPasses, ATwoHourRungSettlesInTheBand) {
    Chunks content;
    for (int k = 0; k < 3600; ++k) {
        content.weight.push_back((k % 7 == 3 ? 8.0 : 1.0) * (1 + 0.3 * std::sin(k * 0.1)));
        content.seconds.push_back(2.0);
    }
    RungCrfSearch search(2500, 25);
    search_to_the_end(search, content);
    EXPECT_GE(search.choice().kbps, 2500 * 0.95);
    EXPECT_LE(search.choice().kbps, 2500 * 1.05);
    EXPECT_LE(search.peak_ratio(), RungCrfSearch::kPeakLimit);
    EXPECT_GE(search.peak_capped(), 3600 / 7);
}

// Searches the content to the end (in `search` when given) and checks it
// settled mixed, inside the band; its choice.
CrfChoice settle_mixed_in_band(const Chunks& content, double target, RungCrfSearch* search = nullptr) {
    RungCrfSearch own(target, 25);
    RungCrfSearch& s = search ? *search : own;
    search_to_the_end(s, content);
    const CrfChoice& c = s.choice();
    EXPECT_EQ(c.verdict, CrfVerdict::mixed) << crf_verdict_name(c.verdict);
    EXPECT_GE(c.kbps, target * 0.95);
    EXPECT_LE(c.kbps, target * 1.05);
    return c;
}

// A rate that moves 15% per CRF step, target between two steps: no whole
// CRF is in the band, so some segments take the lower CRF, never passing
// the band's top.
TEST(RungCrfSearchPasses, NoWholeCrfInTheBandMixesSegmentsUpToTheTarget) {
    Chunks content{{1, 1.2, 0.8, 1.1, 0.9, 1.0, 1.3, 0.7}, {2, 2, 2, 2, 2, 2, 2, 2}, 2000 * std::exp(0.14 * 40), 0.14};
    // At CRF c the rung makes 2000 e^(-0.14 (c - 40)) x the mean weight
    // (1): the target sits halfway between two CRFs in log rate.
    const double target = 2000 * std::exp(-0.14 * 3.5);
    const CrfChoice c = settle_mixed_in_band(content, target);
    const auto [lo, hi] = std::minmax_element(c.chunk_crf.begin(), c.chunk_crf.end());
    EXPECT_EQ(*hi - *lo, 1) << "two adjacent CRFs";
    EXPECT_EQ(c.crf, *lo);
}

// Two chunks whose rate moves 28% a CRF step: one chunk a step lower
// moves the rung 14%, more than the band is wide, so no mix of two CRFs
// lands in it; one chunk a step down and the other a step up does.
TEST(RungCrfSearchPasses, ACoarseRungMixesOneSegmentUpAndOneDown) {
    const Chunks content{{1, 1}, {2, 2}, 1000 * std::exp(0.25 * 42), 0.25};  // 1000 kb/s at CRF 42
    const double target = 1000 / 0.93;                                        // CRF 42 is 7% under
    RungCrfSearch search(target, 25);
    const CrfChoice c = settle_mixed_in_band(content, target, &search);
    std::vector<int> crfs = c.chunk_crf;
    std::sort(crfs.begin(), crfs.end());
    EXPECT_EQ(crfs, (std::vector<int>{41, 43}));
    EXPECT_EQ(search.peak_capped(), 0) << "the segment a step up is not capped for a peak";
}

// Three chunks, one half of the rung and growing 28% a step lower, two
// small ones 4% (as dips at 540p): all a step lower is over the band, the
// small ones a step lower under it (they fill up to the target first and
// the big one no longer fits); trading one small one for the big one lands
// inside.
TEST(RungCrfSearchPasses, AStepOfTheBigSegmentTradedForASmallOneLandsInTheBand) {
    const std::vector<double> at_36{50, 25, 25};  // thousands of bytes over 2 s each
    const std::vector<double> slope{std::log(64.0 / 50), std::log(26.0 / 25), std::log(26.0 / 25)};
    const double target = 110.0 * 1000 * 8 / 1000 / 6;  // 110 000 bytes over 6 s
    RungCrfSearch search(target, 25);
    for (int pass = 0; pass < 20 && !search.settled(); ++pass) {
        std::vector<std::int64_t> bytes;
        for (std::size_t k = 0; k < 3; ++k)
            bytes.push_back(std::llround(at_36[k] * 1000 * std::exp(-slope[k] * (search.crf_of(k) - 36))));
        search.record(bytes, {50, 50, 50});
    }
    ASSERT_TRUE(search.settled());
    const CrfChoice& c = search.choice();
    EXPECT_EQ(c.verdict, CrfVerdict::mixed) << crf_verdict_name(c.verdict);
    EXPECT_GE(c.kbps, target * 0.95);
    EXPECT_LE(c.kbps, target * 1.05);
    EXPECT_EQ(c.chunk_crf.at(0), 35) << "the big segment a step lower";
    EXPECT_EQ(c.chunk_crf.at(1) + c.chunk_crf.at(2), 35 + 36) << "one small one a step lower";
}

// A rung 15% over its band's middle after its first encode: a step on
// every segment (-7%) still leaves it over, so a one-step correction would
// encode the whole rung again at a new CRF; moving half of its segments 3
// steps lands it in the band and encodes only those.
TEST(RungCrfSearchPasses, AMissTooBigForOneStepReencodesOnlySomeSegmentsUpToThreeSteps) {
    const Chunks content{{1, 1, 1, 1, 1, 1, 1, 1}, {2, 2, 2, 2, 2, 2, 2, 2}, 1000 * std::exp(0.07 * 30), 0.07};
    const double target = 1000 / 1.15;  // CRF 30 makes 1000 kb/s
    RungCrfSearch search(target, 25, 30);
    search.record(content.bytes(search), content.frames());
    ASSERT_FALSE(search.settled());
    int moved = 0;
    for (std::size_t k = 0; k < 8; ++k) {
        if (search.crf_of(k) == 30) continue;
        ++moved;
        EXPECT_GT(search.crf_of(k), 31) << "more than one step: a step on every segment is not enough";
        EXPECT_LE(search.crf_of(k), 30 + RungCrfSearch::kMostPartialSteps);
    }
    EXPECT_GT(moved, 0);
    EXPECT_LT(moved, 8) << "only the segments that must change are encoded again";
    search.record(content.bytes(search), content.frames());
    ASSERT_TRUE(search.settled());
    const CrfChoice& c = search.choice();
    EXPECT_EQ(c.verdict, CrfVerdict::mixed) << crf_verdict_name(c.verdict);
    EXPECT_EQ(c.crf, 30);
    EXPECT_GE(c.kbps, target * 0.95);
    EXPECT_LE(c.kbps, target * 1.05);
    EXPECT_EQ(search.trials(), 2);
}

}  // namespace
}  // namespace ladder::engine
