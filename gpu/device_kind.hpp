#pragma once
// Where an encoder slot encodes: the CPU, an NVIDIA GPU or an Intel GPU.
namespace ladder::gpu {

enum class DeviceKind { cpu, nvidia, intel };

}  // namespace ladder::gpu
