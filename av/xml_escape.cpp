#include "av/xml_escape.hpp"

#include <memory>
#include <new>

extern "C" {
#include <libavutil/avstring.h>
#include <libavutil/bprint.h>
}

namespace ladder::av {
namespace {

struct BPrintFinalizer {
    void operator()(AVBPrint* bp) const noexcept { av_bprint_finalize(bp, nullptr); }
};

// av_bprint_escape reads a C string and copies control characters as they
// are: both would break the document, so they are replaced first.
std::string without_forbidden_controls(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 && c != '\t' && c != '\n' && c != '\r')
            out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
        else
            out += c;
    }
    return out;
}

}  // namespace

std::string xml_escape(std::string_view text) {
    const std::string clean = without_forbidden_controls(text);
    AVBPrint bp;
    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    const std::unique_ptr<AVBPrint, BPrintFinalizer> owner(&bp);
    av_bprint_escape(&bp, clean.c_str(), nullptr, AV_ESCAPE_MODE_XML,
                     AV_ESCAPE_FLAG_XML_SINGLE_QUOTES | AV_ESCAPE_FLAG_XML_DOUBLE_QUOTES);
    if (!av_bprint_is_complete(&bp)) throw std::bad_alloc();
    return std::string(bp.str, bp.len);
}

}  // namespace ladder::av
