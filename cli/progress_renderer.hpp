#pragma once
// Renders the engine's ProgressSink events for a person: one plain line per
// event on stderr (a terminal or a CI log alike).
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "engine/progress_sink.hpp"

namespace ladder::cli {

class PlainProgressRenderer final : public engine::ProgressSink {
public:
    explicit PlainProgressRenderer(std::FILE* out, bool quiet);

    void note(engine::NoteLevel level, const std::string& message) override;
    void rung_state(int rung, const std::string& name, engine::RungState state) override;
    void chunk_done(const engine::ChunkDone& event) override;
    void decode_progress(std::int64_t frames_decoded, std::int64_t frames_expected) override;

private:
    double elapsed() const;

    std::FILE* out_;
    bool quiet_;
    std::mutex mu_;
    std::chrono::steady_clock::time_point start_;
    std::chrono::steady_clock::time_point last_decode_line_{};
    std::map<int, int> chunks_done_;
};

}  // namespace ladder::cli
