#include "engine/encode/chunk_verification.hpp"

#include <cctype>
#include <cstdlib>

namespace ladder::engine {

bool may_write_undecodable_frames(std::string_view encoder, std::string_view version) {
    if (encoder != "libsvtav1") return false;
    if (!version.empty() && (version.front() == 'v' || version.front() == 'V')) version.remove_prefix(1);
    if (version.empty() || !std::isdigit(static_cast<unsigned char>(version.front()))) return true;  // unknown
    return std::atoi(std::string(version).c_str()) >= 2;
}

std::set<std::string> encoders_to_verify(const std::vector<std::pair<std::string, std::string>>& encoders, bool all) {
    std::set<std::string> out;
    for (const auto& [encoder, version] : encoders)
        if (all || may_write_undecodable_frames(encoder, version)) out.insert(encoder);
    return out;
}

}  // namespace ladder::engine
