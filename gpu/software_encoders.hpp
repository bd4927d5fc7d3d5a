#pragma once
// The software AV1 encoders this libavcodec build has, each with the version
// of the library behind it. libavcodec does not expose those versions, so
// they are read from the encoder libraries it already loaded.
#include <string>
#include <vector>

#include "gpu/device_inventory.hpp"

namespace ladder::gpu {

std::vector<SoftwareEncoder> probe_software_av1_encoders();

// Calls `symbol` (a `const char* (void)` version function) in the already
// loaded library whose file name starts with `library_prefix`. Never loads a
// library; "unknown" when it is not loaded or lacks the symbol.
std::string loaded_library_version(const std::string& library_prefix, const char* symbol);

}  // namespace ladder::gpu
