#include "av/logging.hpp"

#include <cstdlib>
#include <string_view>

extern "C" {
#include <libavutil/log.h>
}

namespace ladder::av {

void quiet_library_logs() {
    int level = AV_LOG_ERROR;
    if (const char* env = std::getenv("LADDER_FFMPEG_LOG")) {
        const std::string_view v(env);
        if (v == "warning") level = AV_LOG_WARNING;
        if (v == "info") level = AV_LOG_INFO;
        if (v == "debug") level = AV_LOG_DEBUG;
    }
    av_log_set_level(level);
    // Before any encoder thread exists; does not override the user's choice.
    setenv("SVT_LOG", "1", 0);
}

}  // namespace ladder::av
