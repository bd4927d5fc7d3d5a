// A stand-in for libnvidia-ml.so.1, so the NVML prober's real code (symbol
// lookup, init/shutdown pairing, the nvmlPciInfo_t layout, strings) runs in
// tests on machines without an NVIDIA driver. Three GPUs, of which GPU 1
// refuses a handle (NVML_ERROR_NO_PERMISSION) and must be left out.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "gpu/nvml_api.hpp"

namespace nvml = ladder::gpu::nvml;

namespace {
int inits = 0;
int shutdowns = 0;
nvml::DeviceSt* handle_for(unsigned i) { return reinterpret_cast<nvml::DeviceSt*>(static_cast<std::uintptr_t>(0x1000 + i)); }
unsigned index_of(nvml::Device d) { return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(d) - 0x1000); }
}  // namespace

extern "C" {

// Test hooks: how many inits are not yet matched by a shutdown.
int fake_nvml_open_sessions() { return inits - shutdowns; }

nvml::Return nvmlInit_v2() {
    ++inits;
    return nvml::kSuccess;
}
nvml::Return nvmlShutdown() {
    ++shutdowns;
    return nvml::kSuccess;
}
const char* nvmlErrorString(nvml::Return r) { return r == 4 ? "Insufficient Permissions" : "Unknown Error"; }
nvml::Return nvmlSystemGetDriverVersion(char* version, unsigned int length) {
    std::snprintf(version, length, "%s", "999.12.34");
    return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetCount_v2(unsigned int* count) {
    *count = 3;
    return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvml::Device* device) {
    if (index == 1) return 4;  // NVML_ERROR_NO_PERMISSION
    if (index > 2) return 2;   // NVML_ERROR_INVALID_ARGUMENT
    *device = handle_for(index);
    return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetName(nvml::Device device, char* name, unsigned int length) {
    std::snprintf(name, length, "%s", index_of(device) == 0 ? "NVIDIA H100 80GB HBM3" : "NVIDIA GeForce RTX 4090");
    return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetUUID(nvml::Device device, char* uuid, unsigned int length) {
    std::snprintf(uuid, length, "GPU-fake-%u", index_of(device));
    return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetPciInfo_v3(nvml::Device device, nvml::PciInfo* pci) {
    std::memset(pci, 0, sizeof *pci);
    const unsigned bus = index_of(device) == 0 ? 0x17 : 0x65;
    std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02x:00.0", bus);
    pci->bus = bus;
    std::snprintf(pci->busId, sizeof pci->busId, "00000000:%02x:00.0", bus);
    return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetMemoryInfo(nvml::Device device, nvml::Memory* memory) {
    memory->total = index_of(device) == 0 ? 81559ull << 20 : 24ull << 30;
    memory->free = memory->total / 2;
    memory->used = memory->total - memory->free;
    return nvml::kSuccess;
}

}  // extern "C"
