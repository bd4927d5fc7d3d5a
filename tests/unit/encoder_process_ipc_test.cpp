// The pieces between ladder and an encoder process, in one process: framed
// messages with a passed descriptor over the socket pair, and frames through
// the shared memory ring (pixels arrive intact, read-only, and the release
// callback runs when the last reference goes).
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "engine/encode/process/shared_frame_ring.hpp"
#include "engine/encode/process/worker_socket.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

namespace ladder::engine {
namespace {

using namespace std::chrono_literals;

TEST(WorkerSocket, MessagesKeepTheirBoundariesBytesAndDescriptor) {
    auto [a, b] = ipc::socket_pair();
    ipc::Socket left(std::move(a)), right(std::move(b));
    // Larger than a socket buffer: the writer must finish in pieces while
    // the reader reads.
    std::vector<std::uint8_t> big(3 << 20);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 7);
    const int memfd = ::memfd_create("test", MFD_CLOEXEC);
    ASSERT_GE(memfd, 0);
    ASSERT_EQ(::write(memfd, "hello", 5), 5);
    std::thread writer([&] {
        left.send(ipc::MessageType::packet, R"({"pts":7})", big, memfd);
        left.send(ipc::MessageType::done, "{}");
    });
    ASSERT_EQ(right.wait(5s, -1), ipc::Socket::Wait::readable);
    ipc::Message m = right.receive();
    EXPECT_EQ(m.type, ipc::MessageType::packet);
    EXPECT_EQ(nlohmann::json::parse(m.json)["pts"], 7);
    EXPECT_EQ(m.bytes, big);
    ASSERT_TRUE(m.fd);
    char text[6] = {};
    EXPECT_EQ(::pread(m.fd.get(), text, 5, 0), 5);
    EXPECT_STREQ(text, "hello") << "the same file through the passed descriptor";
    ipc::Message second = right.receive();
    EXPECT_EQ(second.type, ipc::MessageType::done);
    EXPECT_FALSE(second.fd);
    writer.join();
    ::close(memfd);
}

TEST(WorkerSocket, TheEndOfThePeerIsPeerGoneAndAWakeIsSeen) {
    auto [a, b] = ipc::socket_pair();
    ipc::Socket right(std::move(b));
    av::UniqueFd wake(::eventfd(0, EFD_CLOEXEC));
    EXPECT_EQ(right.wait(10ms, wake.get()), ipc::Socket::Wait::timeout);
    const std::uint64_t one = 1;
    ASSERT_EQ(::write(wake.get(), &one, sizeof one), static_cast<ssize_t>(sizeof one));
    EXPECT_EQ(right.wait(5s, wake.get()), ipc::Socket::Wait::woken);
    {
        ipc::Socket gone(std::move(a));
    }
    EXPECT_EQ(right.wait(5s, -1), ipc::Socket::Wait::readable);
    EXPECT_THROW(right.receive(), ipc::PeerGone);
    ipc::Socket closed_peer(std::move(right));
    auto [c, d] = ipc::socket_pair();
    ipc::Socket writer(std::move(c));
    { av::UniqueFd drop(std::move(d)); }
    EXPECT_THROW(writer.send(ipc::MessageType::frame, "{}"), ipc::PeerGone);
}

av::FramePtr pattern_frame(AVPixelFormat format, int width, int height) {
    av::FramePtr f = av::make_frame();
    f->format = format;
    f->width = width;
    f->height = height;
    f->color_range = AVCOL_RANGE_MPEG;
    f->colorspace = AVCOL_SPC_BT709;
    f->sample_aspect_ratio = AVRational{1, 1};
    EXPECT_EQ(av_frame_get_buffer(f.get(), 0), 0);
    for (int p = 0; p < 3; ++p)
        for (int y = 0; y < (p ? (height + 1) / 2 : height); ++y)
            for (int x = 0; x < f->linesize[p]; ++x) f->data[p][y * f->linesize[p] + x] = static_cast<std::uint8_t>(x + 3 * y + 50 * p);
    return f;
}

TEST(SharedFrameRing, FramesArriveIntactReadOnlyAndAreReleased) {
    for (const auto& [format, w, h] : {std::tuple{AV_PIX_FMT_YUV420P, 321, 181}, std::tuple{AV_PIX_FMT_YUV420P10LE, 64, 48}}) {
        const std::size_t bytes = slot_bytes_for({format, w, h});
        SharedFrameRing ring(2, bytes);
        av::FramePtr src = pattern_frame(format, w, h);
        ring.write(1, *src);
        MappedFrameRing mapped(av::UniqueFd(::dup(ring.fd())), 2, bytes);
        int released = 0;
        {
            av::FramePtr got = mapped.frame(1, frame_properties(*src), [&] { ++released; });
            EXPECT_EQ(got->width, w);
            EXPECT_EQ(got->height, h);
            EXPECT_EQ(got->colorspace, AVCOL_SPC_BT709);
            EXPECT_EQ(got->color_range, AVCOL_RANGE_MPEG);
            EXPECT_EQ(av_buffer_is_writable(got->buf[0]), 0) << "the encoder may not write into ladder's memory";
            const int plane_bytes[3] = {av_image_get_linesize(format, w, 0), av_image_get_linesize(format, w, 1),
                                        av_image_get_linesize(format, w, 2)};
            for (int p = 0; p < 3; ++p)
                for (int y = 0; y < (p ? (h + 1) / 2 : h); ++y)
                    ASSERT_EQ(0, std::memcmp(got->data[p] + y * got->linesize[p], src->data[p] + y * src->linesize[p],
                                             static_cast<std::size_t>(plane_bytes[p])))
                        << "plane " << p << " row " << y;
            av::FramePtr extra = av::ref_frame(got.get());
            got.reset();
            EXPECT_EQ(released, 0) << "still referenced";
        }
        EXPECT_EQ(released, 1);
        av::FramePtr too_big = pattern_frame(format, w * 2, h);
        EXPECT_ANY_THROW(ring.write(0, *too_big));
        EXPECT_ANY_THROW(mapped.frame(2, frame_properties(*src), {})) << "no slot 2";
    }
}

}  // namespace
}  // namespace ladder::engine
