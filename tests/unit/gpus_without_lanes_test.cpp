// Where frames stay on the GPU that decoded them, a GPU without a decode
// lane encodes nothing: the run says so, and what to do.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/run/decode_lane_plan.hpp"

namespace ladder::engine {
namespace {

struct NoteLog : ProgressSink {
    std::vector<std::pair<NoteLevel, std::string>> notes;
    void note(NoteLevel level, const std::string& message) override { notes.emplace_back(level, message); }
};

TEST(GpusWithoutLanes, AFixedLaneCountBelowTheGpusIsAWarningWithTheRemedy) {
    NoteLog log;
    note_gpus_without_lanes(4, 2, false, log);
    ASSERT_EQ(log.notes.size(), 1u);
    EXPECT_EQ(log.notes[0].first, NoteLevel::warning);
    EXPECT_NE(log.notes[0].second.find("only 2 of the 4 GPUs decode"), std::string::npos) << log.notes[0].second;
    EXPECT_NE(log.notes[0].second.find("--decoders 4 or more"), std::string::npos) << log.notes[0].second;
}

TEST(GpusWithoutLanes, LanesThatMayGrowOntoTheOtherGpusAreAnInfoNote) {
    NoteLog log;
    note_gpus_without_lanes(4, 3, true, log);
    ASSERT_EQ(log.notes.size(), 1u);
    EXPECT_EQ(log.notes[0].first, NoteLevel::info);
    EXPECT_NE(log.notes[0].second.find("until a lane grows onto their GPU"), std::string::npos);
}

TEST(GpusWithoutLanes, ALanePerGpuSaysNothing) {
    NoteLog log;
    note_gpus_without_lanes(2, 2, false, log);
    note_gpus_without_lanes(2, 5, true, log);
    EXPECT_TRUE(log.notes.empty());
}

}  // namespace
}  // namespace ladder::engine
