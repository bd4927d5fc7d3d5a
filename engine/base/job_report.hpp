#pragma once
// What a run did, for the user, for tests and (as JSON) for tooling.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ladder::engine {

struct ChunkRecord {
    int rung = 0;
    int index = 0;
    std::int64_t first_frame = 0;
    std::int64_t frames = 0;
    std::size_t bytes = 0;
    std::string slot;
    std::string encoder;
    double start_seconds = 0;
    double end_seconds = 0;
    int requested_kbps = 0;  // 0: not encoded in this run (resumed)
    int session = -1;        // JobReport::sessions id; -1: not encoded in this run
    std::optional<double> quality;  // --quality: this chunk's value; none for a resumed chunk
    int frames_gpu = -1;     // the GPU whose memory held its frames; -1: host memory
};

// One encoder session: consecutive chunks of a rung through one encoder.
struct SessionRecord {
    int id = 0;
    std::string rung;
    std::string slot;
    std::string encoder;
    int threads = 0;
    int requested_kbps = 0;
    double weight = 1.0;       // how hard its chunks are (ChunkComplexity)
    double left_weight = 1.0;  // the same for every chunk from its first on; its share is weight / left_weight
    int measured_chunks = -1;  // chunks the complexity analysis had measured when it started (-1: even shares)
    std::vector<int> chunks;  // accepted, in order
    std::size_t bytes = 0;
    // false: the session went on with a GPU encoder its slot kept open
    // from an earlier session on the rung, instead of opening one.
    bool opened_encoder = true;
    // That encoder was opened for this session, before its first chunk was
    // ready (EncoderWorker::open_ahead).
    bool opened_ahead = false;
    std::string ended;  // why it ended: a session_end_name (engine/schedule/schedule_policy.hpp)
    double start_seconds = 0;  // since job start
    double end_seconds = 0;
};

struct RungReport {
    std::string name;
    int width = 0;
    int height = 0;
    int bitrate_kbps = 0;
    int crf = -1;  // >= 0: the rung's constant quality (RungSpec::crf)
    // --rate-control budget: how the search for the rung's CRF ended
    // (crf_verdict_name: "on_target", "at_quality_ceiling", "mixed",
    // "over_at_largest_crf", "search_limit"), how many whole-rung encodes it
    // took, and each chunk's CRF (mixed: some one step above `crf`).
    std::string crf_search;
    int crf_encodes = 0;
    std::vector<int> chunk_crf;
    int crf_peak_capped = 0;  // chunks given a higher CRF for the peak
    int chunks = 0;
    std::int64_t frames = 0;
    std::size_t video_bytes = 0;
    // The largest chunk's video bytes per frame, over the chunks at least
    // half as long as the first (a short last chunk is not a segment's
    // rate): with video_bytes / frames, the rung's peak over its average.
    double peak_chunk_bytes_per_frame = 0;
    std::string output;  // path of the finished file
    // --quality: the mean over the measured chunks' frames and the lowest
    // chunk (JobReport::quality_metric names the metric).
    std::optional<double> quality_mean;
    std::optional<double> quality_min;
    int quality_chunks = 0;
};

// How a rung's average video rate stands against its target (README "What
// a rung's bit rate means"): the target is the average aimed for; a rung
// within ±kRateTolerance of it is on target, else over or under by
// `off` (a fraction of the target: +0.22 = 22% over). Apple's HLS
// authoring rules ask for a peak (BANDWIDTH) of at most twice the average:
// `peak_over_average` is the largest chunk's rate over the rung's (video
// only; 0 when unknown).
inline constexpr double kRateTolerance = 0.05;
inline constexpr double kPeakOverAverageLimit = 2.0;
struct RateStanding {
    enum class Verdict { on_target, over, under };
    Verdict verdict = Verdict::on_target;
    double average_kbps = 0;
    double off = 0;
    double peak_over_average = 0;
};
// nullopt: no target, or no frames to measure a rate over.
std::optional<RateStanding> rate_standing(const RungReport& rung, double frame_rate);
const char* verdict_name(RateStanding::Verdict verdict);

struct SlotReport {
    std::string label;  // "cpu0:svt"
    std::string encoder;
    int chunks = 0;
    double busy_seconds = 0;  // encoding
    int failures = 0;
    bool quarantined = false;
    int processes = 0;  // encoder processes started (0: encoded in ladder's process)
};

// Chunks a rung's codec contract refused, per encoder.
struct MismatchRecord {
    std::string rung;
    std::string encoder;
    int count = 0;
    std::vector<std::string> fields;  // of the first refusal
};

// A chunk attempt that failed and was retried elsewhere.
struct RetryRecord {
    std::string rung;
    int chunk = 0;
    std::string slot;
    std::string error;
    // "error" (the encoder reported a failure), "crash" (its process died),
    // "hang" (its process stalled and was killed) or "undecodable" (the
    // chunk it made did not decode to its frames).
    std::string cause = "error";
};

// What one shard of a plan did (`ladder encode --plan P --shard I/N`).
struct ShardSummary {
    int index = 0;
    int count = 1;
    int first_chunk = 0;  // [first_chunk, end_chunk) of every rung
    int end_chunk = 0;
    int chunks_encoded = 0;  // all rungs
    int chunks_kept = 0;     // already in the shared journal
};

// What one decode lane did (engine/source/decode_lanes.hpp).
struct DecodeLaneRecord {
    int lane = 0;
    std::string device;            // "cpu" or the GPU whose NVDEC decoded it
    std::int64_t first_frame = 0;  // in the whole source
    std::int64_t end_frame = 0;    // after its last
    std::int64_t packets = 0;
    std::int64_t frames_decoded = 0;
    double busy_seconds = 0;  // demux + decode + normalize, without waiting for room downstream
    double seconds = 0;       // from its start to its end
};

struct JobReport {
    std::string input;
    std::vector<RungReport> rungs;
    std::vector<ChunkRecord> chunks;
    std::vector<SessionRecord> sessions;  // in the order they ended
    // --rate-control budget: every rung's settled CRF per chunk, in ladder
    // order (also in a shard, whose report has no rungs: a plan's search).
    std::vector<std::vector<int>> settled_chunk_crf;
    // Proof of "decode once": what the pump read and decoded from the source.
    std::int64_t source_video_packets = 0;
    std::int64_t source_frames_decoded = 0;
    std::int64_t frames_normalized = 0;  // after the constant-frame-rate step
    std::int64_t audio_packets = 0;
    double frame_rate = 0;  // of every output
    int encoder_slots = 0;
    std::vector<SlotReport> slots;
    std::vector<MismatchRecord> mismatches;
    std::vector<RetryRecord> retries;
    double decode_seconds = 0;  // the decode lanes' busy time, summed
    std::vector<DecodeLaneRecord> decode_lanes;
    std::string decode_device = "cpu";  // or "GPU 0 ... (NVDEC)"
    std::string rate_control = "vbr";   // or "budget": what the run used (--rate-control auto chooses)
    // The CPU encoders whose every chunk was decoded before it was taken
    // (--verify-chunks); `ladder stitch` encodes nothing and reports none.
    std::vector<std::string> decode_checked_encoders;
    std::int64_t frames_decoded_on_gpu = 0;
    std::vector<std::string> dropped_devices;  // selected GPUs that could not encode, with why
    int gpu_encoder_probes = 0;                // test encoders the pre-flight opened (one per GPU model)
    int gpu_encoders_opened_ahead = 0;         // before a session needed them (IdleEncoders)
    int gpu_encoders_never_used = 0;           // of those, closed without a session
    std::string quality_metric;                // --quality: "psnr", "ssim" or "xpsnr"; empty: none measured
    std::uint64_t memory_budget = 0;       // bytes of queued raw frames allowed
    std::uint64_t gpu_memory_budget = 0;   // the same on the decoding GPUs (the largest); 0: no frames waited there
    std::uint64_t peak_gpu_queued_bytes = 0;  // the most any one GPU held
    struct GpuMemory {
        int gpu = -1;  // CUDA ordinal
        std::uint64_t budget = 0;
        std::uint64_t peak_queued_bytes = 0;
    };
    std::vector<GpuMemory> gpu_memory;  // each GPU whose memory held chunks
    std::uint64_t peak_queued_bytes = 0;   // the most that were queued at once
    int resumed_chunks = 0;  // taken from the journal instead of encoded
    // Passes over the source (budget rate control makes several), of which
    // replayed handed on the frames the first pass kept instead of decoding.
    int source_passes = 0;
    int replayed_passes = 0;
    std::uint64_t kept_frame_bytes = 0;  // the frames kept for those passes
    double wall_seconds = 0;
    // When each step ended, since the start: preflight (source, devices,
    // encoders checked), stages_started, stages_joined (every frame
    // encoded and written), kept_encoders_closed, published,
    // reported.
    std::vector<std::pair<std::string, double>> phase_seconds;
    std::optional<ShardSummary> shard;
};

void to_json(nlohmann::json& j, const JobReport& r);

}  // namespace ladder::engine
