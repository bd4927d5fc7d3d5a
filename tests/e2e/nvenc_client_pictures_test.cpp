// ladder's own NVENC client on CUDA frames, the path NVDEC's and
// scale_cuda's frames take on a GPU machine, and on host frames, run in the
// test process on the stand-in driver (whose CUDA keeps "device" memory on the host, and whose
// NVENC reads a registered frame as NVENC does, by the format it was
// registered with): frames FFmpeg's CUDA pool made, and host frames copied
// into NVENC's input buffers, must come back as the pictures that were
// sent, colours included. FFmpeg lays a yuv420p CUDA
// frame out V before U (for NVENC's YV12); registered as IYUV, every
// picture's chroma came out swapped (found on a lent H200: 11.9 dB).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "av/av_error.hpp"
#include "av/frame_metric.hpp"
#include "av/handles.hpp"
#include "engine/encode/backend/nvenc_session.hpp"
#include "media_tools.hpp"
#include "standin_driver_dir.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

namespace ladder::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDriverDir = kStandInDriverDir;

constexpr int kWidth = 320;
constexpr int kHeight = 180;

// A picture whose planes all differ: Y a horizontal ramp, U a vertical
// one, V a diagonal one (a swap of U and V is tens of dB off).
av::FramePtr source_picture(int n) {
    av::FramePtr f = av::make_frame();
    f->format = AV_PIX_FMT_YUV420P;
    f->width = kWidth;
    f->height = kHeight;
    av::check(av_frame_get_buffer(f.get(), 0), "a host frame");
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) f->data[0][y * f->linesize[0] + x] = static_cast<std::uint8_t>(16 + (x + n) % 200);
    for (int y = 0; y < kHeight / 2; ++y)
        for (int x = 0; x < kWidth / 2; ++x) {
            f->data[1][y * f->linesize[1] + x] = static_cast<std::uint8_t>(40 + y);
            f->data[2][y * f->linesize[2] + x] = static_cast<std::uint8_t>(220 - (x + y) / 2);
        }
    return f;
}

av::FramePtr converted(const AVFrame& src, AVPixelFormat to) {
    av::FramePtr out = av::make_frame();
    out->format = to;
    out->width = src.width;
    out->height = src.height;
    av::check(av_frame_get_buffer(out.get(), 0), "a host frame");
    SwsContext* sws = sws_getContext(src.width, src.height, static_cast<AVPixelFormat>(src.format), src.width,
                                     src.height, to, SWS_POINT, nullptr, nullptr, nullptr);
    EXPECT_NE(sws, nullptr);
    av::check(sws_scale_frame(sws, out.get(), &src), "converting");
    sws_freeContext(sws);
    return out;
}

struct Frames {
    AVPixelFormat format;
    bool on_device;  // a CUDA frame of FFmpeg's pool, else a host frame
};

class NvencClientPictures : public ::testing::TestWithParam<Frames> {
protected:
    void SetUp() override {
        ASSERT_NE(kDriverDir, nullptr) << "the stand-in NVIDIA driver was not built";
        const fs::path dir = fresh_dir(std::string("nvenc-client-pictures-") + av_get_pix_fmt_name(GetParam().format) +
                                       (GetParam().on_device ? "-device" : "-host"));
        setenv("LADDER_STANDIN_LOG", (dir / "events.log").c_str(), 1);
        setenv("LADDER_STANDIN_STATE_DIR", (dir / "state").c_str(), 1);
        setenv("LADDER_STANDIN_OPEN_MS", "0", 1);
        setenv("LADDER_STANDIN_PACE", "off", 1);
        // Loaded by path first, so that FFmpeg's and ladder's own loaders
        // (which ask for the sonames) get the stand-in's.
        cuda_ = dlopen((fs::path(kDriverDir) / "libcuda.so.1").c_str(), RTLD_NOW | RTLD_GLOBAL);
        nvenc_ = dlopen((fs::path(kDriverDir) / "libnvidia-encode.so.1").c_str(), RTLD_NOW | RTLD_GLOBAL);
        ASSERT_TRUE(cuda_ && nvenc_) << dlerror();
    }
    void TearDown() override {
        for (const char* name : {"LADDER_STANDIN_LOG", "LADDER_STANDIN_STATE_DIR", "LADDER_STANDIN_OPEN_MS",
                                 "LADDER_STANDIN_PACE"})
            unsetenv(name);
    }
    void* cuda_ = nullptr;
    void* nvenc_ = nullptr;
};

TEST_P(NvencClientPictures, ComeBackAsThePicturesSentColoursIncluded) {
    const AVPixelFormat sw_format = GetParam().format;
    const bool ten_bit = av_pix_fmt_desc_get(sw_format)->comp[0].depth > 8;
    // What the decoder gives back, to compare with.
    const AVPixelFormat planar = ten_bit ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P;
    AVBufferRef* device_raw = nullptr;
    ASSERT_EQ(av_hwdevice_ctx_create(&device_raw, AV_HWDEVICE_TYPE_CUDA, "0", nullptr, 0), 0);
    av::BufferRefPtr device(device_raw);
    av::BufferRefPtr pool(av_hwframe_ctx_alloc(device.get()));
    ASSERT_TRUE(pool);
    auto* frames = reinterpret_cast<AVHWFramesContext*>(pool->data);
    frames->format = AV_PIX_FMT_CUDA;
    frames->sw_format = GetParam().on_device ? sw_format : AV_PIX_FMT_NV12;  // the pool serves device frames only
    frames->width = kWidth;
    frames->height = kHeight;
    ASSERT_EQ(av_hwframe_ctx_init(pool.get()), 0);

    engine::NvencSessionSettings settings;
    settings.width = kWidth;
    settings.height = kHeight;
    settings.ten_bit = ten_bit;
    settings.bit_rate = 4'000'000;
    settings.max_rate = 8'000'000;
    settings.buffer_bits = 8'000'000;
    const auto* hw = static_cast<const AVCUDADeviceContext*>(reinterpret_cast<AVHWDeviceContext*>(device->data)->hwctx);
    engine::NvencSession session(hw->cuda_ctx, settings, "test gpu0");

    constexpr int kFrames = 6;
    std::vector<av::FramePtr> sent;
    std::vector<engine::NvencPicture> pictures;
    for (int n = 0; n < kFrames; ++n) {
        sent.push_back(ten_bit ? converted(*source_picture(n), planar) : source_picture(n));
        av::FramePtr host = sw_format == planar ? av::ref_frame(sent.back().get()) : converted(*sent.back(), sw_format);
        av::FramePtr frame = std::move(host);
        if (GetParam().on_device) {
            av::FramePtr on_device = av::make_frame();
            ASSERT_EQ(av_hwframe_get_buffer(pool.get(), on_device.get(), 0), 0);
            ASSERT_EQ(av_hwframe_transfer_data(on_device.get(), frame.get(), 0), 0);
            frame = std::move(on_device);
        }
        for (auto& p : session.encode(std::move(frame), n, n == 0)) pictures.push_back(std::move(p));
    }
    for (auto& p : session.finish()) pictures.push_back(std::move(p));
    ASSERT_EQ(pictures.size(), static_cast<std::size_t>(kFrames));

    const AVCodec* av1 = avcodec_find_decoder(AV_CODEC_ID_AV1);
    ASSERT_NE(av1, nullptr);
    av::CodecContextPtr decoder = av::make_codec_context(av1);
    ASSERT_EQ(avcodec_open2(decoder.get(), av1, nullptr), 0);
    av::PacketPtr pkt = av::make_packet();
    std::vector<av::FramePtr> decoded;
    const auto receive = [&] {
        for (av::FramePtr out = av::make_frame(); avcodec_receive_frame(decoder.get(), out.get()) == 0;
             out = av::make_frame()) {
            // The same colour tags as what was sent, so that FFmpeg's psnr
            // compares the planes as they are and converts nothing.
            out->color_range = sent.front()->color_range;
            out->colorspace = sent.front()->colorspace;
            out->color_primaries = sent.front()->color_primaries;
            out->color_trc = sent.front()->color_trc;
            decoded.push_back(std::move(out));
        }
    };
    for (const auto& p : pictures) {
        ASSERT_EQ(av_new_packet(pkt.get(), static_cast<int>(p.bytes.size())), 0);
        std::copy(p.bytes.begin(), p.bytes.end(), pkt->data);
        ASSERT_EQ(avcodec_send_packet(decoder.get(), pkt.get()), 0);
        av_packet_unref(pkt.get());
        receive();
    }
    avcodec_send_packet(decoder.get(), nullptr);
    receive();
    ASSERT_EQ(decoded.size(), static_cast<std::size_t>(kFrames));
    std::vector<const AVFrame*> got, want;
    for (int n = 0; n < kFrames; ++n) {
        ASSERT_EQ(decoded[static_cast<std::size_t>(n)]->format, planar);
        got.push_back(decoded[static_cast<std::size_t>(n)].get());
        want.push_back(sent[static_cast<std::size_t>(n)].get());
    }
    const auto psnr = av::FrameMetric("psnr", kWidth, kHeight, planar).compare(got, want);
    ASSERT_EQ(psnr.size(), static_cast<std::size_t>(kFrames));
    for (int n = 0; n < kFrames; ++n) {
        SCOPED_TRACE(n);
        const auto& m = psnr[static_cast<std::size_t>(n)];
        for (const char* plane : {"y", "u", "v"})
            EXPECT_GT(std::stod(m.at(std::string("lavfi.psnr.psnr.") + plane)), 30) << plane;
    }
}

// CUDA frames as NVDEC and scale_cuda make them (8 and 10 bits); host
// frames in the layouts NVENC's input buffers take (IYUV, NV12, P010) and
// ones the client converts first (yuv444p, yuv420p10).
INSTANTIATE_TEST_SUITE_P(Pools, NvencClientPictures,
                         ::testing::Values(Frames{AV_PIX_FMT_YUV420P, true}, Frames{AV_PIX_FMT_NV12, true},
                                           Frames{AV_PIX_FMT_P010, true}, Frames{AV_PIX_FMT_YUV420P, false},
                                           Frames{AV_PIX_FMT_NV12, false}, Frames{AV_PIX_FMT_YUV444P, false},
                                           Frames{AV_PIX_FMT_P010, false}, Frames{AV_PIX_FMT_YUV420P10LE, false}),
                         [](const ::testing::TestParamInfo<Frames>& info) {
                             return std::string(info.param.on_device ? "cuda_" : "host_") +
                                    av_get_pix_fmt_name(info.param.format);
                         });

}  // namespace
}  // namespace ladder::test
