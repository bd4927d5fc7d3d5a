#include "av/av_error.hpp"

#include <fmt/format.h>

extern "C" {
#include <libavutil/error.h>
}

namespace ladder::av {

std::string error_string(int errnum) {
    char buf[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(errnum, buf, sizeof buf);
    return buf;
}

int check(int ret, std::string_view what) {
    if (ret < 0) throw AvError(ret, fmt::format("{}: {}", what, error_string(ret)));
    return ret;
}

}  // namespace ladder::av
