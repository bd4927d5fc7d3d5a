#include "cli/progress_renderer.hpp"

#include <fmt/format.h>

namespace ladder::cli {

PlainProgressRenderer::PlainProgressRenderer(std::FILE* out, bool quiet)
    : out_(out), quiet_(quiet), start_(std::chrono::steady_clock::now()) {}

double PlainProgressRenderer::elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void PlainProgressRenderer::note(engine::NoteLevel level, const std::string& message) {
    std::lock_guard lock(mu_);
    if (quiet_ && level == engine::NoteLevel::info) return;
    fmt::print(out_, "ladder: {}{}\n", level == engine::NoteLevel::warning ? "warning: " : "", message);
}

void PlainProgressRenderer::rung_state(int, const std::string& name, engine::RungState state) {
    std::lock_guard lock(mu_);
    if (quiet_ || state == engine::RungState::pending) return;
    fmt::print(out_, "[{:7.1f}s] rung {} {}\n", elapsed(), name, engine::to_string(state));
}

void PlainProgressRenderer::chunk_done(const engine::ChunkDone& e) {
    std::lock_guard lock(mu_);
    const int done = ++chunks_done_[e.rung];
    if (quiet_) return;
    fmt::print(out_, "[{:7.1f}s] rung {} chunk {} encoded: {} frames, {:.1f} kB, {} in {:.2f} s ({:.1f} fps); {} done\n",
               elapsed(), e.rung_name, e.chunk, e.frames, e.bytes / 1000.0, e.slot, e.encode_seconds,
               e.encode_seconds > 0 ? e.frames / e.encode_seconds : 0.0, done);
}

void PlainProgressRenderer::decode_progress(std::int64_t decoded, std::int64_t expected) {
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    const bool finished = decoded == expected;
    if (quiet_ || (!finished && now - last_decode_line_ < std::chrono::seconds(2))) return;
    last_decode_line_ = now;
    if (finished)
        fmt::print(out_, "[{:7.1f}s] source decoded: {} frames\n", elapsed(), decoded);
    else
        fmt::print(out_, "[{:7.1f}s] decoding: frame {} of about {}\n", elapsed(), decoded, expected);
}

}  // namespace ladder::cli
