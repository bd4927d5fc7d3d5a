// Rung, the one way into a rung's writer (encoded, resumed and stitched
// chunks): the rung's contract checks each chunk and refuses one that
// breaks it, an encoded chunk is journaled, every accepted one is reported
// done and reaches the writer, which writes them in order and ends at the
// chunk that says it ends the rung (EncodedChunk::ends_rung). Real
// AV1 sequence headers (libsvtav1 through libavcodec), a real ChunkJournal in
// a scratch folder and a real RungFinalizer over a sink that records.
#include "engine/rung/rung.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "av/av_error.hpp"
#include "av/handles.hpp"
#include "av1_test_encoder.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/shared_value.hpp"
#include "engine/output/chunk_journal.hpp"
#include "engine/output/rung_finalizer.hpp"
#include "engine/rung/rung.hpp"

namespace rung_test {

namespace fs = std::filesystem;
namespace av = ladder::av;
using namespace ladder::engine;

// The chunks the writer hands on, in the order it hands them.
class RecordingSink : public RungSink {
public:
    explicit RecordingSink(std::vector<int>& written) : written_(written) {}
    void open(const EncodedChunk&) override {}
    void write_chunk(const EncodedChunk& chunk, bool, std::stop_token) override { written_.push_back(chunk.index); }
    void finish(std::int64_t, std::stop_token) override {}
    std::string output() const override { return "recorded"; }

private:
    std::vector<int>& written_;
};

class DoneEvents : public ProgressSink {
public:
    void chunk_done(const ChunkDone& event) override { events.push_back(event); }
    std::vector<ChunkDone> events;
};

// Chunk `index`, one frame (frame `index`): the sample's key frame (its
// sequence header is what the contract reads) and its stream header.
EncodedChunk sample_chunk(const ladder::test::Av1Sample& sample, int index) {
    EncodedChunk c;
    c.rung = 0;
    c.index = index;
    c.first_frame = index;
    c.frame_count = 1;
    av::PacketPtr p = av::make_packet();
    av::check(av_new_packet(p.get(), static_cast<int>(sample.first_packet.size())), "allocating a packet");
    std::memcpy(p->data, sample.first_packet.data(), sample.first_packet.size());
    p->flags |= AV_PKT_FLAG_KEY;
    p->pts = p->dts = c.first_frame;
    c.bytes = sample.first_packet.size();
    c.packets.push_back(std::move(p));
    std::shared_ptr<AVCodecParameters> par(av::make_codec_parameters().release(),
                                           [](AVCodecParameters* q) { avcodec_parameters_free(&q); });
    par->codec_type = AVMEDIA_TYPE_VIDEO;
    par->codec_id = AV_CODEC_ID_AV1;
    par->extradata = static_cast<std::uint8_t*>(av_mallocz(sample.extradata.size() + AV_INPUT_BUFFER_PADDING_SIZE));
    std::memcpy(par->extradata, sample.extradata.data(), sample.extradata.size());
    par->extradata_size = static_cast<int>(sample.extradata.size());
    c.codecpar = par;
    c.slot_label = "cpu0";
    c.encoder = "libsvtav1";
    return c;
}

class RungTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("ladder-rung-" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    // A 120p rung with a strict contract, a journal and (unless null) a
    // writer over a sink that records.
    std::unique_ptr<Rung> make_rung(ChunkJournal& journal, std::vector<int>* written, ProgressSink& progress) {
        RungParts parts;
        parts.spec.name = "120p";
        parts.invariant = std::make_unique<RungCodecInvariant>(ladder::mux::SpliceCheck::strict);
        if (written) {
            std::vector<std::unique_ptr<RungSink>> sinks;
            sinks.push_back(std::make_unique<RecordingSink>(*written));
            parts.writer = std::make_unique<RungFinalizer>(0, parts.spec, std::move(sinks), progress, &video_frames_);
        }
        parts.journal = &journal;
        parts.chunk_frames = 1;
        return std::make_unique<Rung>(std::move(parts), progress);
    }

    fs::path dir_;
    SharedValue<std::int64_t> video_frames_;
};

TEST_F(RungTest, RefusesWhatBreaksTheContractJournalsEncodedChunksAndDeliversInOrder) {
    const auto fits = ladder::test::encode_av1("libsvtav1", 160, 120, ladder::test::Av1EncodeOptions{});
    const auto other = ladder::test::encode_av1("libsvtav1", 128, 96, ladder::test::Av1EncodeOptions{});

    std::vector<int> written;
    DoneEvents progress;
    ChunkJournal journal(dir_, "fingerprint", JournalMode::fresh);
    auto rung = make_rung(journal, &written, progress);
    RungFinalizer& writer = *rung->writer();

    // Chunk 2 first: it sets the rung's contract. It is the rung's last and
    // says so: the writer learns the rung's length from it, and the
    // renditions the video's.
    EncodedChunk last = sample_chunk(fits, 2);
    last.ends_rung = RungEnd{3, 3};
    auto two = rung->check(std::move(last));
    ASSERT_TRUE(two.accepted.has_value());
    EXPECT_FALSE(video_frames_.get().has_value());
    rung->deliver(std::move(*two.accepted), ChunkOrigin::encoded, 1.5);
    EXPECT_EQ(video_frames_.get(), std::optional<std::int64_t>(3));

    // Another picture size does not splice: refused, not journaled, not reported, not written.
    auto refused = rung->check(sample_chunk(other, 0));
    EXPECT_FALSE(refused.accepted.has_value());
    EXPECT_FALSE(refused.differences.empty());
    EXPECT_FALSE(journal.has_file("120p", 0));
    EXPECT_EQ(progress.events.size(), 1u);
    EXPECT_EQ(writer.waiting(), 1u);

    auto zero = rung->check(sample_chunk(fits, 0));
    ASSERT_TRUE(zero.accepted.has_value());
    rung->deliver(std::move(*zero.accepted), ChunkOrigin::encoded, 0.5);
    // A chunk read back from a journal (--resume, stitch) is not written again.
    auto one = rung->check(sample_chunk(fits, 1));
    ASSERT_TRUE(one.accepted.has_value());
    rung->deliver(std::move(*one.accepted), ChunkOrigin::journal);

    EXPECT_TRUE(journal.has_file("120p", 0));
    EXPECT_FALSE(journal.has_file("120p", 1));
    EXPECT_TRUE(journal.has_file("120p", 2));
    const auto back = journal.load(0, "120p", 2);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(back->first_frame, 2);
    EXPECT_EQ(back->frame_count, 1);

    ASSERT_EQ(progress.events.size(), 3u);
    EXPECT_EQ(progress.events[0].chunk, 2);
    EXPECT_EQ(progress.events[0].rung_name, "120p");
    EXPECT_EQ(progress.events[0].frames, 1);
    EXPECT_DOUBLE_EQ(progress.events[0].encode_seconds, 1.5);
    EXPECT_EQ(progress.events[1].chunk, 0);
    EXPECT_EQ(progress.events[2].chunk, 1);
    EXPECT_DOUBLE_EQ(progress.events[2].encode_seconds, 0);

    // Delivered in any order, written in order, ending at the chunk that
    // ended the rung.
    writer.run(std::stop_token{});
    EXPECT_EQ(written, (std::vector<int>{0, 1, 2}));
    EXPECT_TRUE(writer.completed());
    EXPECT_EQ(writer.waiting(), 0u);
    EXPECT_EQ(writer.report().frames, 3);
}

// Without the chunk that ends the rung the writer cannot finish: it waits
// (here: until stopped) instead of taking the chunks it has for the whole rung.
TEST_F(RungTest, TheWriterWaitsForTheChunkThatEndsTheRung) {
    const auto fits = ladder::test::encode_av1("libsvtav1", 160, 120, ladder::test::Av1EncodeOptions{});
    std::vector<int> written;
    DoneEvents progress;
    ChunkJournal journal(dir_, "fingerprint", JournalMode::fresh);
    auto rung = make_rung(journal, &written, progress);
    for (int i = 0; i < 2; ++i) {
        auto checked = rung->check(sample_chunk(fits, i));
        ASSERT_TRUE(checked.accepted.has_value());
        rung->deliver(std::move(*checked.accepted), ChunkOrigin::journal);
    }
    // Stopped from the start, it still writes what it has, in order, and
    // then gives up waiting for more.
    std::stop_source stop;
    stop.request_stop();
    EXPECT_THROW(rung->writer()->run(stop.get_token()), Cancelled);
    EXPECT_EQ(written, (std::vector<int>{0, 1}));
    EXPECT_FALSE(rung->writer()->completed());
    EXPECT_FALSE(video_frames_.get().has_value());
}

// A shard has no writer: the journal is its output.
TEST_F(RungTest, WithoutAWriterTheJournalIsTheOutput) {
    const auto fits = ladder::test::encode_av1("libsvtav1", 160, 120, ladder::test::Av1EncodeOptions{});
    DoneEvents progress;
    ChunkJournal journal(dir_, "fingerprint", JournalMode::shared);
    auto rung = make_rung(journal, nullptr, progress);
    auto zero = rung->check(sample_chunk(fits, 0));
    ASSERT_TRUE(zero.accepted.has_value());
    rung->deliver(std::move(*zero.accepted), ChunkOrigin::encoded, 2);
    EXPECT_TRUE(journal.has_file("120p", 0));
    EXPECT_EQ(progress.events.size(), 1u);
}

// --resume: a chunk an interrupted run journaled goes to the writer instead
// of being encoded, when it holds the same frames; the raw chunk's end of
// the rung travels with it.
TEST_F(RungTest, ResumeTakesAJournaledChunkWithTheSameFramesAndItsEnd) {
    const auto fits = ladder::test::encode_av1("libsvtav1", 160, 120, ladder::test::Av1EncodeOptions{});
    DoneEvents progress;
    {
        ChunkJournal first_run(dir_, "fingerprint", JournalMode::fresh);
        first_run.record(sample_chunk(fits, 0), "120p");
    }
    ChunkJournal journal(dir_, "fingerprint", JournalMode::resume);
    ASSERT_TRUE(journal.resuming());
    std::vector<int> written;
    auto rung = make_rung(journal, &written, progress);

    RawChunk raw;
    raw.index = 0;
    raw.first_frame = 0;
    raw.frames.push_back(av::make_frame());
    raw.frames.push_back(av::make_frame());
    EXPECT_FALSE(rung->take_from_journal(raw)) << "two frames now, one journaled: encode it again";
    raw.frames.pop_back();
    raw.ends_rung = RungEnd{1, 1};
    EXPECT_TRUE(rung->take_from_journal(raw));
    EXPECT_EQ(rung->resumed(), 1);
    RawChunk absent = std::move(raw);
    absent.index = 1;
    absent.first_frame = 1;
    EXPECT_FALSE(rung->take_from_journal(absent));
    ASSERT_EQ(progress.events.size(), 1u);
    rung->writer()->run(std::stop_token{});
    EXPECT_EQ(written, (std::vector<int>{0}));
    EXPECT_TRUE(rung->writer()->completed());
    EXPECT_EQ(video_frames_.get(), std::optional<std::int64_t>(1));
}

// The room a producer waits for (stitch's bound on chunks read ahead): no
// sleeping, a stop ends the wait.
TEST(RungFinalizerRoom, WaitsForRoomUntilStopped) {
    const auto fits = ladder::test::encode_av1("libsvtav1", 160, 120, ladder::test::Av1EncodeOptions{});
    ProgressSink progress;
    RungSpec rung;
    rung.name = "120p";
    RungFinalizer writer(0, rung, {}, progress);
    EXPECT_TRUE(writer.wait_for_room(1, std::stop_token{}));
    writer.deliver(sample_chunk(fits, 0));
    std::stop_source stopped;
    stopped.request_stop();
    EXPECT_FALSE(writer.wait_for_room(1, stopped.get_token()));
    EXPECT_TRUE(writer.wait_for_room(2, stopped.get_token()));
}

}  // namespace rung_test
