#include "engine/encode/backend/svt_av1_params.hpp"

#include <dlfcn.h>

#include <charconv>

namespace ladder::engine {

int svt_av1_major_of(std::string_view version) {
    if (!version.empty() && (version.front() == 'v' || version.front() == 'V')) version.remove_prefix(1);
    int major = 0;
    const auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), major);
    if (ec != std::errc{} || end == version.data() || (end != version.data() + version.size() && *end != '.'))
        return 0;
    return major;
}

int loaded_svt_av1_major() {
    // libavcodec links SVT-AV1 itself: its symbols are in the process's
    // global scope when it is there (no library of ladder's own to link).
    static const int major = [] {
        using GetVersion = const char* (*)();
        void* symbol = dlsym(RTLD_DEFAULT, "svt_av1_get_version");
        if (!symbol) return 0;
        const char* text = reinterpret_cast<GetVersion>(symbol)();
        return text ? svt_av1_major_of(text) : 0;
    }();
    return major;
}

std::string svt_av1_crf_params(int major_version) {
    if (major_version >= 2) return ":hierarchical-levels=3";  // 8-frame mini-GOPs
    if (major_version == 1) return ":hierarchical-levels=4";  // 16
    return "";
}

}  // namespace ladder::engine
