// IdleEncoders: GPU encoders kept open between sessions belong to their GPU
// (any of its slots takes them), opens ahead on threads of their own are
// waited for, and nothing is kept once a GPU session failed.
#include "engine/encode/idle_encoders.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>

namespace {

using ladder::engine::EncodedChunk;
using ladder::engine::EncoderBackend;
using ladder::engine::IdleEncoder;
using ladder::engine::IdleEncoders;
using ladder::engine::RawChunk;
using ladder::gpu::DeviceKind;
using ladder::gpu::EncoderSlot;

// An encoder that only says when it is closed.
class CountedEncoder : public EncoderBackend {
public:
    explicit CountedEncoder(std::atomic<int>& closed) : closed_(closed) {}
    ~CountedEncoder() override { ++closed_; }
    EncodedChunk encode(const RawChunk&, std::stop_token) override { throw std::logic_error("not used"); }
    void probe() override {}

private:
    std::atomic<int>& closed_;
};

EncoderSlot gpu_slot(int id, int gpu) {
    EncoderSlot s;
    s.id = id;
    s.kind = DeviceKind::nvidia;
    s.device_index = gpu;
    s.device = std::to_string(gpu);
    s.set_encoder("ladder-nvenc");
    s.label = "gpu" + std::to_string(gpu) + ":nvenc." + std::to_string(id);
    return s;
}

class IdleEncodersTest : public ::testing::Test {
protected:
    IdleEncoder counted(int kbps = 1000) { return IdleEncoder{std::make_unique<CountedEncoder>(closed), kbps, true}; }
    IdleEncoders::Opener opener(int kbps = 1000) {
        return [this, kbps]() -> std::optional<IdleEncoder> { return counted(kbps); };
    }
    // An open that says it started, then waits for release() before its
    // encoder is opened: an open under way for as long as the test wants.
    IdleEncoders::Opener held_opener(int kbps = 1000) {
        return [this, kbps, go = release_.get_future().share()]() -> std::optional<IdleEncoder> {
            started_.set_value();
            go.wait();
            return counted(kbps);
        };
    }
    void wait_until_open_started() { started_.get_future().wait(); }
    void release() { release_.set_value(); }

    std::atomic<int> closed{0};
    std::promise<void> started_, release_;
    const EncoderSlot a = gpu_slot(0, 0);
    const EncoderSlot b = gpu_slot(1, 0);  // a's GPU
    const EncoderSlot c = gpu_slot(2, 1);  // another GPU
};

TEST_F(IdleEncodersTest, AnEncoderKeptByOneSlotIsTakenByAnotherOfItsGpuOnly) {
    IdleEncoders idle;
    IdleEncoder e = counted(2500);
    ASSERT_TRUE(idle.keep(a, 1, e));
    EXPECT_FALSE(idle.take(c, 1)) << "GPU 1 took GPU 0's encoder";
    EXPECT_FALSE(idle.take(b, 2)) << "another rung's";
    auto taken = idle.take(b, 1);
    ASSERT_TRUE(taken);
    EXPECT_EQ(taken->kbps, 2500);
    EXPECT_FALSE(idle.take(a, 1)) << "taken twice";
}

TEST_F(IdleEncodersTest, TwoSlotsKeepOneEncoderEachForTheSameRung) {
    IdleEncoders idle;
    IdleEncoder first = counted(), second = counted();
    ASSERT_TRUE(idle.keep(a, 0, first));
    ASSERT_TRUE(idle.keep(b, 0, second));
    EXPECT_TRUE(idle.take(a, 0));
    EXPECT_TRUE(idle.take(a, 0));
    EXPECT_EQ(closed, 2);  // both came out and went with their optionals
}

TEST_F(IdleEncodersTest, ATakeWaitsForTheOpenAheadOfItsGpuAndRung) {
    IdleEncoders idle;
    ASSERT_TRUE(idle.open_ahead(a, 3, held_opener(600), true, 1));
    wait_until_open_started();
    // At most one for the place: a second one is not started.
    EXPECT_FALSE(idle.open_ahead(b, 3, opener(), true, 1));
    std::thread releaser([this] { release(); });
    auto taken = idle.take(b, 3);  // before or after the release: it waits for the open either way
    releaser.join();
    ASSERT_TRUE(taken) << "take() did not wait for the open under way";
    EXPECT_EQ(taken->kbps, 600);
    EXPECT_TRUE(taken->opened_ahead);
    idle.clear();
}

TEST_F(IdleEncodersTest, AKeptEncoderIsTakenAtOnceWhileAnotherOpens) {
    IdleEncoders idle;
    ASSERT_TRUE(idle.open_ahead(a, 0, held_opener(600), true, 1));
    wait_until_open_started();
    IdleEncoder kept = counted(111);
    ASSERT_TRUE(idle.keep(b, 0, kept));
    auto taken = idle.take(a, 0);  // waiting here for the open would never end: it is released below
    release();
    ASSERT_TRUE(taken);
    EXPECT_EQ(taken->kbps, 111);
    idle.clear();
}

TEST_F(IdleEncodersTest, AnOpenOnThisThreadSaysWhetherItKeptTheEncoder) {
    IdleEncoders idle;
    EXPECT_TRUE(idle.open_ahead(a, 0, opener(), false, 1));
    EXPECT_FALSE(idle.open_ahead(a, 0, opener(), false, 1)) << "one was opened ahead already";
    EXPECT_TRUE(idle.open_ahead(b, 0, opener(), false, 2)) << "a second one, of at most two";
    EXPECT_FALSE(idle.open_ahead(a, 0, opener(), false, 2));
    EXPECT_TRUE(idle.take(a, 0));
    EXPECT_FALSE(idle.open_ahead(a, 0, opener(), false, 2)) << "counted as opened, not as kept";
    EXPECT_TRUE(idle.take(b, 0));
    EXPECT_FALSE(idle.open_ahead(a, 1, [] () -> std::optional<IdleEncoder> { throw std::runtime_error("no"); },
                                 false, 1));
    EXPECT_FALSE(idle.open_ahead(a, 2, [] { return std::optional<IdleEncoder>{}; }, false, 1));
    EXPECT_FALSE(idle.take(a, 1));
    EXPECT_FALSE(idle.take(a, 2));
    EXPECT_FALSE(idle.take(b, 0));
}

// A GPU's slots claim at their own times: a slot whose first claim comes
// after another slot's openers started on its threads counts those, so the
// GPU never holds more encoders for a rung than its most.
TEST_F(IdleEncodersTest, AnOpenOnThisThreadCountsThoseOpeningOnOtherThreads) {
    IdleEncoders idle;
    ASSERT_TRUE(idle.open_ahead(a, 0, held_opener(600), true, 2));
    wait_until_open_started();
    ASSERT_TRUE(idle.open_ahead(a, 0, opener(), true, 2));
    EXPECT_FALSE(idle.open_ahead(b, 0, opener(), false, 2)) << "a third encoder for two slots";
    EXPECT_TRUE(idle.holds(b, 0)) << "b's rung has encoders opening on its GPU";
    EXPECT_FALSE(idle.holds(b, 1));
    EXPECT_FALSE(idle.holds(c, 0)) << "another GPU's";
    EXPECT_TRUE(idle.open_ahead(b, 1, opener(), false, 1));
    EXPECT_TRUE(idle.holds(b, 1));
    EXPECT_FALSE(idle.open_ahead(b, 1, opener(), false, 0)) << "a most under 1 is taken as 1, never as no limit";
    release();
    idle.clear();
    EXPECT_EQ(idle.ahead_counts().opened, 3);
}

TEST_F(IdleEncodersTest, CountsTheEncodersOpenedAheadAndThoseNoSessionUsed) {
    IdleEncoders idle;
    ASSERT_TRUE(idle.open_ahead(a, 0, opener(), false, 1));
    ASSERT_TRUE(idle.open_ahead(b, 1, opener(), false, 1));
    ASSERT_TRUE(idle.open_ahead(c, 1, opener(), true, 1));
    auto used = idle.take(a, 0);
    ASSERT_TRUE(used);
    used->opened_ahead = false;  // as a session gives it back (EncoderWorker::encode_session)
    ASSERT_TRUE(idle.keep(b, 0, *used));
    idle.close(a, [](int rung) { return rung == 0; });
    idle.clear();
    EXPECT_EQ(idle.ahead_counts().opened, 3);
    EXPECT_EQ(idle.ahead_counts().never_used, 2) << "rung 1's on GPU 0 and on GPU 1";
    EXPECT_EQ(closed, 3);
}

TEST_F(IdleEncodersTest, CpuSlotsKeepNothing) {
    EncoderSlot cpu;
    cpu.set_encoder("libsvtav1");
    IdleEncoders idle;
    IdleEncoder e = counted();
    EXPECT_FALSE(idle.keep(cpu, 0, e));
    EXPECT_TRUE(e.backend) << "left to the caller";
    EXPECT_FALSE(idle.open_ahead(cpu, 0, opener(), false, 1));
}

TEST_F(IdleEncodersTest, CloseTakesTheDoneRungsOfTheSlotsGpu) {
    IdleEncoders idle;
    for (const EncoderSlot* s : {&a, &b, &c})
        for (int rung : {0, 1}) {
            IdleEncoder e = counted();
            ASSERT_TRUE(idle.keep(*s, rung, e));
        }
    idle.close(b, [](int rung) { return rung == 0; });
    EXPECT_EQ(closed, 2) << "a's and b's encoders of rung 0, not GPU 1's";
    EXPECT_FALSE(idle.take(a, 0));
    EXPECT_TRUE(idle.take(c, 0));
    idle.close(a, [](int) { return false; }, true);
    EXPECT_EQ(closed, 5) << "everything of GPU 0 (and the one taken from GPU 1)";
    EXPECT_TRUE(idle.take(c, 1));
}

TEST_F(IdleEncodersTest, AfterAGpuSessionFailedNothingIsKept) {
    IdleEncoders idle;
    ASSERT_TRUE(idle.open_ahead(a, 0, held_opener(), true, 1));
    IdleEncoder kept = counted();
    ASSERT_TRUE(idle.keep(a, 1, kept));
    wait_until_open_started();
    idle.stop_keeping();
    EXPECT_EQ(closed, 1);
    release();
    EXPECT_FALSE(idle.take(a, 0)) << "the open that ended after the failure kept its encoder";
    idle.clear();  // its thread ended: what it opened is closed
    EXPECT_EQ(closed, 2);
    IdleEncoder late = counted();
    EXPECT_FALSE(idle.keep(a, 1, late));
    EXPECT_FALSE(idle.open_ahead(a, 2, opener(), true, 1));
    idle.clear();
}

}  // namespace
