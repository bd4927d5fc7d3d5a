#include "av/fd_io.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "av/av_error.hpp"
#include "av/compat.hpp"

namespace ladder::av {

namespace {
constexpr int kBufferSize = 256 * 1024;
}  // namespace

FdOutput::FdOutput(UniqueFd fd, std::string name) : fd_(std::move(fd)), name_(std::move(name)) {
    cursor_.fd = fd_.get();
    io_ = make_context(cursor_, true);
}

FdOutput::~FdOutput() = default;

AvioContextPtr FdOutput::make_context(Cursor& cursor, bool write) {
    auto* buffer = static_cast<unsigned char*>(av_malloc(kBufferSize));
    if (!buffer) throw std::bad_alloc();
    AvioContextPtr io(avio_alloc_context(buffer, kBufferSize, write ? 1 : 0, &cursor, write ? nullptr : &on_read,
                                         write ? &on_write : nullptr, &on_seek));
    if (!io) {
        av_free(buffer);
        throw std::bad_alloc();
    }
    return io;
}

void FdOutput::attach(AVFormatContext* ctx) {
    ctx->flags |= AVFMT_FLAG_CUSTOM_IO;
    ctx->pb = io_.get();
    ctx->opaque = this;
    ctx->io_open = &on_reopen;
    ctx->io_close2 = &on_close;
    url_ = ctx->url ? ctx->url : "";
}

void FdOutput::flush() {
    avio_flush(io_.get());
    if (cursor_.error != 0) check(AVERROR(cursor_.error), "writing " + name_);
    check(io_->error, "writing " + name_);
}

int FdOutput::on_read(void* opaque, std::uint8_t* buf, int size) {
    auto* c = static_cast<Cursor*>(opaque);
    for (;;) {
        const ssize_t n = ::pread(c->fd, buf, static_cast<std::size_t>(size), c->pos);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return AVERROR(errno);
        if (n == 0) return AVERROR_EOF;
        c->pos += n;
        return static_cast<int>(n);
    }
}

int FdOutput::on_write(void* opaque, AvioWriteBuffer buf, int size) {
    auto* c = static_cast<Cursor*>(opaque);
    int done = 0;
    while (done < size) {
        const ssize_t n = ::pwrite(c->fd, buf + done, static_cast<std::size_t>(size - done), c->pos);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            c->error = n < 0 ? errno : EIO;
            return AVERROR(c->error);
        }
        done += static_cast<int>(n);
        c->pos += n;
    }
    return size;
}

std::int64_t FdOutput::on_seek(void* opaque, std::int64_t offset, int whence) {
    auto* c = static_cast<Cursor*>(opaque);
    struct stat st {};
    const bool want_size = (whence & AVSEEK_SIZE) != 0;
    if ((want_size || (whence & ~AVSEEK_FORCE) == SEEK_END) && ::fstat(c->fd, &st) != 0) return AVERROR(errno);
    if (want_size) return st.st_size;
    switch (whence & ~AVSEEK_FORCE) {
        case SEEK_SET: c->pos = offset; break;
        case SEEK_CUR: c->pos += offset; break;
        case SEEK_END: c->pos = st.st_size + offset; break;
        default: return AVERROR(EINVAL);
    }
    return c->pos;
}

int FdOutput::on_reopen(AVFormatContext* s, AVIOContext** pb, const char* url, int flags, AVDictionary**) {
    auto* self = static_cast<FdOutput*>(s->opaque);
    // Only the muxer's own output, only to read it back: nothing else is
    // ever opened by path.
    if (!self || !url || self->url_ != url || (flags & AVIO_FLAG_WRITE)) return AVERROR(EPERM);
    try {
        auto cursor = std::make_unique<Cursor>();
        cursor->fd = self->fd_.get();
        AvioContextPtr io = make_context(*cursor, false);
        *pb = io.get();
        self->reader_cursors_.push_back(std::move(cursor));
        self->readers_.push_back(std::move(io));
        return 0;
    } catch (const std::bad_alloc&) {
        return AVERROR(ENOMEM);
    }
}

int FdOutput::on_close(AVFormatContext* s, AVIOContext* pb) {
    auto* self = static_cast<FdOutput*>(s->opaque);
    if (!self || pb == self->io_.get()) return 0;  // the output itself is ours to free
    const auto it = std::find_if(self->readers_.begin(), self->readers_.end(),
                                 [pb](const AvioContextPtr& r) { return r.get() == pb; });
    if (it == self->readers_.end()) return 0;
    auto* cursor = static_cast<Cursor*>(pb->opaque);
    self->readers_.erase(it);
    std::erase_if(self->reader_cursors_, [cursor](const std::unique_ptr<Cursor>& c) { return c.get() == cursor; });
    return 0;
}

}  // namespace ladder::av
