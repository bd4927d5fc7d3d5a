#include "mux/av1_metadata_obu.hpp"

#include <algorithm>
#include <cmath>
#include <new>

#include "av/av_error.hpp"
#include "av/handles.hpp"

extern "C" {
#include <libavcodec/packet.h>
}

namespace ladder::mux {

namespace {

constexpr int kObuFrameHeader = 3;
constexpr int kObuTileGroup = 4;
constexpr int kObuMetadata = 5;
constexpr int kObuFrame = 6;
constexpr int kMetadataHdrCll = 1;
constexpr int kMetadataHdrMdcv = 2;

void put_leb128(std::vector<std::uint8_t>& out, std::uint64_t v) {
    do {
        std::uint8_t byte = v & 0x7f;
        v >>= 7;
        if (v) byte |= 0x80;
        out.push_back(byte);
    } while (v);
}

void put_be(std::vector<std::uint8_t>& out, std::uint32_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

std::uint32_t fixed(AVRational q, int fraction_bits) {
    const double v = av_q2d(q) * static_cast<double>(1u << fraction_bits);
    return v <= 0 ? 0 : static_cast<std::uint32_t>(std::lround(v));
}

// One metadata OBU: header (type 5, has_size_field), size, then the
// payload: metadata_type, the fields, trailing bits (a byte 0x80).
void put_metadata_obu(std::vector<std::uint8_t>& out, int type, const std::vector<std::uint8_t>& fields) {
    std::vector<std::uint8_t> payload;
    put_leb128(payload, static_cast<std::uint64_t>(type));
    payload.insert(payload.end(), fields.begin(), fields.end());
    payload.push_back(0x80);
    out.push_back(static_cast<std::uint8_t>((kObuMetadata << 3) | 0x02));
    put_leb128(out, payload.size());
    out.insert(out.end(), payload.begin(), payload.end());
}

bool read_leb128(const std::uint8_t* p, const std::uint8_t* end, std::uint64_t& value, int& length) {
    value = 0;
    for (length = 0; length < 8 && p + length < end; ++length) {
        value |= static_cast<std::uint64_t>(p[length] & 0x7f) << (7 * length);
        if (!(p[length] & 0x80)) {
            ++length;
            return true;
        }
    }
    return false;
}

}  // namespace

std::vector<std::uint8_t> hdr_metadata_obus(const av::HdrMetadata& hdr) {
    std::vector<std::uint8_t> out;
    if (hdr.content_light) {
        std::vector<std::uint8_t> f;
        put_be(f, hdr.content_light->MaxCLL, 2);
        put_be(f, hdr.content_light->MaxFALL, 2);
        put_metadata_obu(out, kMetadataHdrCll, f);
    }
    if (hdr.mastering) {
        const auto& m = *hdr.mastering;
        std::vector<std::uint8_t> f;
        // Red, green, blue, as FFmpeg orders them; chromaticity 0.16,
        // luminance max 24.8 and min 18.14 fixed point.
        for (const auto& p : m.display_primaries) {
            put_be(f, fixed(p[0], 16), 2);
            put_be(f, fixed(p[1], 16), 2);
        }
        put_be(f, fixed(m.white_point[0], 16), 2);
        put_be(f, fixed(m.white_point[1], 16), 2);
        put_be(f, fixed(m.max_luminance, 8), 4);
        put_be(f, fixed(m.min_luminance, 14), 4);
        put_metadata_obu(out, kMetadataHdrMdcv, f);
    }
    return out;
}

bool insert_before_first_frame(AVPacket* pkt, std::span<const std::uint8_t> obus) {
    if (obus.empty()) return true;
    const std::uint8_t* begin = pkt->data;
    const std::uint8_t* end = pkt->data + pkt->size;
    const std::uint8_t* p = begin;
    while (p < end) {
        const int type = (p[0] >> 3) & 0x0f;
        if (type == kObuFrameHeader || type == kObuTileGroup || type == kObuFrame) break;
        const bool extension = p[0] & 0x04;
        const bool has_size = p[0] & 0x02;
        if (!has_size) return false;
        const std::uint8_t* size_at = p + 1 + (extension ? 1 : 0);
        std::uint64_t size = 0;
        int length = 0;
        if (size_at >= end || !read_leb128(size_at, end, size, length)) return false;
        const std::uint8_t* next = size_at + length + size;
        if (next > end) return false;
        p = next;
    }
    if (p >= end) return false;  // no frame in the packet
    const auto at = static_cast<std::size_t>(p - begin);
    av::PacketPtr copy = av::make_packet();
    av::check(av_new_packet(copy.get(), pkt->size + static_cast<int>(obus.size())), "making room for metadata OBUs");
    std::copy(begin, begin + at, copy->data);
    std::copy(obus.begin(), obus.end(), copy->data + at);
    std::copy(begin + at, end, copy->data + at + obus.size());
    av::check(av_packet_copy_props(copy.get(), pkt), "copying packet properties");
    av_packet_unref(pkt);
    av_packet_move_ref(pkt, copy.get());
    return true;
}

}  // namespace ladder::mux
