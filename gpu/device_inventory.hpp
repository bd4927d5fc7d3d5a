#pragma once
// What encoders and decoders this machine offers: the CPU with its software
// AV1 encoders, NVIDIA GPUs (NVML for identity, the Video Codec SDK for
// NVENC and NVDEC, all loaded at run time) and Intel GPUs (oneVPL, loaded
// at run time). Missing libraries or drivers are reported as a status line,
// never as an error: a machine without GPUs is a normal machine.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ladder::gpu {

struct SoftwareEncoder {
    std::string name;     // libavcodec encoder name: libsvtav1, libaom-av1
    std::string version;  // library version as the library reports it
};

struct CpuDevice {
    int cores = 1;
    std::string model;
    std::uint64_t available_memory_bytes = 0;
    std::vector<SoftwareEncoder> av1_encoders;
};

// One row of NVDEC capabilities (cuvidGetDecoderCaps), 4:2:0.
struct DecodeCaps {
    std::string codec;  // "av1", "hevc", "h264"
    int bit_depth = 8;
    bool supported = false;
    int max_width = 0;
    int max_height = 0;
    int engines = 0;  // nNumNVDECs
};

struct NvencProbe {
    bool session_opened = false;  // nvEncOpenEncodeSessionEx succeeded
    bool av1_encode = false;      // the AV1 encode GUID is listed
    std::optional<int> session_limit;  // concurrent sessions, where known
    int engines = 0;              // NV_ENC_CAPS_NUM_ENCODER_ENGINES for AV1; 0: unknown
    std::string reason;           // why it cannot encode AV1 ("no NVENC engine", ...)
    bool can_encode_av1() const { return session_opened && av1_encode; }
};

struct NvidiaGpu {
    int index = 0;        // ladder's GPU index (policy gpu:I), see DeviceInventory
    int nvml_index = 0;
    int cuda_ordinal = -1;  // CUDA device ordinal of the same PCI bus id; -1 unknown
    std::string name;
    std::string uuid;
    std::string pci_bus_id;
    std::uint64_t memory_total_bytes = 0;
    NvencProbe nvenc;
    std::vector<DecodeCaps> nvdec;
    std::string nvdec_status;  // empty when the caps were read
};

struct IntelGpu {
    int index = 0;          // ladder's GPU index
    std::string name;       // device name where oneVPL reports one, else the implementation name
    std::string implementation;  // oneVPL implementation name ("mfx-gen")
    std::string device_id;  // oneVPL DeviceID ("56a0/0")
    int adapter = -1;
    std::string render_node;  // "/dev/dri/renderD128" where known
    bool av1_encode = false;
    bool av1_decode = false;
    std::string reason;  // why it cannot encode AV1, empty when it can
};

struct DeviceInventory {
    CpuDevice cpu;
    std::string nvidia_driver_version;
    std::string nvidia_status;  // empty when NVML answered; else why there is no list
    std::vector<NvidiaGpu> nvidia;
    std::string intel_status;   // empty when oneVPL answered
    std::vector<IntelGpu> intel;
    std::string ffmpeg_version;     // FFmpeg release the libraries report (av_version_info): "5.1.6-0+deb12u1"
    std::string libavcodec_version; // "59.37.100"
    bool ffmpeg_av1_nvenc = false;  // avcodec_find_encoder_by_name("av1_nvenc")
    bool ffmpeg_av1_qsv = false;
    bool ffmpeg_nvdec = false;      // CUDA hwaccel device type and scale_cuda filter present
};

// GPU indices are ladder's own: NVIDIA GPUs first in NVML (PCI bus) order,
// then Intel adapters in oneVPL order. `ladder devices` shows them and
// `--policy gpu:I,J` takes them.
DeviceInventory probe_devices();

// The driver libraries the probe opens, loaded at run time. Tests name ones
// that do not exist to check that a missing library is a status, not a crash.
struct ProbeLibraries {
    std::string nvml = "libnvidia-ml.so.1";
    std::string cuda = "libcuda.so.1";
    std::string nvenc = "libnvidia-encode.so.1";
    std::string cuvid = "libnvcuvid.so.1";
    std::string vpl = "libvpl.so.2";
};
// Which NVIDIA GPUs (by ladder index: their position in NVML order) the
// probe opens a CUDA context and an NVENC session on to ask what they can
// do; the others are listed with a reason saying they were not asked. Empty:
// every GPU. An encode with `--policy gpu:I` never touches the GPUs it
// excluded, not even to ask.
using NvencProbeScope = std::function<bool(int index)>;
DeviceInventory probe_devices(const ProbeLibraries& libraries, const NvencProbeScope& scope = {});

nlohmann::json to_json(const DeviceInventory& inventory);

}  // namespace ladder::gpu
