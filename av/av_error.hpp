#pragma once
// Error translation for FFmpeg return codes: every negative AVERROR becomes an
// AvError carrying what was being done, so callers never lose the context.
#include <stdexcept>
#include <string>
#include <string_view>

namespace ladder::av {

class AvError : public std::runtime_error {
public:
    AvError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
    int code() const noexcept { return code_; }

private:
    int code_;
};

std::string error_string(int errnum);

// Returns ret unchanged when it is not an error; otherwise throws AvError
// "<what>: <FFmpeg's description>".
int check(int ret, std::string_view what);

}  // namespace ladder::av
