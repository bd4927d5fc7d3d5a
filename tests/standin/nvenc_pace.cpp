#include "tests/standin/nvenc_pace.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "tests/standin/standin_settings.hpp"

namespace ladder::standin {

namespace {
// NVENC Application Note, Video Codec SDK 13.0, section "NVENC Performance",
// table "NVENC AV1 encoding performance in frames/second (fps)": 1920x1080,
// YUV 4:2:0 8-bit, per NVENC engine, RTX 4090 at its highest video clock.
// https://docs.nvidia.com/video-technologies/video-codec-sdk/13.0/nvenc-application-note/index.html
constexpr double kHighQualityVbr[] = {741, 549, 440, 323};  // P1, P3, P5, P7
constexpr double kLowLatencyCbr[] = {1090, 774, 512, 356};
}  // namespace

double published_av1_fps_1080p(int preset, bool low_latency) {
    const double* row = low_latency ? kLowLatencyCbr : kHighQualityVbr;
    const int p = std::clamp(preset, 1, 7);
    if (p % 2 == 1) return row[(p - 1) / 2];
    return std::sqrt(row[(p - 2) / 2] * row[p / 2]);
}

std::chrono::duration<double> frame_time(double fps_1080p, unsigned width, unsigned height) {
    if (fps_1080p <= 0) return std::chrono::duration<double>(0);
    const double pixels = static_cast<double>(width) * height / (1920.0 * 1080.0);
    return std::chrono::duration<double>(pixels / fps_1080p);
}

EnginePace::EnginePace(int gpu, int engines, std::chrono::duration<double> per_frame) : per_frame_(per_frame) {
    const std::filesystem::path dir = settings().state_dir;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    for (int k = 0; k < std::max(1, engines); ++k) {
        const int fd = open((dir / fmt::format("engine-{}-{}", gpu, k)).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) fds_.push_back(fd);
    }
}

EnginePace::~EnginePace() {
    for (int fd : fds_) close(fd);
}

int EnginePace::acquire() {
    if (fds_.empty()) return -1;
    for (int fd : fds_)
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
    // All busy: wait for one, taking them in turn.
    const int fd = fds_[next_++ % fds_.size()];
    flock(fd, LOCK_EX);
    return fd;
}

EnginePace::Held::Held(EnginePace& pace) : pace_(pace), fd_(pace.acquire()), start_(std::chrono::steady_clock::now()) {}

EnginePace::Held::~Held() {
    std::this_thread::sleep_until(start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(pace_.per_frame_));
    pace_.busy_ += std::chrono::steady_clock::now() - start_;
    if (fd_ >= 0) flock(fd_, LOCK_UN);
}

}  // namespace ladder::standin
