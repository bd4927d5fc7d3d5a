#pragma once
// Room engine/plan/: what a run is asked to make: the ladder of rungs, fitted to
// the source, and the plan (plan.json) the shards of a run agree on.
// May include: base, media.
// (scripts/check-rooms.py; docs/architecture.md "Rooms inside engine/")
//
// The ladder: which renditions ("rungs") to make. Loaded from JSON presets or
// --rung arguments, or the default ladder; fitted to the source so that no
// rung upscales. A rung's named size (the 720 of "720p", of --rung x720, of
// "height": 720 in a preset) is its SHORT side: 1280x720 on a landscape
// source, 720x1280 on a portrait one, 720x720 on a square one; the other side
// follows the display aspect ratio.
#include <filesystem>
#include <string>
#include <vector>

extern "C" {
#include <libavutil/rational.h>
}

namespace ladder::engine {

struct RungSpec {
    std::string name;
    // Before fit_to_source, width 0 means "derived from the source": height is
    // then the short side's length, whichever way the source is turned. An
    // explicit width makes width x height the exact size. After fitting, both
    // are the picture's own width and height.
    int width = 0;
    int height = 0;
    int bitrate_kbps = 0;
    int maxrate_kbps = 0;  // 0: 1.5 x bitrate
    int bufsize_kbps = 0;  // 0: 2 x bitrate
    // >= 0: every chunk at this constant quality (an encoder that takes a
    // CRF: SVT-AV1) instead of a rate; bitrate_kbps stays the target the
    // rung's rate is judged against (JobReport's rate_standing). -1: a rate.
    int crf = -1;
};

struct LadderSpec {
    std::vector<RungSpec> rungs;
};

// The ladder's part of a run's or a plan's fingerprint (a journal is
// resumed only under the same one): "|name=WxH@kbps/max/buf" per rung, and
// "/crfN" only for a rung with a CRF, so journals of rate rungs keep theirs.
std::string ladder_fingerprint(const LadderSpec& ladder);

// 1080p 4500k, 720p 2500k, 540p 1200k, 360p 600k.
LadderSpec default_ladder();

// Preset JSON: {"rungs": [{"name": "720p", "height": 720, "bitrate_kbps": 2500,
// "width": 1280?, "maxrate_kbps": ?, "bufsize_kbps": ?, "crf": ?}, ...]}.
// origin names the file in error messages. Throws InputError.
LadderSpec parse_ladder_json(const std::string& text, const std::string& origin);
LadderSpec load_ladder_file(const std::filesystem::path& path);

// "NAME=WxH@KBPS" (W may be 0 or omitted as "xH" to derive it; H is then the
// short side). Throws InputError.
RungSpec parse_rung_argument(const std::string& arg);

// Checks names (unique, safe as file names) and numbers. Throws InputError.
void validate_ladder(const LadderSpec& spec);

struct FittedLadder {
    LadderSpec ladder;
    std::vector<std::string> notes;  // what was dropped or derived, for the user
};

// Fits the ladder to a source of display size display_w x display_h: a rung
// without a width gets its named size on the source's short side and the long
// side from the aspect ratio (even, never beyond the source's); rungs that
// would upscale are dropped, but a tier within 2% of the source's size is
// made at the source's own size; an explicit WxH is kept as written or dropped
// (with a note when it is turned against the source); if none is left, keeps
// one rung at the source's own size, named by its short side.
FittedLadder fit_to_source(const LadderSpec& spec, int display_w, int display_h);

// Where a rung's chunk encoded at a constant quality (--rate-control
// budget) is journaled: "<name>@crf<N>" (no rung name has an '@', so it
// never meets a rung's own key).
std::string budget_journal_key(const std::string& rung_name, int crf);

}  // namespace ladder::engine
