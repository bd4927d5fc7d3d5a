#include "gpu/software_encoders.hpp"

#include <dlfcn.h>

#include "gpu/cpu_info.hpp"
#include "gpu/dynamic_library.hpp"

namespace ladder::gpu {

namespace {

struct KnownEncoder {
    const char* encoder;         // libavcodec encoder name
    const char* library_prefix;  // file name of the library behind it, without version suffix
    const char* version_symbol;  // its `const char* f(void)` version function
};

constexpr KnownEncoder kKnown[] = {
    {"libsvtav1", "libSvtAv1Enc.so", "svt_av1_get_version"},
    {"libaom-av1", "libaom.so", "aom_codec_version_str"},
    {"librav1e", "librav1e.so", "rav1e_version_full"},
};

}  // namespace

std::string loaded_library_version(const std::string& library_prefix, const char* symbol) {
    const std::string path = loaded_library_path(library_prefix);
    if (path.empty()) return "unknown";
    // RTLD_NOLOAD: only a handle to the copy libavcodec uses, never a second
    // library that might not be the one encoding.
    const DynamicLibrary lib(path, RTLD_NOLOAD);
    auto* version = lib.function<const char*()>(symbol);
    if (!version) return "unknown";
    const char* text = version();
    return text && *text ? text : "unknown";
}

std::vector<SoftwareEncoder> probe_software_av1_encoders() {
    std::vector<SoftwareEncoder> found;
    for (const auto& known : kKnown) {
        if (!encoder_available(known.encoder)) continue;
        found.push_back({known.encoder, loaded_library_version(known.library_prefix, known.version_symbol)});
    }
    return found;
}

}  // namespace ladder::gpu
