#include "cli/failure_hint.hpp"

#include <cerrno>
#include <system_error>

#include <fmt/format.h>

extern "C" {
#include <libavutil/error.h>
}

#include "av/av_error.hpp"

namespace ladder::cli {

namespace {

bool is_space_errno(int e) { return e == ENOSPC || e == EDQUOT; }

}  // namespace

bool is_out_of_space(const std::exception& e) {
    if (const auto* s = dynamic_cast<const std::system_error*>(&e)) {
        const auto& cat = s->code().category();
        return (cat == std::generic_category() || cat == std::system_category()) && is_space_errno(s->code().value());
    }
    if (const auto* a = dynamic_cast<const av::AvError*>(&e))
        return a->code() == AVERROR(ENOSPC) || a->code() == AVERROR(EDQUOT);
    return false;
}

std::string failure_hint(const std::exception& e, const std::filesystem::path& outdir) {
    if (!is_out_of_space(e)) return "";
    // The journal under OUTDIR/.ladder keeps every chunk that was accepted,
    // so after freeing space nothing already encoded is lost.
    return fmt::format("free space on the file system of {} (or give another -o) and run the same command with "
                       "--resume: the chunks already encoded are kept",
                       outdir.string());
}

}  // namespace ladder::cli
