#include "mux/bmff_boxes.hpp"

#include <algorithm>
#include <initializer_list>

namespace ladder::mux {

namespace {

std::uint32_t be32(const std::uint8_t* p) {
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
}

std::uint64_t be64(const std::uint8_t* p) { return (std::uint64_t(be32(p)) << 32) | be32(p + 4); }

const Box* find(const std::vector<Box>& boxes, const char* type) {
    auto it = std::find_if(boxes.begin(), boxes.end(), [&](const Box& b) { return b.type == type; });
    return it == boxes.end() ? nullptr : &*it;
}

std::span<const std::uint8_t> payload(std::span<const std::uint8_t> data, const Box& b) {
    return data.subspan(b.offset + b.header, b.size - b.header);
}

std::uint16_t be16(const std::uint8_t* p) { return static_cast<std::uint16_t>((p[0] << 8) | p[1]); }

// The payload of the box a path of box types leads to, each the first of
// its type inside the one before: {"moov", "trak", "mdia"}.
std::optional<std::span<const std::uint8_t>> descend(std::span<const std::uint8_t> data,
                                                     std::initializer_list<const char*> path) {
    for (const char* type : path) {
        const auto boxes = read_boxes(data);
        const Box* b = find(boxes, type);
        if (!b) return std::nullopt;
        data = payload(data, *b);
    }
    return data;
}

// tfdt: version/flags, then baseMediaDecodeTime in 32 (version 0) or 64 bits.
std::optional<std::uint64_t> decode_time_of(std::span<const std::uint8_t> tfdt) {
    if (tfdt.size() < 8) return std::nullopt;
    if (tfdt[0] == 0) return be32(&tfdt[4]);
    if (tfdt.size() < 12) return std::nullopt;
    return be64(&tfdt[4]);
}

std::optional<ColourBox> colour_box_of(std::span<const std::uint8_t> colr) {
    if (colr.size() < 10) return std::nullopt;
    ColourBox c;
    c.type.assign(reinterpret_cast<const char*>(colr.data()), 4);
    if (c.type != "nclx" && c.type != "nclc") return std::nullopt;
    c.primaries = be16(&colr[4]);
    c.transfer = be16(&colr[6]);
    c.matrix = be16(&colr[8]);
    if (c.type == "nclx") {
        if (colr.size() < 11) return std::nullopt;
        c.full_range = (colr[10] & 0x80) != 0;
    }
    return c;
}

}  // namespace

std::vector<Box> read_boxes(std::span<const std::uint8_t> data) {
    std::vector<Box> boxes;
    std::uint64_t pos = 0;
    while (data.size() - pos >= 8) {
        Box b;
        b.offset = pos;
        b.size = be32(&data[pos]);
        b.type.assign(reinterpret_cast<const char*>(&data[pos + 4]), 4);
        b.header = 8;
        if (b.size == 1) {
            if (data.size() - pos < 16) break;
            b.size = be64(&data[pos + 8]);
            b.header = 16;
        } else if (b.size == 0) {
            b.size = data.size() - pos;  // to the end of the buffer
        }
        if (b.size < b.header || b.size > data.size() - pos) break;
        boxes.push_back(b);
        pos += b.size;
    }
    return boxes;
}

std::optional<FragmentLayout> read_fragment_layout(std::span<const std::uint8_t> data) {
    const auto top = read_boxes(data);
    const Box* moof = find(top, "moof");
    if (!moof) return std::nullopt;
    const auto moof_children = read_boxes(payload(data, *moof));
    const Box* traf = find(moof_children, "traf");
    if (!traf) return std::nullopt;
    const auto traf_data = payload(payload(data, *moof), *traf);
    const auto traf_children = read_boxes(traf_data);
    const Box* tfhd = find(traf_children, "tfhd");
    const Box* trun = find(traf_children, "trun");
    if (!tfhd || !trun) return std::nullopt;
    const Box* tfdt = find(traf_children, "tfdt");

    // tfhd: version/flags, track_ID, then optional fields in flag order.
    auto h = payload(traf_data, *tfhd);
    if (h.size() < 8) return std::nullopt;
    const std::uint32_t tf_flags = be32(h.data()) & 0xffffff;
    std::size_t p = 8;
    std::uint64_t base = moof->offset;  // default-base-is-moof (and ladder's default_base_moof)
    if (tf_flags & 0x1) {
        if (h.size() < p + 8) return std::nullopt;
        base = be64(&h[p]);
        p += 8;
    }
    if (tf_flags & 0x2) p += 4;  // sample_description_index
    std::optional<std::uint32_t> default_duration;
    if (tf_flags & 0x8) {
        if (h.size() < p + 4) return std::nullopt;
        default_duration = be32(&h[p]);
        p += 4;
    }
    std::optional<std::uint32_t> default_size;
    if (tf_flags & 0x10) {
        if (h.size() < p + 4) return std::nullopt;
        default_size = be32(&h[p]);
        p += 4;
    }

    // trun: version/flags, sample_count, [data_offset], [first_sample_flags],
    // then per sample [duration][size][flags][composition offset].
    auto t = payload(traf_data, *trun);
    if (t.size() < 8) return std::nullopt;
    const std::uint32_t tr_flags = be32(t.data()) & 0xffffff;
    FragmentLayout out;
    out.sample_count = be32(&t[4]);
    p = 8;
    std::int64_t data_offset = 0;
    if (tr_flags & 0x1) {
        if (t.size() < p + 4) return std::nullopt;
        data_offset = static_cast<std::int32_t>(be32(&t[p]));
        p += 4;
    }
    if (tr_flags & 0x4) p += 4;
    const std::size_t per_sample = 4u * (((tr_flags >> 8) & 1) + ((tr_flags >> 9) & 1) + ((tr_flags >> 10) & 1) +
                                         ((tr_flags >> 11) & 1));
    if (t.size() < p + per_sample * out.sample_count) return std::nullopt;
    if (tr_flags & 0x200) {
        if (out.sample_count == 0) return std::nullopt;
        out.first_sample_size = be32(&t[p + ((tr_flags & 0x100) ? 4 : 0)]);
    } else if (default_size) {
        out.first_sample_size = *default_size;
    } else {
        return std::nullopt;
    }
    if (tr_flags & 0x100) {
        std::uint64_t sum = 0;
        for (std::uint32_t i = 0; i < out.sample_count; ++i) sum += be32(&t[p + i * per_sample]);
        out.duration = sum;
    } else if (default_duration) {
        out.duration = std::uint64_t(*default_duration) * out.sample_count;
    }
    if (tfdt) out.decode_time = decode_time_of(payload(traf_data, *tfdt));
    out.moof_offset = moof->offset;
    out.moof_size = moof->size;
    out.first_sample_offset = base + static_cast<std::uint64_t>(data_offset);
    if (out.first_sample_offset + out.first_sample_size > data.size()) return std::nullopt;
    return out;
}

std::optional<std::uint32_t> read_track_timescale(std::span<const std::uint8_t> init) {
    const auto mdhd = descend(init, {"moov", "trak", "mdia", "mdhd"});
    // version/flags, then creation and modification times of 32 (version 0)
    // or 64 bits, then the timescale.
    if (!mdhd || mdhd->empty()) return std::nullopt;
    const std::size_t at = (*mdhd)[0] == 1 ? 20 : 12;
    if (mdhd->size() < at + 4) return std::nullopt;
    return be32(&(*mdhd)[at]);
}

std::vector<ColourBox> read_colour_boxes(std::span<const std::uint8_t> init) {
    // stsd: version/flags and entry_count, then the sample entries; a visual
    // sample entry's own fields take 78 bytes before its child boxes.
    constexpr std::size_t kStsdHeader = 8, kVisualSampleEntry = 78;
    std::vector<ColourBox> out;
    const auto stsd = descend(init, {"moov", "trak", "mdia", "minf", "stbl", "stsd"});
    if (!stsd || stsd->size() < kStsdHeader) return out;
    const auto entries = stsd->subspan(kStsdHeader);
    const auto boxes = read_boxes(entries);
    if (boxes.empty() || boxes.front().size - boxes.front().header < kVisualSampleEntry) return out;
    const auto entry = payload(entries, boxes.front()).subspan(kVisualSampleEntry);
    for (const Box& b : read_boxes(entry))
        if (b.type == "colr")
            if (auto c = colour_box_of(payload(entry, b))) out.push_back(std::move(*c));
    return out;
}

}  // namespace ladder::mux
