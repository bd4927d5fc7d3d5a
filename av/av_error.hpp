#pragma once
// Error translation for FFmpeg return codes: every negative AVERROR becomes an
// AvError carrying what was being done, so callers never lose the context.
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace ladder::av {

class AvError : public std::runtime_error {
public:
    AvError(int code, const std::string& message, std::string detail = {})
        : std::runtime_error(message), code_(code), detail_(std::move(detail)) {}
    int code() const noexcept { return code_; }
    // What FFmpeg logged about it, when that was captured (else empty).
    const std::string& detail() const noexcept { return detail_; }

private:
    int code_;
    std::string detail_;
};

std::string error_string(int errnum);

// Returns ret unchanged when it is not an error; otherwise throws AvError
// "<what>: <FFmpeg's description>".
int check(int ret, std::string_view what);

}  // namespace ladder::av
