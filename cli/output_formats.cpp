#include "cli/output_formats.hpp"

#include <fmt/format.h>

#include <sstream>

#include "engine/base/errors.hpp"

namespace ladder::cli {

OutputFormats parse_output_formats(const std::string& list) {
    bool hls = false, dash = false, mp4 = false;
    std::istringstream in(list);
    for (std::string item; std::getline(in, item, ',');) {
        if (item == "hls") hls = true;
        else if (item == "dash") dash = true;
        else if (item == "mp4") mp4 = true;
        else if (item == "both") hls = mp4 = true;
        else
            throw engine::InputError(
                fmt::format("--format {}: '{}' is not a format: use a comma list of hls, dash and mp4 (both = hls,mp4)",
                            list, item));
    }
    if (!hls && !dash && !mp4) throw engine::InputError("--format: name at least one of hls, dash and mp4");
    OutputFormats f;
    f.dash = dash;
    // DASH shares HLS's segments: they are written either way.
    const bool segments = hls || dash;
    f.packaging = segments && mp4 ? engine::OutputFormat::both
                  : segments      ? engine::OutputFormat::hls
                                  : engine::OutputFormat::mp4;
    return f;
}

}  // namespace ladder::cli
