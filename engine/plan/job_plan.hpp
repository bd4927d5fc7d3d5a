#pragma once
// The plan of a job split across machines (`ladder plan`): which source
// (and what must match it), the fitted ladder, the chunk boundaries, the
// encoder settings, and the fingerprint every chunk of the job carries.
// Written as WORKDIR/plan.json; `ladder encode --plan` encodes shards of its
// chunks into WORKDIR, `ladder stitch` assembles them into outputs.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/media/audio_selection.hpp"
#include "engine/media/subtitle_selection.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "mux/av1_sequence_header.hpp"

namespace ladder::engine {

struct PlanChunk {
    int index = 0;
    std::int64_t first_frame = 0;
    std::int64_t frames = 0;
};

struct JobPlan {
    std::filesystem::path input;  // absolute, as every machine must see it
    // input is an image sequence's pattern, read at frame_rate.
    bool image_sequence = false;
    // --audio-file (absolute): where ladder stitch reads the audio; empty: the input's own.
    std::filesystem::path audio_file;
    std::uintmax_t source_bytes = 0;  // an image sequence's: all frames together
    int width = 0;  // display size of the normalized source
    int height = 0;
    AVRational frame_rate{0, 1};
    std::int64_t frames = 0;      // normalized frames, counted by decoding the whole source
    std::int64_t origin_pts = 0;  // the first normalized frame's timestamp, in 1/frame_rate
    double segment_seconds = 2.0;
    int chunk_frames = 0;
    LadderSpec ladder;  // fitted to the source: every width and height explicit
    std::string encoder = "libsvtav1";
    int preset = -1;
    mux::SpliceCheck splice_check = mux::SpliceCheck::strict;
    AudioChoice audio;  // as --audio asked; disabled when the source has no audio it selects
    SubtitleChoice subtitles;  // as --subtitles asked; disabled when the source has no text subtitle it selects
    // --rate-control budget: `ladder plan` searched each rung's CRFs over
    // the whole source; every shard encodes its chunks at these (chunk_crf[r]
    // is rung r's, one per chunk), and stitch reads them under those CRFs.
    bool budget = false;
    std::vector<std::vector<int>> chunk_crf;

    // The frame rate to open the input with: an image sequence's, else none.
    std::optional<AVRational> input_frame_rate() const;
    int chunk_count() const;
    std::vector<PlanChunk> chunks() const;
    // What every chunk of this job carries (no paths: the shared folder may
    // be mounted elsewhere on each machine; not chunk_crf: the search that
    // finds it journals under the plan's fingerprint, and each chunk's key
    // names its CRF).
    std::string fingerprint() const;
    // Where chunk `chunk` of rung `rung` is journaled: the rung's name, or
    // under budget "<name>@crf<N>" (as Rung::journal_key).
    std::string journal_key(std::size_t rung, int chunk) const;
};

// "I/N": shard I (0-based) of N.
struct ShardSpec {
    int index = 0;
    int count = 1;
};

// Throws InputError naming the problem.
ShardSpec parse_shard(const std::string& text);

// Shard I of N: a contiguous range [first, end) of the plan's chunks; the
// shards together cover every chunk once and differ by at most one chunk.
std::pair<int, int> shard_chunks(int chunk_count, ShardSpec shard);

nlohmann::json plan_to_json(const JobPlan& plan);
// origin names the file in error messages. Throws InputError.
JobPlan plan_from_json(const nlohmann::json& j, const std::string& origin);

constexpr const char* kPlanFileName = "plan.json";

// Throws InputError (missing, unreadable or not a plan).
JobPlan read_plan(const std::filesystem::path& file);
// WORKDIR/plan.json, atomically.
void write_plan(const JobPlan& plan, const std::filesystem::path& workdir);

}  // namespace ladder::engine
