// What the stand-in NVIDIA driver (tests/standin) pretends to be, read once
// from the environment. Test equipment: see tests/standin/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ladder::standin {

struct GpuLoss {
    int gpu = -1;              // CUDA ordinal; -1: no loss
    std::int64_t after_frames = 0;  // frames one session encodes before the GPU is lost
};

struct Settings {
    int gpus = 2;                               // LADDER_STANDIN_GPUS
    std::string name = "NVIDIA L4";             // LADDER_STANDIN_GPU_NAME
    std::uint64_t memory_mib = 23034;           // LADDER_STANDIN_GPU_MEMORY_MIB
    std::vector<std::string> nvenc_gpus;        // LADDER_STANDIN_NVENC_GPUS: ordinals or bus ids; empty = all
    int sessions_per_gpu = 0;                   // LADDER_STANDIN_SESSIONS_PER_GPU; 0 = no limit
    int sessions_per_system = 0;                // LADDER_STANDIN_SESSIONS_PER_SYSTEM; 0 = no limit
    int open_ms = 200;                          // LADDER_STANDIN_OPEN_MS
    int engines = 2;                            // LADDER_STANDIN_ENGINES: NVENC engines per GPU
    // LADDER_STANDIN_PACE: "published" (-1: NVIDIA's AV1 figures by preset),
    // "off" (0), or frames per second of one engine at 1080p.
    double pace_fps_1080p = -1;
    // LADDER_STANDIN_THROUGHPUT=1: only key frames are encoded (libaom);
    // every other frame shows the last key frame again.
    bool throughput = false;
    // LADDER_STANDIN_KEY_FRAMES=first (throughput mode): only a session's
    // first key frame is encoded, later ones repeat its bytes.
    bool first_key_frame_only = false;
    std::string state_dir;                      // LADDER_STANDIN_STATE_DIR
    std::string log_file;                       // LADDER_STANDIN_LOG; empty = none
    GpuLoss loss;                               // LADDER_STANDIN_LOSE_GPU=ORDINAL@FRAMES
};

// Parsed on first use; a malformed variable is reported on stderr once and
// its default kept (the stand-in has no other channel before FFmpeg's log).
const Settings& settings();

// "00000000:17:00.0", the form NVML writes, for the stand-in GPU `ordinal`.
std::string pci_bus_id(int ordinal);
// The ordinal of a bus id in NVML's or CUDA's form (case and the domain's
// width do not matter), or -1.
int ordinal_of_bus_id(const std::string& bus_id);
// Whether two bus ids name the same device, in either form.
bool same_bus_id(const std::string& a, const std::string& b);

// Appends one line to LADDER_STANDIN_LOG (one write(2) with O_APPEND, so
// lines from several processes never interleave).
void log_event(const std::string& line);
// A client broke NVENC's contract: "misuse gpu=G pid=P WHAT" in the event
// log and on stderr.
void report_misuse(int gpu, const std::string& what);

}  // namespace ladder::standin
