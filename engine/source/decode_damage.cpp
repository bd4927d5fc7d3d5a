// What a lane's DecodePump says of a damaged or truncated source: the
// error when no frame decodes, and the warnings when the ladder is made of
// what could be decoded (never silently).
#include "engine/source/decode_lanes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/errors.hpp"

namespace ladder::engine {

namespace {

// A damaged stream makes the decoder repeat itself once per packet: each
// message once, the first few.
std::string distinct_messages(std::string_view joined) {
    constexpr std::size_t kMax = 3;
    std::vector<std::string_view> seen;
    bool more = false;
    while (!joined.empty()) {
        const auto end = joined.find("; ");
        const std::string_view message = joined.substr(0, end);
        joined = end == std::string_view::npos ? std::string_view{} : joined.substr(end + 2);
        if (std::find(seen.begin(), seen.end(), message) != seen.end()) continue;
        if (seen.size() == kMax) {
            more = true;
            break;
        }
        seen.push_back(message);
    }
    return fmt::format("{}{}", fmt::join(seen, "; "), more ? "; ..." : "");
}

}  // namespace

InputError DecodePump::no_video_frame(const std::string& decoder_says) const {
    const std::string said = distinct_messages(decoder_says);
    return InputError(fmt::format("input {}: no video frame could be decoded{}: the file is damaged or its {} stream "
                                  "is not what its header says; check it with ffprobe or play it",
                                  source_.path, said.empty() ? "" : fmt::format(" (the decoder says: {})", said),
                                  source_.codec_name));
}

// Damaged and truncated sources still make a ladder of what could be
// decoded, but never silently.
void DecodePump::report_damage(bool whole_source) {
    if (!read_error_.empty())
        progress_.note(NoteLevel::warning,
                       fmt::format("input {}: reading stopped early ({}): the file looks truncated or damaged; the "
                                   "outputs end after {} frames",
                                   source_.path, read_error_, counters_.frames_normalized));
    if (whole_source && read_error_.empty())
        note_frames_missing(input_.get()->streams[source_.video_stream], source_, counters_, progress_);
    // Frames the constant-rate step had to invent: gaps in the source's
    // timestamps. Normal for a variable frame rate, a sign of damage when
    // the decoder also complained.
    const std::int64_t filled = counters_.frames_normalized - counters_.frames_decoded;
    if (filled > 0)
        progress_.note(counters_.damaged > 0 ? NoteLevel::warning : NoteLevel::info,
                       fmt::format("input {}: its timestamps leave {} frame(s) empty at {:.3f} fps (a variable frame "
                                   "rate, or frames missing or damaged in the file): the previous frame is repeated "
                                   "there",
                                   source_.path, filled, av_q2d(source_.frame_rate)));
    if (counters_.damaged > 0)
        progress_.note(NoteLevel::warning,
                       fmt::format("input {}: {} damaged video packet(s) or frame(s) were skipped or concealed; gaps "
                                   "repeat the previous good frame: check the source file",
                                   source_.path, counters_.damaged));
}

// Headers that list the frames (MP4, MOV) show a cut file; 2% slack for
// edit lists and frames a decoder legitimately drops.
void note_frames_missing(const AVStream* video, const SourceInfo& source, const PumpCounters& decoded,
                         ProgressSink& progress) {
    if (video->nb_frames > 0 && decoded.frames_decoded < video->nb_frames * 98 / 100)
        progress.note(NoteLevel::warning,
                      fmt::format("input {}: only {} of the {} video frames its header lists could be decoded: the "
                                  "file looks truncated; the outputs end after {} frames",
                                  source.path, decoded.frames_decoded, video->nb_frames, decoded.frames_normalized));
}

}  // namespace ladder::engine
