#include "engine/encode/process/shared_frame_ring.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "av/av_error.hpp"
#include "engine/base/errors.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

namespace ladder::engine {

namespace {

// Plane alignment inside a slot: what SIMD code in the encoders likes.
constexpr int kAlign = 64;

void fill_planes(std::uint8_t* base, const SlotFrameLayout& l, std::uint8_t* data[4], int linesize[4]) {
    av::check(av_image_fill_linesizes(linesize, l.format, l.width), "laying out a shared frame");
    for (int i = 0; i < 4; ++i) linesize[i] = FFALIGN(linesize[i], kAlign);
    av::check(av_image_fill_pointers(data, l.format, l.height, base, linesize), "laying out a shared frame");
}

SlotFrameLayout layout_of(const nlohmann::json& p) {
    return {static_cast<AVPixelFormat>(p.at("format").get<int>()), p.at("width").get<int>(),
            p.at("height").get<int>()};
}

}  // namespace

std::size_t slot_bytes_for(const SlotFrameLayout& l) {
    int linesize[4] = {};
    av::check(av_image_fill_linesizes(linesize, l.format, l.width), "laying out a shared frame");
    std::ptrdiff_t aligned[4] = {};
    for (int i = 0; i < 4; ++i) aligned[i] = FFALIGN(linesize[i], kAlign);
    std::size_t sizes[4] = {};
    av::check(av_image_fill_plane_sizes(sizes, l.format, l.height, aligned), "laying out a shared frame");
    std::size_t total = 0;
    for (std::size_t s : sizes) total += s;
    return FFALIGN(total, static_cast<std::size_t>(kAlign));  // every slot starts aligned
}

nlohmann::json frame_properties(const AVFrame& f) {
    return {{"format", f.format},
            {"width", f.width},
            {"height", f.height},
            {"color_range", f.color_range},
            {"color_primaries", f.color_primaries},
            {"color_trc", f.color_trc},
            {"colorspace", f.colorspace},
            {"chroma_location", f.chroma_location},
            {"sar", {f.sample_aspect_ratio.num, f.sample_aspect_ratio.den}}};
}

SharedFrameRing::SharedFrameRing(int slots, std::size_t slot_bytes) : slots_(slots), slot_bytes_(slot_bytes) {
    const std::size_t total = static_cast<std::size_t>(slots) * slot_bytes;
    fd_ = av::UniqueFd(::memfd_create("ladder-frames", MFD_CLOEXEC));
    if (!fd_ || ::ftruncate(fd_.get(), static_cast<off_t>(total)) != 0)
        throw RunError(fmt::format("cannot create {} bytes of shared memory for an encoder process: {}", total,
                                   std::strerror(errno)));
    map_ = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
    if (map_ == MAP_FAILED) {
        map_ = nullptr;
        throw RunError(fmt::format("cannot map shared memory for an encoder process: {}", std::strerror(errno)));
    }
}

SharedFrameRing::~SharedFrameRing() {
    if (map_) ::munmap(map_, static_cast<std::size_t>(slots_) * slot_bytes_);
}

void SharedFrameRing::write(int slot, const AVFrame& frame) {
    const SlotFrameLayout l{static_cast<AVPixelFormat>(frame.format), frame.width, frame.height};
    if (slot < 0 || slot >= slots_ || slot_bytes_for(l) > slot_bytes_)
        throw RunError(fmt::format("a {}x{} frame does not fit the encoder process's shared memory", frame.width,
                                   frame.height));
    std::uint8_t* data[4] = {};
    int linesize[4] = {};
    fill_planes(static_cast<std::uint8_t*>(map_) + static_cast<std::size_t>(slot) * slot_bytes_, l, data, linesize);
    av_image_copy(data, linesize, const_cast<const std::uint8_t**>(frame.data), frame.linesize, l.format, l.width,
                  l.height);
}

MappedFrameRing::MappedFrameRing(av::UniqueFd fd, int slots, std::size_t slot_bytes)
    : slots_(slots), slot_bytes_(slot_bytes) {
    const std::size_t total = static_cast<std::size_t>(slots) * slot_bytes;
    map_ = ::mmap(nullptr, total, PROT_READ, MAP_SHARED, fd.get(), 0);
    if (map_ == MAP_FAILED) {
        map_ = nullptr;
        throw RunError(fmt::format("cannot map the frame ring ({} bytes): {}", total, std::strerror(errno)));
    }
}

MappedFrameRing::~MappedFrameRing() {
    if (map_) ::munmap(map_, static_cast<std::size_t>(slots_) * slot_bytes_);
}

av::FramePtr MappedFrameRing::frame(int slot, const nlohmann::json& p, std::function<void()> on_release) const {
    const SlotFrameLayout l = layout_of(p);
    if (slot < 0 || slot >= slots_ || slot_bytes_for(l) > slot_bytes_)
        throw RunError(fmt::format("frame slot {} ({}x{}) is outside the frame ring", slot, l.width, l.height));
    auto* base = static_cast<std::uint8_t*>(map_) + static_cast<std::size_t>(slot) * slot_bytes_;
    av::FramePtr f = av::make_frame();
    f->format = l.format;
    f->width = l.width;
    f->height = l.height;
    f->color_range = static_cast<AVColorRange>(p.at("color_range").get<int>());
    f->color_primaries = static_cast<AVColorPrimaries>(p.at("color_primaries").get<int>());
    f->color_trc = static_cast<AVColorTransferCharacteristic>(p.at("color_trc").get<int>());
    f->colorspace = static_cast<AVColorSpace>(p.at("colorspace").get<int>());
    f->chroma_location = static_cast<AVChromaLocation>(p.at("chroma_location").get<int>());
    f->sample_aspect_ratio = AVRational{p.at("sar").at(0).get<int>(), p.at("sar").at(1).get<int>()};
    fill_planes(base, l, f->data, f->linesize);
    // The release callback owns on_release; the buffer is read-only (the
    // mapping is), so libavcodec copies before it would ever write.
    auto owned = std::make_unique<std::function<void()>>(std::move(on_release));
    f->buf[0] = av_buffer_create(
        base, slot_bytes_,
        [](void* opaque, std::uint8_t*) {
            std::unique_ptr<std::function<void()>> cb(static_cast<std::function<void()>*>(opaque));
            if (*cb) (*cb)();
        },
        owned.get(), AV_BUFFER_FLAG_READONLY);
    if (!f->buf[0]) throw std::bad_alloc();
    owned.release();
    return f;
}

}  // namespace ladder::engine
