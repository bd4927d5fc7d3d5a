#include "engine/output/output_formats.hpp"

#include <fmt/format.h>

#include <sstream>

#include "engine/base/errors.hpp"

namespace ladder::engine {

std::string to_string(OutputFormats formats) {
    std::string out;
    for (OutputFormat f : kOutputFormats)
        if (formats.contains(f)) {
            if (!out.empty()) out += ',';
            out += format_name(f);
        }
    return out;
}

OutputFormats parse_output_formats(const std::string& list) {
    OutputFormats formats;
    std::istringstream in(list);
    for (std::string item; std::getline(in, item, ',');) {
        if (item == "both") {
            formats.add(OutputFormat::hls).add(OutputFormat::mp4);
            continue;
        }
        bool known = false;
        for (OutputFormat f : kOutputFormats)
            if (item == format_name(f)) {
                formats.add(f);
                known = true;
            }
        if (!known)
            throw InputError(
                fmt::format("--format {}: '{}' is not a format: use a comma list of hls, dash and mp4 (both = hls,mp4)",
                            list, item));
    }
    if (formats.empty()) throw InputError("--format: name at least one of hls, dash and mp4");
    return formats;
}

}  // namespace ladder::engine
