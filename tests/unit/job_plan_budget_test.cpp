// A plan made with --rate-control budget carries each rung's CRF per chunk
// (plan.json "rate_control"), which shards encode at and stitch reads
// under; a plan whose CRFs do not fit its ladder and chunks is refused.
#include "engine/plan/job_plan.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/base/errors.hpp"

namespace ladder::engine {
namespace {

JobPlan two_rung_plan() {
    JobPlan p;
    p.input = "/media/src.mp4";
    p.source_bytes = 1000;
    p.width = 320;
    p.height = 180;
    p.frame_rate = AVRational{25, 1};
    p.frames = 110;  // chunks of 25: four whole and one of 10
    p.chunk_frames = 25;
    RungSpec a;
    a.name = "180p";
    a.width = 320;
    a.height = 180;
    a.bitrate_kbps = 350;
    RungSpec b = a;
    b.name = "90p";
    b.width = 160;
    b.height = 90;
    b.bitrate_kbps = 120;
    p.ladder.rungs = {a, b};
    return p;
}

TEST(JobPlanBudget, EachChunksCrfSurvivesTheFileAndNamesItsJournalKey) {
    JobPlan p = two_rung_plan();
    p.budget = true;
    p.chunk_crf = {{27, 27, 52, 27, 28}, {25, 25, 40, 25, 25}};
    const JobPlan back = plan_from_json(plan_to_json(p), "plan.json");
    EXPECT_TRUE(back.budget);
    EXPECT_EQ(back.chunk_crf, p.chunk_crf);
    EXPECT_EQ(back.journal_key(0, 2), "180p@crf52");
    EXPECT_EQ(back.journal_key(1, 4), "90p@crf25");
    EXPECT_EQ(back.fingerprint(), p.fingerprint());
}

TEST(JobPlanBudget, TheSearchJournalsUnderTheFingerprintOfThePlanItWrites) {
    // The CRFs are found after the chunks are journaled under the plan's
    // fingerprint: they are not part of it, the mode is.
    JobPlan searching = two_rung_plan();
    searching.budget = true;
    JobPlan found = searching;
    found.chunk_crf = {{27, 27, 52, 27, 28}, {25, 25, 40, 25, 25}};
    EXPECT_EQ(searching.fingerprint(), found.fingerprint());
    EXPECT_NE(two_rung_plan().fingerprint(), found.fingerprint());
    EXPECT_EQ(two_rung_plan().journal_key(0, 2), "180p");
}

TEST(JobPlanBudget, CrfsThatDoNotFitTheLadderOrTheChunksAreRefused) {
    JobPlan p = two_rung_plan();
    p.budget = true;
    for (const auto& crfs : std::vector<std::vector<std::vector<int>>>{
             {{27, 27, 52, 27, 28}},                           // one rung of two
             {{27, 27, 52, 27}, {25, 25, 40, 25, 25}},         // four chunks of five
             {{27, 27, 52, 27, 64}, {25, 25, 40, 25, 25}}}) {  // out of 0..63
        p.chunk_crf = crfs;
        EXPECT_THROW(plan_from_json(plan_to_json(p), "plan.json"), InputError);
    }
}

}  // namespace
}  // namespace ladder::engine
