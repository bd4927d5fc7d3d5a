// libFuzzer target: the ladder JSON parser, through the function that
// `ladder encode --ladder FILE` uses (engine::parse_ladder_json, which also
// validates), then fitted to a few source sizes as a job does. Bad input
// must end in InputError, nothing else.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/base/errors.hpp"
#include "engine/plan/ladder_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    ladder::engine::LadderSpec spec;
    try {
        spec = ladder::engine::parse_ladder_json(text, "fuzz.json");
    } catch (const ladder::engine::InputError&) {
        return 0;
    }
    if (spec.rungs.empty()) std::abort();  // validate_ladder refuses an empty ladder
    // Display sizes: 1080p, a tall phone clip, the smallest legal frame and
    // the largest the AV1 encoders accept.
    static constexpr int sizes[][2] = {{1920, 1080}, {1080, 1920}, {2, 2}, {16384, 8704}};
    for (const auto& s : sizes) {
        const auto fitted = ladder::engine::fit_to_source(spec, s[0], s[1]);
        if (fitted.ladder.rungs.empty()) std::abort();  // fit_to_source keeps at least one rung
        for (const auto& r : fitted.ladder.rungs)
            if (r.width <= 0 || r.height <= 0 || r.width % 2 || r.height % 2) std::abort();
    }
    return 0;
}
