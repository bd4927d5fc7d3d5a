#pragma once
// libavformat writing into a file ladder opened itself (openat below its
// output folder, mux/output_folder.hpp), so the muxer never opens a path:
// a link planted at the file's name cannot redirect it. The mp4 muxer's
// faststart reopens its output for reading (AVFormatContext::io_open with
// the context's url); attach() answers that with a reader over the same
// descriptor and refuses any other url.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "av/compat.hpp"
#include "av/handles.hpp"
#include "av/unique_fd.hpp"

namespace ladder::av {

class FdOutput {
public:
    // name: for error messages.
    FdOutput(UniqueFd fd, std::string name);
    ~FdOutput();
    FdOutput(const FdOutput&) = delete;
    FdOutput& operator=(const FdOutput&) = delete;

    // Makes ctx write here (AVFMT_FLAG_CUSTOM_IO) and reopen here. This
    // object must outlive ctx's use of it; ctx never frees what it is given.
    void attach(AVFormatContext* ctx);
    // Flushes what the muxer buffered; throws AvError on a write error
    // (a full disk, say).
    void flush();

private:
    struct Cursor {
        int fd = -1;
        std::int64_t pos = 0;
        int error = 0;  // the first errno of a failed write
    };
    static int on_read(void* opaque, std::uint8_t* buf, int size);
    static int on_write(void* opaque, AvioWriteBuffer buf, int size);
    static std::int64_t on_seek(void* opaque, std::int64_t offset, int whence);
    static int on_reopen(AVFormatContext* s, AVIOContext** pb, const char* url, int flags, AVDictionary** options);
    static int on_close(AVFormatContext* s, AVIOContext* pb);
    static AvioContextPtr make_context(Cursor& cursor, bool write);

    UniqueFd fd_;
    std::string name_;
    Cursor cursor_;
    AvioContextPtr io_;
    std::string url_;  // the url the muxer reopens
    std::vector<std::unique_ptr<Cursor>> reader_cursors_;
    std::vector<AvioContextPtr> readers_;
};

}  // namespace ladder::av
