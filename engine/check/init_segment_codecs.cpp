#include "engine/check/init_segment_codecs.hpp"

#include <fmt/format.h>

#include <exception>
#include <span>

#include "av/memory_input.hpp"
#include "mux/av1_codecs_string.hpp"
#include "mux/av1_sequence_header.hpp"
#include "mux/bmff_boxes.hpp"

namespace ladder::engine {

namespace {

ColourDescription colour_of(const Dav1dSequenceHeader& h) {
    return {static_cast<int>(h.pri), static_cast<int>(h.trc), static_cast<int>(h.mtrx), h.color_range != 0};
}

// av1C's four bytes before its config OBUs (AV1-ISOBMFF §2.3.3) repeat
// fields of the sequence header; a reader may trust either.
std::string av1c_field_differences(std::span<const std::uint8_t> av1c, const Dav1dSequenceHeader& h) {
    const int profile = av1c[1] >> 5, level = av1c[1] & 0x1f;
    const int tier = av1c[2] >> 7, high_bitdepth = (av1c[2] >> 6) & 1, twelve_bit = (av1c[2] >> 5) & 1;
    const int monochrome = (av1c[2] >> 4) & 1, ss_x = (av1c[2] >> 3) & 1, ss_y = (av1c[2] >> 2) & 1;
    const int position = av1c[2] & 3;
    const int depth = high_bitdepth ? (twelve_bit ? 12 : 10) : 8;
    const bool chroma_420 = h.ss_hor == 1 && h.ss_ver == 1;
    std::string out;
    const auto compare = [&](const char* name, int in_av1c, int in_header) {
        if (in_av1c != in_header)
            out += fmt::format("{}{} {} against {}", out.empty() ? "" : ", ", name, in_av1c, in_header);
    };
    compare("seq_profile", profile, static_cast<int>(h.profile));
    compare("seq_level_idx_0", level, mux::seq_level_idx(h));
    compare("seq_tier_0", tier, h.operating_points[0].tier);
    compare("bit depth", depth, mux::bit_depth(h));
    compare("monochrome", monochrome, h.monochrome);
    compare("chroma_subsampling_x", ss_x, h.ss_hor);
    compare("chroma_subsampling_y", ss_y, h.ss_ver);
    // dav1d reads the position only for 4:2:0, where AV1 codes it.
    if (chroma_420) compare("chroma_sample_position", position, static_cast<int>(h.chr));
    return out;
}

// nclc has no range flag: its words leave the range out.
std::string colr_in_words(const mux::ColourBox& box) {
    std::string words = fmt::format("primaries {}, transfer {}, matrix {}", box.primaries, box.transfer, box.matrix);
    if (box.full_range) words += fmt::format(", {} range", *box.full_range ? "full" : "limited");
    return words;
}

std::optional<std::string> colr_disagreement(const mux::ColourBox& box, const ColourDescription& header) {
    const bool same = box.primaries == header.primaries && box.transfer == header.transfer &&
                      box.matrix == header.matrix && (!box.full_range || *box.full_range == header.full_range);
    if (same) return std::nullopt;
    return fmt::format("its colr box ({}) says {} but av1C's sequence header says {}", box.type, colr_in_words(box),
                       colour_in_words(header));
}

}  // namespace

std::string colour_in_words(const ColourDescription& c) {
    return fmt::format("primaries {}, transfer {}, matrix {}, {} range", c.primaries, c.transfer, c.matrix,
                       c.full_range ? "full" : "limited");
}

InitCodecs av1_codecs_of_init(const std::vector<std::uint8_t>& init, const std::filesystem::path& file) {
    try {
        av::MemoryInput in(init, file.string());
        const AVCodecParameters* par = in.get()->streams[0]->codecpar;
        if (par->codec_id != AV_CODEC_ID_AV1) return {};
        if (par->extradata_size <= 4) return {std::nullopt, std::nullopt, "av1C has no sequence header", {}};
        const std::span<const std::uint8_t> av1c(par->extradata, static_cast<std::size_t>(par->extradata_size));
        auto hdr = mux::parse_sequence_header(av1c.subspan(4));
        if (!hdr) return {std::nullopt, std::nullopt, "av1C sequence header does not parse", {}};
        InitCodecs out{mux::av1_codecs_string(*hdr), colour_of(*hdr), "", {}};
        if (const std::string d = av1c_field_differences(av1c, *hdr); !d.empty())
            out.disagreements.push_back(
                fmt::format("av1C's own fields disagree with its sequence header (av1C against header): {}", d));
        for (const mux::ColourBox& box : mux::read_colour_boxes(init))
            if (auto d = colr_disagreement(box, *out.colour)) out.disagreements.push_back(std::move(*d));
        return out;
    } catch (const std::exception& e) {
        return {std::nullopt, std::nullopt, fmt::format("not a readable init segment: {}", e.what()), {}};
    }
}

}  // namespace ladder::engine
