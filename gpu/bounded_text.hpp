#pragma once
// Driver structures (NVML, oneVPL) carry names in fixed char arrays that are
// NUL-terminated unless full: a full buffer must not be read past its end.

#include <cstddef>
#include <cstring>
#include <string>

namespace ladder::gpu {

template <std::size_t N>
std::string bounded_text(const char (&buffer)[N]) {
    return std::string(buffer, strnlen(buffer, N));
}

}  // namespace ladder::gpu
