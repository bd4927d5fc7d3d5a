// Inputs are regular files only, opened without ever blocking
// (av/regular_file.*, av/input_file.*), and a stop ends libavformat's reads
// of an input (InputSpec::stop, AVIOInterruptCB).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <stdexcept>
#include <string>
#include <system_error>

#include "av/av_error.hpp"
#include "av/input_file.hpp"
#include "av/regular_file.hpp"
#include "engine/base/errors.hpp"
#include "engine/source/image_sequence.hpp"

namespace ladder {
namespace {

namespace fs = std::filesystem;

// A folder of the test's own under the temporary directory, removed with
// it (FIFOs and frames included).
class ScratchFolder {
public:
    explicit ScratchFolder(const std::string& name)
        : path_(fs::temp_directory_path() / ("ladder-unit-" + name + "-" + std::to_string(::getpid()))) {
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~ScratchFolder() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

fs::path fifo_in(const fs::path& dir) {
    const fs::path fifo = dir / "stream.mp4";
    if (::mkfifo(fifo.c_str(), 0600) != 0) throw std::runtime_error("mkfifo");
    return fifo;
}

// Runs open on a thread of its own and gives it 10 s. Were it to block on
// the FIFO (a reader waiting for a writer), the test opens the FIFO's write
// end, which lets it go, and fails.
template <typename Open>
void expect_refused_without_blocking(const fs::path& fifo, Open open) {
    auto opening = std::async(std::launch::async, [&] {
        try {
            open();
        } catch (const av::NotARegularFile& e) {
            return std::string(e.what());
        }
        return std::string("opened");
    });
    if (opening.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        ADD_FAILURE() << "blocked opening " << fifo;
        ::close(::open(fifo.c_str(), O_WRONLY | O_NONBLOCK));
    }
    const std::string said = opening.get();
    EXPECT_NE(said.find(fifo.string() + " is a FIFO (named pipe): ladder reads regular files only; write the "
                                        "stream to a file first"),
              std::string::npos)
        << said;
}

TEST(RegularInput, AFifoIsRefusedWithoutWaitingForAWriter) {
    const ScratchFolder folder("fifo-input");
    const fs::path fifo = fifo_in(folder.path());
    expect_refused_without_blocking(fifo, [&] { av::InputFile input(fifo.string()); });
    expect_refused_without_blocking(fifo, [&] { av::read_regular_file(fifo.string(), "input"); });
}

TEST(RegularInput, DevicesSocketsAndFoldersAreNotRead) {
    const ScratchFolder folder("odd-inputs");
    const fs::path& dir = folder.path();
    try {
        av::read_regular_file("/dev/zero", "ladder file");
        ADD_FAILURE() << "/dev/zero was read";
    } catch (const av::NotARegularFile& e) {
        EXPECT_EQ(e.kind(), "a character device");
        EXPECT_STREQ(e.what(), "ladder file /dev/zero is a character device: ladder reads regular files only; "
                               "write the stream to a file first");
    }
    try {
        av::RegularFile folder(dir.string(), "input");
        ADD_FAILURE() << "a folder was opened";
    } catch (const av::NotARegularFile& e) {
        EXPECT_EQ(e.kind(), "a directory");
        EXPECT_NE(std::string(e.what()).find("name a file in it"), std::string::npos) << e.what();
    }
    // A path that is not there is no refusal: opening it says what is wrong.
    try {
        av::RegularFile missing((dir / "missing.json").string(), "input");
        ADD_FAILURE() << "a missing file was opened";
    } catch (const std::system_error& e) {
        EXPECT_EQ(e.code().value(), ENOENT);
    }
    std::ofstream(dir / "plan.json") << "{\"a\": 1}\n";
    EXPECT_EQ(av::read_regular_file((dir / "plan.json").string(), "the plan"), "{\"a\": 1}\n");
}

TEST(RegularInput, AnImageSequenceFrameThatIsAFifoIsNamed) {
    const ScratchFolder folder("fifo-frame");
    const fs::path& dir = folder.path();
    for (const char* name : {"img_1.png", "img_2.png", "img_4.png"}) std::ofstream(dir / name) << name;
    if (::mkfifo((dir / "img_3.png").c_str(), 0600) != 0) FAIL() << "mkfifo";
    try {
        engine::scan_image_sequence(dir / "img_%d.png");
        ADD_FAILURE() << "the sequence was accepted";
    } catch (const engine::InputError& e) {
        // Not "frame 3 is missing": it is there, and it is not an image file.
        EXPECT_EQ(std::string(e.what()), "input " + (dir / "img_%d.png").string() + ": frame " +
                                             (dir / "img_3.png").string() +
                                             " is a FIFO (named pipe): ladder reads regular files only; write the "
                                             "stream to a file first");
    }
}

// 64 frames of 64x64 grey pixels, read by the rawvideo demuxer: one packet
// per frame, 256 KiB in all, far more than libavformat's read buffer.
av::InputSpec raw_video(const fs::path& dir, std::stop_token stop) {
    const fs::path file = dir / "frames.gray";
    std::ofstream(file, std::ios::binary) << std::string(64 * 64 * 64, '\x80');
    av::InputSpec spec(file.string());
    spec.format = "rawvideo";
    spec.options = {{"video_size", "64x64"}, {"pixel_format", "gray"}, {"framerate", "25"}};
    spec.stop = std::move(stop);
    return spec;
}

TEST(InputInterrupt, AStopEndsTheReadsOfAnOpenInput) {
    std::stop_source stop;
    const ScratchFolder folder("interrupt-reads");
    av::InputFile input(raw_video(folder.path(), stop.get_token()));
    av::PacketPtr pkt = av::make_packet();
    ASSERT_TRUE(input.read(pkt.get()));
    av_packet_unref(pkt.get());
    stop.request_stop();
    int packets_after_stop = 0;
    try {
        // What libavformat has buffered still comes; the next read of the
        // file gives up.
        while (input.read(pkt.get())) {
            av_packet_unref(pkt.get());
            ++packets_after_stop;
        }
        ADD_FAILURE() << "read to the end after the stop";
    } catch (const av::AvError& e) {
        EXPECT_EQ(e.code(), AVERROR_EXIT) << e.what();
    }
    EXPECT_LT(packets_after_stop, 63);
}

TEST(InputInterrupt, AStopBeforeOpeningEndsTheProbe) {
    std::stop_source stop;
    stop.request_stop();
    const ScratchFolder folder("interrupt-open");
    av::InputSpec spec = raw_video(folder.path(), stop.get_token());
    spec.format.clear();  // probed from its first bytes, which are not read
    spec.options.clear();
    try {
        av::InputFile input(spec);
        ADD_FAILURE() << "opened after the stop";
    } catch (const av::AvError& e) {
        EXPECT_EQ(e.code(), AVERROR_EXIT) << e.what();
    }
}

}  // namespace
}  // namespace ladder
