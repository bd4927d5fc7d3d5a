#include "engine/output_paths.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "engine/errors.hpp"

namespace ladder::engine {

std::filesystem::path single_file_path(const std::filesystem::path& outdir, const std::string& rung_name) {
    return outdir / (rung_name + ".mp4");
}

std::filesystem::path hls_rung_dir(const std::filesystem::path& outdir, const std::string& rung_name) {
    return outdir / rung_name;
}

std::filesystem::path hls_audio_dir(const std::filesystem::path& outdir, const std::string& rendition_name) {
    return outdir / kAudioFolder / rendition_name;
}

std::filesystem::path hls_subtitle_dir(const std::filesystem::path& outdir, const std::string& rendition_id) {
    return outdir / kSubtitleFolder / rendition_id;
}

LadderOutputs ladder_outputs(const std::filesystem::path& outdir, const std::vector<std::string>& rung_names,
                             bool write_mp4, bool write_hls, const std::vector<std::string>& hls_audio,
                             const std::vector<std::string>& hls_subtitles) {
    LadderOutputs out;
    for (const auto& name : rung_names) {
        RungOutputs o;
        if (write_mp4) out.finals.push_back(*(o.mp4 = single_file_path(outdir, name)));
        if (write_hls) {
            if (name == kAudioFolder || name == kSubtitleFolder)
                throw InputError(fmt::format("rung name '{}' is reserved for the HLS {} folder: rename the rung", name,
                                             name));
            o.hls_dir = hls_rung_dir(outdir, name);
            out.finals.push_back(*o.hls_dir / "index.m3u8");
        }
        out.rungs.push_back(std::move(o));
    }
    if (write_hls) {
        out.finals.push_back(master_playlist_path(outdir));
        for (const auto& id : hls_audio) out.finals.push_back(hls_audio_dir(outdir, id) / "index.m3u8");
        for (const auto& id : hls_subtitles) out.finals.push_back(hls_subtitle_dir(outdir, id) / "index.m3u8");
    }
    return out;
}

std::filesystem::path master_playlist_path(const std::filesystem::path& outdir) { return outdir / "master.m3u8"; }

std::filesystem::path dash_manifest_path(const std::filesystem::path& outdir) { return outdir / "manifest.mpd"; }

std::string uri_in_ladder(const std::filesystem::path& outdir, const std::filesystem::path& path) {
    return std::filesystem::relative(path, outdir).generic_string();
}

void prepare_output_dir(const std::filesystem::path& outdir, const std::vector<std::filesystem::path>& outputs,
                        bool overwrite) {
    std::error_code ec;
    if (std::filesystem::exists(outdir, ec) && !std::filesystem::is_directory(outdir, ec))
        throw InputError(fmt::format("output {} exists and is not a directory: choose another -o", outdir.string()));
    std::filesystem::create_directories(outdir, ec);
    if (ec)
        throw InputError(fmt::format("cannot create output directory {}: {}: choose another -o or fix permissions",
                                     outdir.string(), ec.message()));
    // access() is not enough (root, read-only mounts): really create a file.
    const auto probe = outdir / ".ladder-write-test";
    int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        throw InputError(fmt::format("output directory {} is not writable: {}: choose another -o or fix permissions",
                                     outdir.string(), std::strerror(errno)));
    ::close(fd);
    std::filesystem::remove(probe, ec);

    for (const auto& out : outputs) {
        if (std::filesystem::exists(out, ec) && !overwrite)
            throw InputError(fmt::format("output {} already exists: pass --overwrite to replace it or choose another -o",
                                         out.string()));
    }
}

void withdraw_finished_outputs(const std::vector<RungOutputs>& rungs, const std::vector<bool>& finished,
                               const std::vector<std::filesystem::path>& rendition_dirs) {
    std::error_code ec;  // best effort: unlink works on a full disk, and nothing here may mask the run's error
    for (std::size_t i = 0; i < rungs.size(); ++i) {
        if (rungs[i].hls_dir) {
            std::filesystem::remove(*rungs[i].hls_dir / "index.m3u8", ec);
            std::filesystem::remove(*rungs[i].hls_dir / "iframes.m3u8", ec);
        }
        if (rungs[i].mp4 && i < finished.size() && finished[i]) std::filesystem::remove(*rungs[i].mp4, ec);
    }
    for (const auto& dir : rendition_dirs) std::filesystem::remove(dir / "index.m3u8", ec);
}

}  // namespace ladder::engine
