#include "cli/input_options.hpp"

#include <stdexcept>

#include "cli/frame_rate_option.hpp"

namespace ladder::cli {

CLI::Option* add_frame_rate_option(CLI::App& cmd, std::string& frame_rate) {
    return cmd
        .add_option("--frame-rate", frame_rate,
                    "Frames per second of an image sequence INPUT (required for one; a video file keeps its own "
                    "rate and refuses this): 24, 25, 23.976 (= 24000/1001), 29.97, 30000/1001")
        ->type_name("RATE");
}

CLI::Option* add_audio_file_option(CLI::App& cmd, std::string& audio_file) {
    return cmd
        .add_option("--audio-file", audio_file,
                    "Take the audio from FILE (WAV, AAC, MP3, FLAC, a video with sound...) instead of INPUT's own: "
                    "the sound of an image sequence, or a new one for a video; its start is the first video frame, "
                    "and it is cut or padded with silence to the video's length")
        ->type_name("FILE");
}

void set_input_options(engine::JobOptions& options, const std::string& frame_rate, const std::string& audio_file,
                       const std::string& audio) {
    if (!frame_rate.empty()) options.frame_rate = parse_frame_rate(frame_rate);
    if (!audio_file.empty() && audio == "none")
        throw std::invalid_argument("--audio-file and --audio none contradict each other: leave one out");
    options.audio_file = audio_file;
}

}  // namespace ladder::cli
