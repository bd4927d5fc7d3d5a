#include "av/memory_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "av/av_error.hpp"

namespace ladder::av {

int MemoryInput::on_read(void* opaque, std::uint8_t* buf, int size) {
    auto* self = static_cast<MemoryInput*>(opaque);
    const std::size_t left = self->bytes_.size() - self->pos_;
    if (left == 0) return AVERROR_EOF;
    const std::size_t n = std::min(left, static_cast<std::size_t>(size));
    std::memcpy(buf, self->bytes_.data() + self->pos_, n);
    self->pos_ += n;
    return static_cast<int>(n);
}

std::int64_t MemoryInput::on_seek(void* opaque, std::int64_t offset, int whence) {
    auto* self = static_cast<MemoryInput*>(opaque);
    const auto size = static_cast<std::int64_t>(self->bytes_.size());
    std::int64_t target = 0;
    switch (whence & ~AVSEEK_FORCE) {
        case AVSEEK_SIZE: return size;
        case SEEK_SET: target = offset; break;
        case SEEK_CUR: target = static_cast<std::int64_t>(self->pos_) + offset; break;
        case SEEK_END: target = size + offset; break;
        default: return AVERROR(EINVAL);
    }
    if (target < 0 || target > size) return AVERROR(EINVAL);
    self->pos_ = static_cast<std::size_t>(target);
    return target;
}

// The bytes are fMP4 (an init segment and a fragment). Probing would let
// bytes that look like an HLS or concat playlist choose a demuxer that opens
// the files it names: the bytes come from a ladder someone else made.
const AVInputFormat* MemoryInput::fmp4_demuxer() {
    const AVInputFormat* mp4 = av_find_input_format("mp4");
    if (!mp4) throw AvError(AVERROR_DEMUXER_NOT_FOUND, "finding the mp4 demuxer");
    return mp4;
}

// Every demuxer opens other resources through io_open (a playlist's
// segments, an mp4's external data references): none are wanted here.
int MemoryInput::refuse_open(AVFormatContext*, AVIOContext**, const char*, int, AVDictionary**) {
    return AVERROR(EPERM);
}

MemoryInput::MemoryInput(std::vector<std::uint8_t> bytes, const std::string& name)
    : bytes_(std::move(bytes)), name_(name) {
    constexpr int buffer_size = 32 * 1024;
    auto* buffer = static_cast<unsigned char*>(av_malloc(buffer_size));
    if (!buffer) throw std::bad_alloc();
    io_.reset(avio_alloc_context(buffer, buffer_size, 0, this, &MemoryInput::on_read, nullptr, &MemoryInput::on_seek));
    if (!io_) {
        av_free(buffer);
        throw std::bad_alloc();
    }
    AVFormatContext* raw = avformat_alloc_context();
    if (!raw) throw std::bad_alloc();
    raw->pb = io_.get();
    raw->flags |= AVFMT_FLAG_CUSTOM_IO;
    raw->io_open = &MemoryInput::refuse_open;
    // On failure avformat_open_input frees the context itself.
    check(avformat_open_input(&raw, nullptr, fmp4_demuxer(), nullptr), fmt::format("opening {}", name_));
    ctx_.reset(raw);
    check(avformat_find_stream_info(ctx_.get(), nullptr), fmt::format("reading stream info of {}", name_));
}

MemoryInput::~MemoryInput() {
    // Close the demuxer before the AVIO context it reads from.
    ctx_.reset();
}

bool MemoryInput::read(AVPacket* pkt) {
    const int ret = av_read_frame(ctx_.get(), pkt);
    if (ret == AVERROR_EOF) return false;
    check(ret, fmt::format("reading {}", name_));
    return true;
}

}  // namespace ladder::av
