#include "engine/output/output_paths.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <system_error>

#include <fmt/format.h>

#include "engine/base/errors.hpp"
#include "engine/check/ladder_path.hpp"
#include "mux/single_file_writer.hpp"

namespace ladder::engine {

namespace {

namespace fs = std::filesystem;

// Rung names are ASCII (engine/plan/ladder_spec.cpp), so ASCII folding is the
// whole of it.
std::string folded(std::string_view name) {
    std::string out(name);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

// Every name in OUTDIR with what claims it; a second claim on a name (in
// any letter case) is an InputError naming both.
class NameClaims {
public:
    void claim(const std::string& name, const std::string& what) {
        const auto [it, fresh] = claims_.emplace(folded(name), what);
        if (!fresh)
            throw InputError(fmt::format("{} and {} would both be '{}' in the output folder (names are compared "
                                         "without letter case, as a case-insensitive file system would): rename "
                                         "the rung",
                                         it->second, what, name));
        names_.push_back(name);
    }
    std::vector<std::string> names() const { return names_; }

private:
    std::map<std::string, std::string> claims_;
    std::vector<std::string> names_;
};

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

std::optional<struct stat> stat_of(const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return std::nullopt;
    return st;
}

// An UnsafeOutputPath when any element of `relative` is a link or not a
// folder; nothing is created.
void check_folder_path(const mux::OutputFolder& root, const fs::path& relative) {
    static_cast<void>(root.existing_folder(relative));
}

void check_final(const mux::OutputFolder& root, const fs::path& relative, bool overwrite) {
    const auto parent = root.existing_folder(relative.parent_path());
    if (!parent) return;
    const std::string name = relative.filename().string();
    switch (parent->entry(name)) {
        case mux::EntryKind::missing: return;
        case mux::EntryKind::link:
            throw mux::UnsafeOutputPath(fmt::format(
                "{} is a symbolic link: ladder never writes through a link inside its output folder; remove it or "
                "choose another -o",
                (parent->path() / name).string()));
        default:
            if (!overwrite)
                throw InputError(fmt::format(
                    "output {} already exists: pass --overwrite to replace it or choose another -o",
                    (parent->path() / name).string()));
    }
}

}  // namespace

std::string single_file_name(const std::string& rung_name) { return rung_name + ".mp4"; }

fs::path hls_audio_folder(const std::string& rendition_id) { return fs::path(kAudioFolder) / rendition_id; }

fs::path hls_subtitle_folder(const std::string& rendition_id) { return fs::path(kSubtitleFolder) / rendition_id; }

const std::vector<std::string>& ladder_own_names() {
    static const std::vector<std::string> names{".ladder", ".ladder.lock", "report.json", "plan.json", "reports"};
    return names;
}

LadderOutputs ladder_outputs(const std::vector<std::string>& rung_names, OutputFormats formats,
                             const std::vector<std::string>& hls_audio, const std::vector<std::string>& hls_subtitles) {
    const bool write_mp4 = formats.contains(OutputFormat::mp4);
    const bool write_hls = formats.cmaf_segments();  // dash's manifest reads HLS's segments
    const bool write_dash = formats.contains(OutputFormat::dash);
    NameClaims claims;
    for (const auto& own : ladder_own_names()) claims.claim(own, fmt::format("ladder's own '{}'", own));
    claims.claim(kMasterPlaylist, "the master playlist");
    claims.claim(kDashManifest, "the DASH manifest");
    claims.claim(kAudioFolder, "the HLS audio folder");
    claims.claim(kSubtitleFolder, "the HLS subtitle folder");
    LadderOutputs out;
    for (const auto& name : rung_names) {
        RungOutputs o;
        if (write_mp4) {
            o.mp4 = single_file_name(name);
            claims.claim(*o.mp4, fmt::format("rung '{}' (its MP4)", name));
            claims.claim(mux::SingleFileWriter::temporary_name(*o.mp4), fmt::format("rung '{}' (its MP4 while written)", name));
            out.finals.push_back(*o.mp4);
        }
        if (write_hls) {
            o.hls_folder = name;
            claims.claim(name, fmt::format("rung '{}' (its HLS folder)", name));
            out.folders.push_back(name);
            out.finals.push_back(fs::path(name) / "index.m3u8");
        }
        out.rungs.push_back(std::move(o));
    }
    out.top_names = claims.names();
    if (write_hls) {
        out.finals.push_back(kMasterPlaylist);
        for (const auto& id : hls_audio) {
            out.folders.push_back(hls_audio_folder(id));
            out.finals.push_back(hls_audio_folder(id) / "index.m3u8");
        }
        for (const auto& id : hls_subtitles) {
            out.folders.push_back(hls_subtitle_folder(id));
            out.finals.push_back(hls_subtitle_folder(id) / "index.m3u8");
        }
        if (write_dash) out.finals.push_back(kDashManifest);
    }
    return out;
}

std::string uri_in_ladder(const fs::path& outdir, const fs::path& path) {
    return path.lexically_normal().lexically_relative(outdir.lexically_normal()).generic_string();
}

mux::OutputFolder prepare_output_dir(const fs::path& outdir, const LadderOutputs& outputs, bool overwrite,
                                     const std::vector<fs::path>& other_outputs) {
    std::optional<mux::OutputFolder> root;
    try {
        root = mux::OutputFolder::open_named(outdir, true);
        root->check_writable();
    } catch (const mux::UnsafeOutputPath&) {
        throw InputError(fmt::format("output {} exists and is not a directory: choose another -o", outdir.string()));
    } catch (const std::system_error& e) {
        throw InputError(fmt::format("output directory {} cannot be created or written: {}: choose another -o or fix "
                                     "permissions",
                                     outdir.string(), e.code().message()));
    }
    // Links first: a planted link is named whatever else is wrong.
    check_folder_path(*root, ".ladder");
    for (const auto& folder : outputs.folders) check_folder_path(*root, folder);
    for (const auto& final : outputs.finals) check_final(*root, final, true);
    refuse_links_in_the_way(outdir, other_outputs);
    for (const auto& final : outputs.finals) check_final(*root, final, overwrite);
    return std::move(*root);
}

void refuse_outputs_over_inputs(const fs::path& outdir, const std::vector<std::string>& claimed,
                                const std::vector<fs::path>& inputs, const std::vector<fs::path>& other_outputs) {
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(outdir, ec);
    std::vector<std::string> claimed_folded;
    for (const auto& name : claimed) claimed_folded.push_back(folded(name));
    for (const auto& input : inputs) {
        if (input.empty()) continue;
        const fs::path real = fs::weakly_canonical(input, ec);
        if (ec || !path_is_within(real, root)) continue;
        if (real == root)
            throw InputError(fmt::format("the input {} is the output folder: choose another -o", input.string()));
        const std::string first = folded(real.lexically_relative(root).begin()->string());
        if (std::find(claimed_folded.begin(), claimed_folded.end(), first) != claimed_folded.end())
            throw InputError(fmt::format("the input {} is where this run writes its outputs in {}: move the input "
                                         "out of the output folder or choose another -o",
                                         input.string(), outdir.string()));
    }
    std::vector<struct stat> input_files;
    for (const auto& input : inputs)
        if (const auto st = stat_of(input)) input_files.push_back(*st);
    const auto is_input = [&](const fs::path& p) {
        const auto st = stat_of(p);
        return st && std::any_of(input_files.begin(), input_files.end(),
                                 [&](const struct stat& in) { return same_file(*st, in); });
    };
    for (const auto& out : other_outputs)
        if (is_input(out))
            throw InputError(fmt::format("{} is an input of this run and would be overwritten by its report: name "
                                         "another --report",
                                         out.string()));
    for (const auto& name : claimed)
        if (is_input(outdir / name))
            throw InputError(fmt::format("{} is an input of this run (under another name) and would be replaced: "
                                         "choose another -o",
                                         (outdir / name).string()));
}

void refuse_links_in_the_way(const fs::path& outdir, const std::vector<fs::path>& files) {
    std::error_code ec;
    const fs::path root = fs::absolute(outdir, ec).lexically_normal();
    const auto folder = mux::OutputFolder::open_named(outdir, true);
    for (const auto& file : files) {
        // As named: OUTDIR/report.json, OUTDIR/reports/shard-0-of-2.json.
        const fs::path named = fs::absolute(file, ec).lexically_normal();
        if (named == root || !path_is_within(named, root)) continue;
        check_final(folder, named.lexically_relative(root), true);
    }
}

void withdraw_finished_outputs(const mux::OutputFolder& outdir, const std::vector<RungOutputs>& rungs,
                               const std::vector<bool>& finished, const std::vector<fs::path>& rendition_folders) {
    // Best effort: unlink works on a full disk, and nothing here may mask the run's error.
    const auto remove = [&outdir](const fs::path& folder, const std::string& name) {
        try {
            if (const auto f = outdir.existing_folder(folder)) f->remove(name);
        } catch (const std::exception&) {
        }
    };
    for (std::size_t i = 0; i < rungs.size(); ++i) {
        if (rungs[i].hls_folder) {
            remove(*rungs[i].hls_folder, "index.m3u8");
            remove(*rungs[i].hls_folder, "iframes.m3u8");
        }
        if (rungs[i].mp4 && i < finished.size() && finished[i]) remove(".", *rungs[i].mp4);
    }
    for (const auto& folder : rendition_folders) remove(folder, "index.m3u8");
}

}  // namespace ladder::engine
