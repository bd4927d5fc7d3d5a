// How fast a stand-in NVENC engine is: a per-frame pace from NVIDIA's
// published AV1 throughput per engine, and the engines of one GPU shared by
// every session on it, across processes (README.md here).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ladder::standin {

// Frames per second of one NVENC engine encoding AV1 at 1080p, 8-bit 4:2:0,
// for preset 1-7; `low_latency`: CBR with low-latency tuning, else VBR with
// high-quality tuning. NVIDIA's NVENC Application Note (Video Codec SDK 13.0,
// "NVENC AV1 encoding performance", RTX 4090, Ada) gives P1, P3, P5 and P7;
// the even presets are the geometric mean of their neighbours.
double published_av1_fps_1080p(int preset, bool low_latency);

// The time one frame of width x height holds an engine.
std::chrono::duration<double> frame_time(double fps_1080p, unsigned width, unsigned height);

// The engines of one GPU, one lock file each in the state directory: a
// session holds an engine for each frame, so no more sessions than engines
// encode at once on a GPU, whichever processes they are in.
class EnginePace {
public:
    EnginePace(int gpu, int engines, std::chrono::duration<double> per_frame);
    EnginePace(const EnginePace&) = delete;
    EnginePace& operator=(const EnginePace&) = delete;
    ~EnginePace();

    // Holds an engine while `work` runs and until the frame's time is up.
    template <typename Work>
    auto frame(Work&& work) {
        const Held held(*this);
        return work();
    }

    std::chrono::duration<double> per_frame() const { return per_frame_; }
    // Seconds this session held an engine.
    double busy_seconds() const { return busy_.count(); }

private:
    class Held {
    public:
        explicit Held(EnginePace& pace);
        Held(const Held&) = delete;
        Held& operator=(const Held&) = delete;
        ~Held();

    private:
        EnginePace& pace_;
        int fd_;
        std::chrono::steady_clock::time_point start_;
    };

    int acquire();  // an engine's lock file, locked
    std::vector<int> fds_;
    std::chrono::duration<double> per_frame_;
    std::chrono::duration<double> busy_{0};
    unsigned next_ = 0;
};

}  // namespace ladder::standin
