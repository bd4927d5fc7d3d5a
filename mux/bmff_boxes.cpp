#include "mux/bmff_boxes.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <stdexcept>

namespace ladder::mux {

namespace {

std::uint32_t be32(const std::uint8_t* p) {
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
}

std::uint64_t be64(const std::uint8_t* p) { return (std::uint64_t(be32(p)) << 32) | be32(p + 4); }

void put_be32(std::uint8_t* p, std::uint32_t v) {
    for (int i = 3; i >= 0; --i, v >>= 8) p[i] = static_cast<std::uint8_t>(v & 0xff);
}

void put_be64(std::uint8_t* p, std::uint64_t v) {
    put_be32(p, static_cast<std::uint32_t>(v >> 32));
    put_be32(p + 4, static_cast<std::uint32_t>(v));
}

void append_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
    out.resize(out.size() + 4);
    put_be32(&out[out.size() - 4], v);
}

void append_be64(std::vector<std::uint8_t>& out, std::uint64_t v) {
    out.resize(out.size() + 8);
    put_be64(&out[out.size() - 8], v);
}

void append_type(std::vector<std::uint8_t>& out, const char* type) { out.insert(out.end(), type, type + 4); }

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

// The timescale field of an mvhd or mdhd payload (the same layout up to it).
std::optional<std::uint32_t> timescale_of_header(std::span<const std::uint8_t> h) {
    const std::size_t at = h.empty() ? 0 : (h[0] == 1 ? 20 : 12);
    if (at == 0 || h.size() < at + 4) return std::nullopt;
    return be32(&h[at]);
}

// media_time less the empty edits before the first one with media (elst
// payload; movie_timescale: mvhd's, which the edits' durations are in).
std::optional<std::int64_t> media_time_at_zero(std::span<const std::uint8_t> elst, std::uint32_t movie_timescale,
                                               std::uint32_t timescale) {
    if (elst.size() < 8) return std::nullopt;
    const bool v1 = elst[0] == 1;
    const std::size_t entry_size = v1 ? 20 : 12;
    const std::uint32_t entries = be32(&elst[4]);
    std::uint64_t empty = 0;
    for (std::uint32_t i = 0; i < entries; ++i) {
        const std::size_t at = 8 + i * entry_size;
        if (elst.size() < at + entry_size) return std::nullopt;
        const std::uint64_t duration = v1 ? be64(&elst[at]) : be32(&elst[at]);
        const std::int64_t media_time = v1 ? static_cast<std::int64_t>(be64(&elst[at + 8]))
                                           : static_cast<std::int32_t>(be32(&elst[at + 4]));
        if (media_time == -1) {  // an empty edit: nothing plays for its duration
            if (duration > std::numeric_limits<std::uint64_t>::max() - empty) return std::nullopt;
            empty += duration;
            continue;
        }
        if (movie_timescale == 0) return std::nullopt;
        // The file is someone else's (`ladder validate`): a delay or media
        // time whose difference does not fit in 64 bits is not believed.
        const double delay = static_cast<double>(empty) * timescale / movie_timescale;
        if (!(delay < 0x1p62)) return std::nullopt;
        const std::int64_t shift = std::llround(delay);
        if (media_time < std::numeric_limits<std::int64_t>::min() + shift) return std::nullopt;
        return media_time - shift;
    }
    return 0;
}

// edts holding one elst entry: media from media_time on, for the rest of
// the track, at normal rate.
std::vector<std::uint8_t> edit_list_box(std::int64_t media_time) {
    const bool v1 = media_time > std::numeric_limits<std::int32_t>::max();
    std::vector<std::uint8_t> elst;
    append_be32(elst, v1 ? 36 : 28);
    append_type(elst, "elst");
    append_be32(elst, v1 ? 0x01000000u : 0);  // version, flags
    append_be32(elst, 1);                     // entry_count
    if (v1) {
        append_be64(elst, 0);  // segment_duration: to the end of the track
        append_be64(elst, static_cast<std::uint64_t>(media_time));
    } else {
        append_be32(elst, 0);
        append_be32(elst, static_cast<std::uint32_t>(media_time));
    }
    append_be32(elst, 0x00010000);  // media_rate 1.0
    std::vector<std::uint8_t> edts;
    append_be32(edts, static_cast<std::uint32_t>(8 + elst.size()));
    append_type(edts, "edts");
    edts.insert(edts.end(), elst.begin(), elst.end());
    return edts;
}

// Rewrites the size of box b (whose header is at `at` in bytes) grown by grow.
void grow_box(std::vector<std::uint8_t>& bytes, std::uint64_t at, const Box& b, std::uint64_t grow) {
    const std::uint64_t size = b.size + grow;
    if (b.header == 16) {
        put_be64(&bytes[at + 8], size);
    } else {
        if (size > std::numeric_limits<std::uint32_t>::max()) throw std::runtime_error("an init segment over 4 GiB");
        put_be32(&bytes[at], static_cast<std::uint32_t>(size));
    }
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
    FragmentLayout out;
    if (const Box* tfdt = find(traf_children, "tfdt")) out.decode_time = decode_time_of(payload(traf_data, *tfdt));

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
        if (out.sample_count > 0) out.first_sample_duration = be32(&t[p]);
    } else if (default_duration) {
        out.duration = std::uint64_t(*default_duration) * out.sample_count;
        out.first_sample_duration = *default_duration;
    }
    out.moof_offset = moof->offset;
    out.moof_size = moof->size;
    out.first_sample_offset = base + static_cast<std::uint64_t>(data_offset);
    if (out.first_sample_offset + out.first_sample_size > data.size()) return std::nullopt;
    return out;
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

std::optional<TrackTiming> read_track_timing(std::span<const std::uint8_t> init) {
    const auto trak = descend(init, {"moov", "trak"});
    if (!trak) return std::nullopt;
    const auto mdhd = descend(*trak, {"mdia", "mdhd"});
    const auto timescale = mdhd ? timescale_of_header(*mdhd) : std::nullopt;
    if (!timescale || *timescale == 0) return std::nullopt;
    TrackTiming t;
    t.timescale = *timescale;
    const auto elst = descend(*trak, {"edts", "elst"});
    if (!elst) return t;
    const auto mvhd = descend(init, {"moov", "mvhd"});
    const auto movie_timescale = mvhd ? timescale_of_header(*mvhd) : std::nullopt;
    const auto at_zero = media_time_at_zero(*elst, movie_timescale.value_or(0), t.timescale);
    if (!at_zero) return std::nullopt;
    t.media_time_at_zero = *at_zero;
    t.has_edit_list = true;
    return t;
}

std::vector<std::uint8_t> with_edit_list(std::span<const std::uint8_t> init, std::int64_t media_time) {
    const auto top = read_boxes(init);
    const Box* moov = find(top, "moov");
    if (!moov) throw std::runtime_error("the init segment has no moov box");
    const std::uint64_t moov_payload = moov->offset + moov->header;
    const auto moov_children = read_boxes(init.subspan(moov_payload, moov->size - moov->header));
    const Box* trak = find(moov_children, "trak");
    if (!trak) throw std::runtime_error("the init segment has no trak box");
    const std::uint64_t trak_at = moov_payload + trak->offset;
    const std::uint64_t trak_payload = trak_at + trak->header;
    const auto trak_children = read_boxes(init.subspan(trak_payload, trak->size - trak->header));
    if (find(trak_children, "edts")) throw std::runtime_error("the init segment's track already has an edit list");
    const Box* tkhd = find(trak_children, "tkhd");
    if (!tkhd) throw std::runtime_error("the init segment's track has no tkhd box");

    const std::vector<std::uint8_t> edts = edit_list_box(media_time);
    std::vector<std::uint8_t> out(init.begin(), init.end());
    const std::uint64_t insert_at = trak_payload + tkhd->offset + tkhd->size;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(insert_at), edts.begin(), edts.end());
    // Both boxes start before the insertion point: their headers stay put.
    grow_box(out, moov->offset, *moov, edts.size());
    grow_box(out, trak_at, *trak, edts.size());
    return out;
}

}  // namespace ladder::mux
