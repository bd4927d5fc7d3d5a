#include "engine/run/audio_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "av/av_error.hpp"
#include "av/regular_file.hpp"
#include "engine/base/errors.hpp"
#include "engine/run/job_media.hpp"

namespace ladder::engine {

std::unique_ptr<av::InputFile> open_audio_file(const std::filesystem::path& file, SourceInfo& src,
                                               std::stop_token stop) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
        throw InputError(fmt::format("--audio-file {} does not exist: check the path", file.string()));
    av::InputSpec spec(file.string());
    spec.stop = std::move(stop);
    std::unique_ptr<av::InputFile> input;
    try {
        av::require_regular_file(file.string(), "--audio-file");
        input = std::make_unique<av::InputFile>(std::move(spec));
    } catch (const av::NotARegularFile& e) {
        throw InputError(e.what());
    } catch (const av::AvError& e) {
        if (e.code() == AVERROR_EXIT) throw Cancelled();
        throw InputError(fmt::format("--audio-file {} is not a media file ladder can read ({}): pass an audio file "
                                     "(WAV, AAC, MP3, FLAC, or a video with sound)",
                                     file.string(), av::error_string(e.code())));
    }
    describe_audio(*input, src);
    if (std::none_of(src.audio_tracks.begin(), src.audio_tracks.end(), [](const auto& a) { return a.decodable; }))
        throw InputError(fmt::format("--audio-file {} has no audio stream ladder can decode: pass a file with sound",
                                     file.string()));
    src.audio_path = file.string();
    return input;
}

std::int64_t audio_time_zero(const av::InputFile& video_input, const av::InputFile* audio_file, const SourceInfo& src) {
    if (audio_file) {
        const std::int64_t start = audio_file->get()->start_time;
        return start == AV_NOPTS_VALUE ? 0 : start;
    }
    return video_start_of(video_input.get(), src);
}

}  // namespace ladder::engine
