#include "engine/init_segment_codecs.hpp"

#include <fmt/format.h>

#include <exception>

#include "av/memory_input.hpp"
#include "mux/av1_codecs_string.hpp"
#include "mux/av1_sequence_header.hpp"

namespace ladder::engine {

InitCodecs av1_codecs_of_init(const std::vector<std::uint8_t>& init, const std::filesystem::path& file) {
    try {
        av::MemoryInput in(init, file.string());
        const AVCodecParameters* par = in.get()->streams[0]->codecpar;
        if (par->codec_id != AV_CODEC_ID_AV1) return {};
        if (par->extradata_size <= 4) return {std::nullopt, "av1C has no sequence header"};
        auto hdr = mux::parse_sequence_header({par->extradata + 4, static_cast<std::size_t>(par->extradata_size - 4)});
        if (!hdr) return {std::nullopt, "av1C sequence header does not parse"};
        return {mux::av1_codecs_string(*hdr), ""};
    } catch (const std::exception& e) {
        return {std::nullopt, fmt::format("not a readable init segment: {}", e.what())};
    }
}

}  // namespace ladder::engine
