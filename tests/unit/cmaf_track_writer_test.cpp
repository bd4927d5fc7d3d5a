// CmafTrackWriter set-up failures (issue 16, point 1): when the header or the
// init.mp4 write fails after the custom AVIOContext is attached to the muxer,
// the constructor throws and the writer's members are destroyed. That must
// free the custom AVIOContext as one (avio_context_free), never close it as
// a file: avio_close would take the writer object (its opaque) for a
// URLContext and crash. Covers the video rungs (AV1) and the HLS audio
// rendition (AAC, engine/output/audio_rendition_writer.cpp) — both use this writer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "av/av_error.hpp"
#include "av/handles.hpp"
#include "av/memory_input.hpp"
#include "mux/bmff_boxes.hpp"
#include "mux/cmaf_track_writer.hpp"
#include "mux/output_folder.hpp"
#include "av1_test_encoder.hpp"

extern "C" {
#include <libavutil/channel_layout.h>
#include <libavutil/mem.h>
}

namespace ladder {
namespace {

namespace fs = std::filesystem;

void set_extradata(AVCodecParameters* par, const std::vector<std::uint8_t>& bytes) {
    par->extradata = static_cast<std::uint8_t*>(av_mallocz(bytes.size() + AV_INPUT_BUFFER_PADDING_SIZE));
    if (!par->extradata) throw std::bad_alloc();
    std::memcpy(par->extradata, bytes.data(), bytes.size());
    par->extradata_size = static_cast<int>(bytes.size());
}

// A video rung's parameters: AV1 with the av1C taken from a real encode.
av::CodecParametersPtr av1_parameters() {
    const auto sample = test::encode_av1("libsvtav1", 160, 120);
    av::CodecParametersPtr par = av::make_codec_parameters();
    par->codec_type = AVMEDIA_TYPE_VIDEO;
    par->codec_id = AV_CODEC_ID_AV1;
    par->width = 160;
    par->height = 120;
    par->format = AV_PIX_FMT_YUV420P;
    set_extradata(par.get(), sample.extradata);
    return par;
}

// The audio rendition's parameters: AAC-LC 48 kHz stereo (AudioSpecificConfig 0x11 0x90).
av::CodecParametersPtr aac_parameters() {
    av::CodecParametersPtr par = av::make_codec_parameters();
    par->codec_type = AVMEDIA_TYPE_AUDIO;
    par->codec_id = AV_CODEC_ID_AAC;
    par->sample_rate = 48000;
    par->frame_size = 1024;
    av_channel_layout_default(&par->ch_layout, 2);
    par->bit_rate = 128000;
    set_extradata(par.get(), {0x11, 0x90});
    return par;
}

class CmafTrackWriterTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() /
               (std::string("ladder-cmaf-") + info->name() + "-" + std::to_string(::getpid()));
        fs::remove_all(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    // init.mp4 is a non-empty folder: the temporary file is written, then the
    // rename into place fails (EISDIR) — after the header, with the custom
    // AVIOContext attached. Running as root does not get around this.
    void block_init_file() {
        fs::create_directories(dir_ / mux::CmafTrackWriter::init_name / "occupied");
    }

    bool no_temporary_left() const {
        for (const auto& e : fs::directory_iterator(dir_))
            if (e.path().filename() != mux::CmafTrackWriter::init_name) return false;
        return true;
    }

    mux::OutputFolder folder() const { return mux::OutputFolder::open_named(dir_, true); }

    fs::path dir_;
};

TEST_F(CmafTrackWriterTest, VideoTrackWritesItsInitSegment) {
    if (!avcodec_find_encoder_by_name("libsvtav1")) GTEST_SKIP() << "libsvtav1 is not in this FFmpeg build";
    const auto par = av1_parameters();
    {
        mux::CmafTrackWriter writer(folder(), par.get(), AVRational{1, 25});
    }
    EXPECT_GT(fs::file_size(dir_ / mux::CmafTrackWriter::init_name), 0u);
}

TEST_F(CmafTrackWriterTest, AudioTrackWritesItsInitSegment) {
    const auto par = aac_parameters();
    {
        mux::CmafTrackWriter writer(folder(), par.get(), AVRational{1, 48000});
    }
    EXPECT_GT(fs::file_size(dir_ / mux::CmafTrackWriter::init_name), 0u);
}

std::vector<std::uint8_t> bytes_of(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// An AAC track that starts with the encoder's priming (pts -1024): init.mp4
// gets an edit list that starts the presentation after it, the samples'
// decode times start at 0, and FFmpeg's demuxer puts the first packet at
// -1024 again (issue 41). The segment's times are what it presents.
TEST_F(CmafTrackWriterTest, AudioPrimingBecomesAnEditListInTheInitSegment) {
    const auto par = aac_parameters();
    mux::CmafSegment seg;
    {
        mux::CmafTrackWriter writer(folder(), par.get(), AVRational{1, 48000}, {}, "und", 1024);
        for (std::int64_t pts : {-1024, 0, 1024}) {
            av::PacketPtr pkt = av::make_packet();
            ASSERT_EQ(av_new_packet(pkt.get(), 6), 0);
            const std::uint8_t frame[6] = {0x21, 0x10, 0x04, 0x60, 0x8c, 0x1c};  // not ADTS
            std::memcpy(pkt->data, frame, sizeof frame);
            pkt->pts = pkt->dts = pts;
            pkt->duration = 1024;
            pkt->flags |= AV_PKT_FLAG_KEY;
            writer.write(pkt.get());
        }
        seg = writer.close_segment();
        writer.finish();
    }
    EXPECT_EQ(seg.first_pts, 0);
    EXPECT_EQ(seg.duration_pts, 2048) << "the priming is not presented";
    EXPECT_NEAR(seg.duration, 2048.0 / 48000, 1e-9);

    const auto init = bytes_of(dir_ / mux::CmafTrackWriter::init_name);
    const auto segment = bytes_of(dir_ / seg.uri);
    const auto timing = mux::read_track_timing(init);
    ASSERT_TRUE(timing);
    EXPECT_EQ(timing->timescale, 48000u);
    EXPECT_TRUE(timing->has_edit_list);
    EXPECT_EQ(timing->media_time_at_zero, 1024);
    const auto layout = mux::read_fragment_layout(segment);
    ASSERT_TRUE(layout && layout->decode_time);
    EXPECT_EQ(*layout->decode_time, 0u);
    EXPECT_EQ(layout->first_sample_duration, 1024u);

    std::vector<std::uint8_t> joined = init;
    joined.insert(joined.end(), segment.begin(), segment.end());
    av::MemoryInput in(std::move(joined), "init+segment");
    av::PacketPtr first = av::make_packet();
    ASSERT_TRUE(in.read(first.get()));
    EXPECT_EQ(av_rescale_q(first->pts, in.get()->streams[0]->time_base, AVRational{1, 48000}), -1024);
}

TEST_F(CmafTrackWriterTest, AVideoTrackHasNoEditList) {
    if (!avcodec_find_encoder_by_name("libsvtav1")) GTEST_SKIP() << "libsvtav1 is not in this FFmpeg build";
    const auto par = av1_parameters();
    {
        mux::CmafTrackWriter writer(folder(), par.get(), AVRational{1, 25});
    }
    const auto timing = mux::read_track_timing(bytes_of(dir_ / mux::CmafTrackWriter::init_name));
    ASSERT_TRUE(timing);
    EXPECT_FALSE(timing->has_edit_list);
    EXPECT_EQ(timing->media_time_at_zero, 0);
}

TEST_F(CmafTrackWriterTest, VideoInitWriteFailureThrowsAndFreesTheCustomIo) {
    if (!avcodec_find_encoder_by_name("libsvtav1")) GTEST_SKIP() << "libsvtav1 is not in this FFmpeg build";
    const auto par = av1_parameters();
    block_init_file();
    try {
        mux::CmafTrackWriter writer(folder(), par.get(), AVRational{1, 25});
        FAIL() << "the writer was built although init.mp4 could not be written";
    } catch (const std::system_error& e) {
        EXPECT_NE(std::string(e.what()).find(mux::CmafTrackWriter::init_name), std::string::npos) << e.what();
    }
    EXPECT_TRUE(no_temporary_left());
}

TEST_F(CmafTrackWriterTest, AudioInitWriteFailureThrowsAndFreesTheCustomIo) {
    const auto par = aac_parameters();
    block_init_file();
    try {
        mux::CmafTrackWriter writer(folder(), par.get(), AVRational{1, 48000});
        FAIL() << "the writer was built although init.mp4 could not be written";
    } catch (const std::system_error& e) {
        EXPECT_NE(std::string(e.what()).find(mux::CmafTrackWriter::init_name), std::string::npos) << e.what();
    }
    EXPECT_TRUE(no_temporary_left());
}

// The header write itself fails (a codec the mp4 muxer refuses), also with
// the custom AVIOContext attached. Not PCM: FFmpeg 7.x writes PCM in mp4
// (ISO/IEC 23003-5 ipcm); WMA has no mp4 sample entry in any version.
TEST_F(CmafTrackWriterTest, HeaderFailureThrowsAndFreesTheCustomIo) {
    av::CodecParametersPtr par = av::make_codec_parameters();
    par->codec_type = AVMEDIA_TYPE_AUDIO;
    par->codec_id = AV_CODEC_ID_WMAV2;
    par->sample_rate = 48000;
    av_channel_layout_default(&par->ch_layout, 2);
    EXPECT_THROW(mux::CmafTrackWriter(folder(), par.get(), AVRational{1, 48000}), av::AvError);
    EXPECT_FALSE(fs::exists(dir_ / mux::CmafTrackWriter::init_name));
}

}  // namespace
}  // namespace ladder
