#pragma once
// Live progress bars on a terminal: a block of lines redrawn in place with
// ANSI cursor movement ("\x1b[<n>A" up, "\x1b[2K" clear line, "\x1b[J"
// clear below before a note), at most ~5 times a second:
//
//   ladder  12.3 s
//   720p  [########------------]  40%   100/250 fr   12.3 fps  running    on cpu0:svt cpu1:svt
//   360p  [####################] 100%   250/250 fr   50.0 fps  completed
//   cpu0:svt  busy  87%  720p chunk 3
//   cpu1:svt  busy  54%  idle
//   decode [####################] 100%   250/250 frames  done
//
// fps is the rung's throughput: frames done per wall-clock second since its
// first chunk started (all slots on it together). Busy is the slot's encode
// time over the time since the run started. Notes, warnings and chunk
// failures print above the block (clear, print, redraw). A renderer thread
// redraws every 200 ms and soon after events; finish() stops it, draws the
// final frame once more and ends the block with a newline.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli/progress_model.hpp"
#include "cli/progress_renderer.hpp"

namespace ladder::cli {

struct BarsOptions {
    std::chrono::milliseconds interval{200};  // between redraws, at least
    int width = 0;                            // columns; 0: the terminal's (ioctl, $COLUMNS, else 100)
};

class BarsProgressRenderer final : public ProgressRenderer {
public:
    explicit BarsProgressRenderer(std::FILE* out, BarsOptions options = {});
    ~BarsProgressRenderer() override;

    void note(engine::NoteLevel level, const std::string& message) override;
    void rung_state(int rung, const std::string& name, engine::RungState state) override;
    void chunk_started(int rung, const std::string& rung_name, int chunk, const std::string& slot) override;
    void chunk_done(const engine::ChunkDone& event) override;
    void chunk_failed(const std::string& rung_name, int chunk, const std::string& slot,
                      const std::string& error, const std::string& cause) override;
    void decode_progress(std::int64_t frames_decoded, std::int64_t frames_expected) override;
    void pass_started(const engine::PassStarted& event) override;
    void finish(const RunOutcome& outcome) override;
    void log_line(const std::string& line) override;

    // The lines of one frame (no ANSI), each at most `width` - 1 columns.
    static std::vector<std::string> frame_lines(const ProgressModel& model, double now, int width);

private:
    void run(std::stop_token stop);
    void changed_locked();
    void draw_locked();
    void print_above_locked(const std::string& line);
    void erase_block_locked();
    int columns() const;
    double elapsed() const;

    std::FILE* out_;
    BarsOptions options_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mu_;
    std::condition_variable_any wake_;
    ProgressModel model_;
    int lines_drawn_ = 0;  // of the block now on screen; the cursor is at the end of its last line
    bool dirty_ = false;
    bool finished_ = false;
    std::chrono::steady_clock::time_point last_draw_{};
    std::jthread thread_;  // last: it starts once everything above exists
};

}  // namespace ladder::cli
