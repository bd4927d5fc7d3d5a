#include "hls_tools.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ladder::test {

namespace fs = std::filesystem;

bool PlaylistLines::has(const std::string& tag) const {
    for (const auto& t : tags)
        if (t == tag || t.rfind(tag + ":", 0) == 0) return true;
    return false;
}

std::string read_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

PlaylistLines read_playlist(const fs::path& file) {
    PlaylistLines p;
    std::istringstream in(read_text(file));
    std::string line;
    std::string pending_stream_inf;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        if (line.rfind("#EXT", 0) == 0) {
            p.tags.push_back(line);
            if (line.rfind("#EXTINF:", 0) == 0) p.extinf.push_back(std::stod(line.substr(8)));
            if (line.rfind("#EXT-X-TARGETDURATION:", 0) == 0) p.target_duration = std::stoi(line.substr(22));
            if (line.rfind("#EXT-X-BYTERANGE:", 0) == 0) {
                const std::string v = line.substr(17);
                const auto at = v.find('@');
                p.byteranges.emplace_back(std::stoull(v.substr(0, at)), std::stoull(v.substr(at + 1)));
            }
            if (line.rfind("#EXT-X-STREAM-INF:", 0) == 0) pending_stream_inf = line.substr(18);
        } else if (line[0] != '#') {
            p.uris.push_back(line);
            if (!pending_stream_inf.empty()) p.stream_inf_by_uri[line] = pending_stream_inf;
            pending_stream_inf.clear();
        }
    }
    return p;
}

std::string attribute(const std::string& attrs, const std::string& name) {
    // Attributes are NAME=value separated by commas outside quotes.
    std::size_t i = 0;
    while (i < attrs.size()) {
        const auto eq = attrs.find('=', i);
        if (eq == std::string::npos) break;
        const std::string key = attrs.substr(i, eq - i);
        std::size_t end;
        std::string value;
        if (eq + 1 < attrs.size() && attrs[eq + 1] == '"') {
            end = attrs.find('"', eq + 2);
            value = attrs.substr(eq + 2, end - eq - 2);
            end = end + 1;
        } else {
            end = attrs.find(',', eq + 1);
            if (end == std::string::npos) end = attrs.size();
            value = attrs.substr(eq + 1, end - eq - 1);
        }
        if (key == name) return value;
        i = end + 1;
    }
    return "";
}

void concat_files(const std::vector<fs::path>& parts, const fs::path& out) {
    std::ofstream o(out, std::ios::binary | std::ios::trunc);
    for (const auto& p : parts) o << read_text(p);
}

void init_plus_prefix(const fs::path& init, const fs::path& file, std::uint64_t length, const fs::path& out) {
    std::ofstream o(out, std::ios::binary | std::ios::trunc);
    o << read_text(init) << read_text(file).substr(0, length);
}

}  // namespace ladder::test
