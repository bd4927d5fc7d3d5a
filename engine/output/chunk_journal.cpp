#include "engine/output/chunk_journal.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>

#include "av/av_error.hpp"
#include "av/extradata.hpp"
#include "engine/base/errors.hpp"

namespace ladder::engine {

namespace {

constexpr char kMagic[8] = {'L', 'D', 'R', 'C', 'H', 'N', 'K', '1'};

void put(std::string& out, const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }

template <typename T>
void put_value(std::string& out, T v) {
    put(out, &v, sizeof v);
}

template <typename T>
bool get_value(const std::string& in, std::size_t& pos, T& v) {
    if (in.size() - pos < sizeof v) return false;
    std::memcpy(&v, in.data() + pos, sizeof v);
    pos += sizeof v;
    return true;
}

nlohmann::json codecpar_json(const AVCodecParameters* p) {
    return {{"codec_type", p->codec_type},     {"codec_id", p->codec_id},
            {"width", p->width},               {"height", p->height},
            {"format", p->format},             {"profile", p->profile},
            {"level", p->level},               {"color_range", p->color_range},
            {"color_primaries", p->color_primaries}, {"color_trc", p->color_trc},
            {"color_space", p->color_space},   {"chroma_location", p->chroma_location},
            {"bit_rate", p->bit_rate}};
}

constexpr const char* kJobFile = "job.json";

InputError no_chunks_in(const std::filesystem::path& outdir) {
    return InputError(fmt::format("no encoded chunks in {}: run the shards first (ladder encode --plan {} --shard I/N)",
                                  outdir.string(), (outdir / "plan.json").string()));
}

// OUTDIR/.ladder; a fresh journal starts empty.
mux::OutputFolder journal_folder(const std::filesystem::path& outdir, JournalMode mode) {
    if (mode == JournalMode::read) {
        auto existing = mux::OutputFolder::open_named(outdir, false).existing_folder(".ladder");
        if (!existing) throw no_chunks_in(outdir);
        return std::move(*existing);
    }
    auto journal = mux::OutputFolder::open_named(outdir, true).folder(".ladder");
    // Emptied, not removed: the folder may be a mount point of its own.
    if (mode == JournalMode::fresh)
        for (const auto& name : journal.names()) journal.remove_tree(name);
    return journal;
}

// A chunk's --quality measurement as journaled, when made with `metric`.
std::optional<ChunkQuality> journaled_quality(const nlohmann::json& meta, const std::string& metric) {
    if (metric.empty() || !meta.contains("quality")) return std::nullopt;
    const auto& q = meta["quality"];
    if (!q.is_object() || q.value("metric", "") != metric) return std::nullopt;
    ChunkQuality c;
    c.value = q.value("value", 0.0);
    c.sum = q.value("sum", 0.0);
    c.frames = q.value("frames", 0L);
    c.max_sample = q.value("max_sample", 255);
    const int averaging = q.value("averaging", 0);
    if (averaging < 0 || averaging > static_cast<int>(QualityAveraging::root_error) || c.frames <= 0) return std::nullopt;
    c.averaging = static_cast<QualityAveraging>(averaging);
    return c;
}

}  // namespace

ChunkJournal::ChunkJournal(std::filesystem::path outdir, std::string fingerprint, JournalMode mode)
    : folder_(journal_folder(outdir, mode)),
      fingerprint_(std::move(fingerprint)),
      writer_(fmt::format("{}-{}", getpid(), std::chrono::steady_clock::now().time_since_epoch().count())) {
    const std::optional<std::string> job_text = folder_.read(kJobFile);
    if (mode != JournalMode::fresh && job_text) {
        nlohmann::json j = nlohmann::json::parse(*job_text, nullptr, false);
        if (j.is_discarded() || j.value("fingerprint", "") != fingerprint_) {
            if (mode == JournalMode::resume)
                throw InputError(fmt::format("--resume: the journal in {} is from a different source, ladder or "
                                             "encoder settings: run again without --resume (and with --overwrite) to "
                                             "start over",
                                             dir().string()));
            throw InputError(fmt::format("the chunks in {} belong to another plan (another source, ladder or "
                                         "encoder settings): use a new folder for this plan, or delete that one",
                                         dir().string()));
        }
        resuming_ = true;
        return;
    }
    if (mode == JournalMode::read) throw no_chunks_in(outdir);
    // Shards starting at once all write the same content here.
    folder_.write_atomically(kJobFile, nlohmann::json{{"fingerprint", fingerprint_}}.dump(2));
    resuming_ = mode != JournalMode::fresh;
}

std::string ChunkJournal::chunk_name(int index) { return fmt::format("chunk_{:05d}.bin", index); }

bool ChunkJournal::has_file(const std::string& rung_name, int index) const {
    const auto rung = folder_.existing_folder(rung_name);
    return rung && rung->entry(chunk_name(index)) != mux::EntryKind::missing;
}

void ChunkJournal::record(const EncodedChunk& c, const std::string& rung_name) {
    nlohmann::json meta{{"rung", c.rung},
                        {"index", c.index},
                        {"first_frame", c.first_frame},
                        {"frame_count", c.frame_count},
                        {"slot", c.slot_label},
                        {"encoder", c.encoder},
                        {"codecpar", codecpar_json(c.codecpar.get())},
                        {"packets", c.packets.size()},
                        {"fingerprint", fingerprint_},
                        {"writer", writer_}};
    if (c.quality && !quality_metric_.empty())
        meta["quality"] = {{"metric", quality_metric_},
                           {"value", c.quality->value},
                           {"sum", c.quality->sum},
                           {"frames", c.quality->frames},
                           {"max_sample", c.quality->max_sample},
                           {"averaging", static_cast<int>(c.quality->averaging)}};
    const std::string meta_text = meta.dump();
    std::string out;
    put(out, kMagic, sizeof kMagic);
    put_value<std::uint32_t>(out, static_cast<std::uint32_t>(meta_text.size()));
    out += meta_text;
    put_value<std::uint32_t>(out, static_cast<std::uint32_t>(c.codecpar->extradata_size));
    put(out, c.codecpar->extradata, static_cast<std::size_t>(c.codecpar->extradata_size));
    for (const auto& p : c.packets) {
        put_value<std::int64_t>(out, p->pts);
        put_value<std::int32_t>(out, p->flags);
        put_value<std::uint32_t>(out, static_cast<std::uint32_t>(p->size));
        put(out, p->data, static_cast<std::size_t>(p->size));
    }
    folder_.folder(rung_name).write_atomically(chunk_name(c.index), out);
}

std::optional<EncodedChunk> ChunkJournal::load(int rung, const std::string& rung_name, int index,
                                               bool* earlier) const {
    const auto rung_folder = folder_.existing_folder(rung_name);
    const std::optional<std::string> file = rung_folder ? rung_folder->read(chunk_name(index)) : std::nullopt;
    if (!file) return std::nullopt;
    const std::string& data = *file;
    std::size_t pos = sizeof kMagic;
    if (data.size() < pos || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
    std::uint32_t meta_size = 0;
    if (!get_value(data, pos, meta_size) || data.size() - pos < meta_size) return std::nullopt;
    const auto meta = nlohmann::json::parse(data.substr(pos, meta_size), nullptr, false);
    pos += meta_size;
    if (meta.is_discarded() || meta.value("rung", -1) != rung || meta.value("index", -1) != index ||
        meta.value("fingerprint", "") != fingerprint_)
        return std::nullopt;

    EncodedChunk c;
    c.rung = rung;
    c.index = index;
    c.first_frame = meta.value("first_frame", std::int64_t{0});
    c.frame_count = meta.value("frame_count", std::int64_t{0});
    // A chunk this journal wrote (budget's earlier pass) names its slot as
    // it is; one from an earlier run or another shard says where it came from.
    const bool written_earlier = meta.value("writer", "") != writer_;
    if (earlier) *earlier = written_earlier;
    c.slot_label = meta.value("slot", "") + (written_earlier ? " (journal)" : "");
    c.encoder = meta.value("encoder", "");
    c.quality = journaled_quality(meta, quality_metric_);
    auto par = av::make_codec_parameters();
    const auto& cp = meta["codecpar"];
    par->codec_type = static_cast<AVMediaType>(cp.value("codec_type", 0));
    par->codec_id = static_cast<AVCodecID>(cp.value("codec_id", 0));
    par->width = cp.value("width", 0);
    par->height = cp.value("height", 0);
    par->format = cp.value("format", -1);
    par->profile = cp.value("profile", 0);
    par->level = cp.value("level", 0);
    par->color_range = static_cast<AVColorRange>(cp.value("color_range", 0));
    par->color_primaries = static_cast<AVColorPrimaries>(cp.value("color_primaries", 2));
    par->color_trc = static_cast<AVColorTransferCharacteristic>(cp.value("color_trc", 2));
    par->color_space = static_cast<AVColorSpace>(cp.value("color_space", 2));
    par->chroma_location = static_cast<AVChromaLocation>(cp.value("chroma_location", 0));
    par->bit_rate = cp.value("bit_rate", std::int64_t{0});
    std::uint32_t extradata_size = 0;
    if (!get_value(data, pos, extradata_size) || data.size() - pos < extradata_size) return std::nullopt;
    av::set_extradata(par.get(), std::vector<std::uint8_t>(data.begin() + static_cast<std::ptrdiff_t>(pos),
                                                           data.begin() + static_cast<std::ptrdiff_t>(pos + extradata_size)));
    pos += extradata_size;
    c.codecpar = std::move(par);
    const auto count = meta.value("packets", std::size_t{0});
    for (std::size_t i = 0; i < count; ++i) {
        std::int64_t pts = 0;
        std::int32_t flags = 0;
        std::uint32_t size = 0;
        if (!get_value(data, pos, pts) || !get_value(data, pos, flags) || !get_value(data, pos, size) ||
            data.size() - pos < size)
            return std::nullopt;
        av::PacketPtr pkt = av::make_packet();
        av::check(av_new_packet(pkt.get(), static_cast<int>(size)), "allocating a journaled packet");
        std::memcpy(pkt->data, data.data() + pos, size);
        pos += size;
        pkt->pts = pkt->dts = pts;
        pkt->duration = 1;
        pkt->flags = flags;
        c.bytes += size;
        c.packets.push_back(std::move(pkt));
    }
    if (static_cast<std::int64_t>(c.packets.size()) != c.frame_count) return std::nullopt;
    return c;
}

void ChunkJournal::remove() {
    try {
        mux::OutputFolder::open_named(folder_.path().parent_path(), false).remove_tree(".ladder");
    } catch (const std::exception&) {
        // best effort: the outputs are complete; a journal left behind costs space only
    }
}

}  // namespace ladder::engine
