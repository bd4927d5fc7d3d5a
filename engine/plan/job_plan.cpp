#include "engine/plan/job_plan.hpp"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <system_error>

#include "av/regular_file.hpp"
#include "engine/base/errors.hpp"
#include "mux/output_folder.hpp"

namespace ladder::engine {

namespace {

constexpr int kPlanVersion = 1;

int parse_int(std::string_view text) {
    int v = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) return -1;
    return v;
}

const char* splice_name(mux::SpliceCheck c) { return c == mux::SpliceCheck::config ? "config" : "strict"; }

}  // namespace

std::optional<AVRational> JobPlan::input_frame_rate() const {
    if (!image_sequence) return std::nullopt;
    return frame_rate;
}

int JobPlan::chunk_count() const {
    if (chunk_frames <= 0) return 0;
    return static_cast<int>((frames + chunk_frames - 1) / chunk_frames);
}

std::vector<PlanChunk> JobPlan::chunks() const {
    std::vector<PlanChunk> out;
    for (int i = 0; i < chunk_count(); ++i) {
        const std::int64_t first = static_cast<std::int64_t>(i) * chunk_frames;
        out.push_back(PlanChunk{i, first, std::min<std::int64_t>(chunk_frames, frames - first)});
    }
    return out;
}

std::string JobPlan::fingerprint() const {
    std::string f = fmt::format("plan{}|bytes={}|{}x{}|{}/{}|frames={}|origin={}|chunk={}|encoder={}|preset={}|check={}",
                                kPlanVersion, source_bytes, width, height, frame_rate.num, frame_rate.den, frames,
                                origin_pts, chunk_frames, encoder, preset, splice_name(splice_check));
    f += ladder_fingerprint(ladder);
    if (budget) f += "|rate=budget";
    return f;
}

std::string JobPlan::journal_key(std::size_t rung, int chunk) const {
    const std::string& name = ladder.rungs.at(rung).name;
    if (!budget) return name;
    return budget_journal_key(name, chunk_crf.at(rung).at(static_cast<std::size_t>(chunk)));
}

ShardSpec parse_shard(const std::string& text) {
    const auto slash = text.find('/');
    const int index = slash == std::string::npos ? -1 : parse_int(std::string_view(text).substr(0, slash));
    const int count = slash == std::string::npos ? -1 : parse_int(std::string_view(text).substr(slash + 1));
    if (index < 0 || count < 1 || index >= count)
        throw InputError(fmt::format("--shard {:?}: give I/N with 0 <= I < N, e.g. 0/4 for the first of four shards "
                                     "(Kubernetes: $(JOB_COMPLETION_INDEX)/N, Slurm: $SLURM_ARRAY_TASK_ID/N)",
                                     text));
    return ShardSpec{index, count};
}

std::pair<int, int> shard_chunks(int chunk_count, ShardSpec shard) {
    const auto at = [&](int i) {
        return static_cast<int>(static_cast<std::int64_t>(chunk_count) * i / shard.count);
    };
    return {at(shard.index), at(shard.index + 1)};
}

nlohmann::json plan_to_json(const JobPlan& p) {
    nlohmann::json rungs = nlohmann::json::array();
    for (const auto& r : p.ladder.rungs) {
        nlohmann::json j{{"name", r.name}, {"width", r.width}, {"height", r.height}, {"bitrate_kbps", r.bitrate_kbps}};
        if (r.maxrate_kbps) j["maxrate_kbps"] = r.maxrate_kbps;
        if (r.bufsize_kbps) j["bufsize_kbps"] = r.bufsize_kbps;
        if (r.crf >= 0) j["crf"] = r.crf;
        rungs.push_back(std::move(j));
    }
    nlohmann::json chunks = nlohmann::json::array();
    for (const auto& c : p.chunks())
        chunks.push_back({{"index", c.index}, {"first_frame", c.first_frame}, {"frames", c.frames}});
    nlohmann::json j{
        {"ladder_plan", kPlanVersion},
        {"source",
         {{"path", p.input.string()},
          {"bytes", p.source_bytes},
          {"width", p.width},
          {"height", p.height},
          {"frame_rate", {p.frame_rate.num, p.frame_rate.den}},
          {"frames", p.frames},
          {"origin_pts", p.origin_pts}}},
        {"encoder", {{"name", p.encoder}, {"preset", p.preset}, {"splice_check", splice_name(p.splice_check)}}},
        {"audio", p.audio.to_string()},
        {"subtitles", p.subtitles.to_string()},
        {"segment_seconds", p.segment_seconds},
        {"chunk_frames", p.chunk_frames},
        {"ladder", {{"rungs", rungs}}},
        {"chunks", chunks},
        {"fingerprint", p.fingerprint()},
    };
    // Only when set, so that plans of video files read as before.
    if (p.image_sequence) j["source"]["image_sequence"] = true;
    if (!p.audio_file.empty()) j["audio_file"] = p.audio_file.string();
    if (p.budget) j["rate_control"] = {{"mode", "budget"}, {"chunk_crf", p.chunk_crf}};
    return j;
}

JobPlan plan_from_json(const nlohmann::json& j, const std::string& origin) {
    const auto bad = [&](const std::string& why) {
        return InputError(fmt::format("{}: not a usable ladder plan ({}): make it again with ladder plan", origin, why));
    };
    if (!j.is_object() || j.value("ladder_plan", 0) != kPlanVersion) throw bad("no \"ladder_plan\": 1");
    JobPlan p;
    try {
        const auto& s = j.at("source");
        p.input = s.at("path").get<std::string>();
        p.image_sequence = s.value("image_sequence", false);
        p.audio_file = j.value("audio_file", std::string());
        p.source_bytes = s.at("bytes").get<std::uintmax_t>();
        p.width = s.at("width").get<int>();
        p.height = s.at("height").get<int>();
        p.frame_rate = AVRational{s.at("frame_rate").at(0).get<int>(), s.at("frame_rate").at(1).get<int>()};
        p.frames = s.at("frames").get<std::int64_t>();
        p.origin_pts = s.at("origin_pts").get<std::int64_t>();
        const auto& e = j.at("encoder");
        p.encoder = e.at("name").get<std::string>();
        p.preset = e.at("preset").get<int>();
        p.splice_check = e.at("splice_check").get<std::string>() == "config" ? mux::SpliceCheck::config
                                                                             : mux::SpliceCheck::strict;
        p.audio = parse_audio_choice(j.at("audio").get<std::string>());
        // Plans written before subtitles were carried have none.
        p.subtitles = parse_subtitle_choice(j.value("subtitles", std::string("none")));
        p.segment_seconds = j.at("segment_seconds").get<double>();
        p.chunk_frames = j.at("chunk_frames").get<int>();
        p.ladder = parse_ladder_json(j.at("ladder").dump(), origin);
        if (j.contains("rate_control")) {
            p.budget = j.at("rate_control").at("mode").get<std::string>() == "budget";
            p.chunk_crf = j.at("rate_control").at("chunk_crf").get<std::vector<std::vector<int>>>();
        }
    } catch (const nlohmann::json::exception& e) {
        throw bad(e.what());
    }
    if (p.frames <= 0 || p.chunk_frames <= 0 || p.frame_rate.num <= 0 || p.frame_rate.den <= 0 ||
        !p.input.is_absolute() || (!p.audio_file.empty() && !p.audio_file.is_absolute()))
        throw bad("frames, chunk_frames, frame_rate or source path out of range");
    for (const auto& r : p.ladder.rungs)
        if (r.width <= 0 || r.height <= 0) throw bad(fmt::format("rung {} has no explicit size", r.name));
    if (p.budget) {
        if (p.chunk_crf.size() != p.ladder.rungs.size()) throw bad("rate_control.chunk_crf: not one list per rung");
        for (const auto& crfs : p.chunk_crf) {
            if (static_cast<int>(crfs.size()) != p.chunk_count())
                throw bad("rate_control.chunk_crf: not one CRF per chunk");
            for (int crf : crfs)
                if (crf < 0 || crf > 63) throw bad(fmt::format("rate_control.chunk_crf: CRF {} out of 0..63", crf));
        }
    }
    if (j.value("fingerprint", "") != p.fingerprint()) throw bad("its fingerprint does not match its contents");
    return p;
}

JobPlan read_plan(const std::filesystem::path& file) {
    std::string text;
    try {
        text = av::read_regular_file(file.string(), "the plan");
    } catch (const av::NotARegularFile& e) {
        throw InputError(e.what());
    } catch (const std::system_error&) {
        throw InputError(fmt::format("cannot read the plan {}: make one with ladder plan INPUT -o WORKDIR",
                                     file.string()));
    }
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) throw InputError(fmt::format("{}: not JSON: make the plan again with ladder plan", file.string()));
    return plan_from_json(j, file.string());
}

void write_plan(const JobPlan& plan, const std::filesystem::path& workdir) {
    mux::OutputFolder::open_named(workdir, true).write_atomically(kPlanFileName, plan_to_json(plan).dump(2) + "\n");
}

}  // namespace ladder::engine
