#include "engine/plan/ladder_spec.hpp"

#include "engine/base/even_size.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string_view>
#include <system_error>

#include "av/regular_file.hpp"
#include "engine/base/errors.hpp"

namespace ladder::engine {

LadderSpec default_ladder() {
    return LadderSpec{{
        {"1080p", 0, 1080, 4500, 0, 0},
        {"720p", 0, 720, 2500, 0, 0},
        {"540p", 0, 540, 1200, 0, 0},
        {"360p", 0, 360, 600, 0, 0},
    }};
}

namespace {

int get_int(const nlohmann::json& j, const char* key, int fallback, const std::string& where) {
    if (!j.contains(key)) return fallback;
    const auto& v = j.at(key);
    if (!v.is_number_integer())
        throw InputError(fmt::format("{}: \"{}\" must be an integer", where, key));
    // Read wide first: get<int>() would silently wrap 4294968016 to 720.
    const auto wide = v.is_number_unsigned() ? static_cast<long long>(std::min<unsigned long long>(
                                                   v.get<unsigned long long>(), 1ull << 40))
                                             : v.get<long long>();
    if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max())
        throw InputError(fmt::format("{}: \"{}\" = {} is out of range", where, key, v.dump()));
    return static_cast<int>(wide);
}

}  // namespace

LadderSpec parse_ladder_json(const std::string& text, const std::string& origin) {
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw InputError(fmt::format("ladder file {} is not valid JSON (byte {}): fix the file or pass --rung instead",
                                     origin, e.byte));
    } catch (const nlohmann::json::out_of_range&) {
        // The parser's other exception: a number beyond a double's range
        // (1E400). Found by tests/fuzz/fuzz_ladder_json.
        throw InputError(fmt::format("ladder file {} has a number too large for JSON (beyond 1.8E308): fix the file "
                                     "or pass --rung instead",
                                     origin));
    }
    if (!doc.is_object() || !doc.contains("rungs") || !doc["rungs"].is_array())
        throw InputError(fmt::format("ladder file {} has no \"rungs\" array: expected {{\"rungs\": [{{\"name\": "
                                     "\"720p\", \"height\": 720, \"bitrate_kbps\": 2500}}]}}",
                                     origin));
    LadderSpec spec;
    int i = 0;
    for (const auto& r : doc["rungs"]) {
        std::string where = fmt::format("ladder file {}, rung {}", origin, i++);
        if (!r.is_object()) throw InputError(where + ": must be an object");
        if (!r.contains("name") || !r["name"].is_string()) throw InputError(where + ": needs a string \"name\"");
        RungSpec rung;
        rung.name = r["name"].get<std::string>();
        rung.width = get_int(r, "width", 0, where);
        rung.height = get_int(r, "height", 0, where);
        rung.bitrate_kbps = get_int(r, "bitrate_kbps", 0, where);
        rung.maxrate_kbps = get_int(r, "maxrate_kbps", 0, where);
        rung.bufsize_kbps = get_int(r, "bufsize_kbps", 0, where);
        rung.crf = get_int(r, "crf", -1, where);
        spec.rungs.push_back(std::move(rung));
    }
    try {
        validate_ladder(spec);
    } catch (const InputError& e) {
        throw InputError(fmt::format("ladder file {}: {}", origin, e.what()));
    }
    return spec;
}

std::string ladder_fingerprint(const LadderSpec& ladder) {
    std::string f;
    for (const auto& r : ladder.rungs) {
        f += fmt::format("|{}={}x{}@{}/{}/{}", r.name, r.width, r.height, r.bitrate_kbps, r.maxrate_kbps, r.bufsize_kbps);
        if (r.crf >= 0) f += fmt::format("/crf{}", r.crf);
    }
    return f;
}

LadderSpec load_ladder_file(const std::filesystem::path& path) {
    std::string text;
    try {
        text = av::read_regular_file(path.string(), "ladder file");
    } catch (const av::NotARegularFile& e) {
        throw InputError(e.what());
    } catch (const std::system_error&) {
        throw InputError(fmt::format("cannot read ladder file {}: check the path", path.string()));
    }
    return parse_ladder_json(text, path.string());
}

RungSpec parse_rung_argument(const std::string& arg) {
    // At most 6 digits per number: validate_ladder() gives the real limits,
    // and std::stoi never sees a value it cannot hold.
    static const std::regex re(R"(^([^=]+)=(\d{0,6})x(\d{1,6})@(\d{1,6})k?$)");
    std::smatch m;
    if (!std::regex_match(arg, m, re))
        throw InputError(fmt::format("--rung {:?} is not NAME=WxH@KBPS (for example 720p=1280x720@2500)", arg));
    RungSpec r;
    r.name = m[1];
    r.width = m[2].length() ? std::stoi(m[2]) : 0;
    r.height = std::stoi(m[3]);
    r.bitrate_kbps = std::stoi(m[4]);
    return r;
}

void validate_ladder(const LadderSpec& spec) {
    if (spec.rungs.empty()) throw InputError("the ladder has no rungs");
    static const std::regex safe_name(R"(^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$)");
    std::set<std::string> names;
    for (const auto& r : spec.rungs) {
        if (!std::regex_match(r.name, safe_name))
            throw InputError(fmt::format(
                "rung name {:?} is not allowed: rung names become file names under the output directory, so "
                "use 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit",
                r.name));
        if (!names.insert(r.name).second) throw InputError(fmt::format("rung name {:?} is used twice", r.name));
        if (r.height < 16 || r.height > 8192 || (r.height % 2) != 0)
            throw InputError(fmt::format("rung '{}': height {} must be even and within 16..8192", r.name, r.height));
        if (r.width != 0 && (r.width < 16 || r.width > 8192 || (r.width % 2) != 0))
            throw InputError(fmt::format("rung '{}': width {} must be even and within 16..8192", r.name, r.width));
        if (r.bitrate_kbps <= 0 || r.bitrate_kbps > 200000)
            throw InputError(fmt::format("rung '{}': bitrate_kbps {} must be within 1..200000", r.name, r.bitrate_kbps));
        if (r.maxrate_kbps < 0 || (r.maxrate_kbps && r.maxrate_kbps < r.bitrate_kbps))
            throw InputError(fmt::format("rung '{}': maxrate_kbps must be at least bitrate_kbps", r.name));
        if (r.bufsize_kbps < 0) throw InputError(fmt::format("rung '{}': bufsize_kbps must be positive", r.name));
        if (r.crf < -1 || r.crf > 63)
            throw InputError(fmt::format("rung '{}': crf {} must be within 0..63 (SVT-AV1's range)", r.name, r.crf));
    }
}

namespace {

struct PictureSize {
    int width = 0;
    int height = 0;
};

const char* orientation(int width, int height) {
    return width > height ? "landscape" : width < height ? "portrait" : "square";
}

// A rung's named size: the number in its name, its short side.
int named_size(const RungSpec& r) { return r.width != 0 ? std::min(r.width, r.height) : r.height; }

// A rung without a width names a tier: its picture fills as much of the
// tier's 16:9 box (1080p: 1920x1080, turned for a portrait source) as the
// source's display aspect ratio allows. A source no wider than 16:9 keeps
// the short side ("1080p" is 1440x1080 at 4:3, 1080x1080 square, 1080x1920
// portrait); a wider one keeps the box's long side, as players and other
// transcoders do (2.40:1 at 1080p is 1920x800, not 2592x1080, which no
// 1920x800 source could give). Sides rounded to even. This is the size
// asked for, before any limit of the source.
PictureSize derived_size(int tier, int display_w, int display_h) {
    const bool portrait = display_h > display_w;
    const double shape = portrait ? static_cast<double>(display_h) / display_w : static_cast<double>(display_w) / display_h;
    constexpr double kBoxShape = 16.0 / 9.0;
    int short_side = tier;
    int long_side = even_round(tier * shape);
    if (shape > kBoxShape) {
        long_side = even_round(tier * kBoxShape);
        short_side = even_round(tier * kBoxShape / shape);
    }
    return portrait ? PictureSize{short_side, long_side} : PictureSize{long_side, short_side};
}

// Never longer than the source's own (even) long side: rounding must not turn
// the source-sized rung into an "upscale". The short side is left alone, so
// that a rung larger than the source still reads as one.
PictureSize within_long_side(PictureSize s, int display_w, int display_h) {
    if (display_h > display_w) s.height = std::min(s.height, display_h & ~1);
    else s.width = std::min(s.width, display_w & ~1);
    return s;
}

// A tier the source falls short of by a few lines (a crop: 1916x1076,
// 1440x1076) still gets its rung, at the source's own (even) size: dropping
// 1080p for four missing lines would leave such a source a 720p top rung.
// Within 2% on each side, so a source that is really smaller than the tier
// (1856x1044) still loses it; never larger than the source either way.
constexpr double kNearTier = 1.02;

bool near_tier(PictureSize wanted, int display_w, int display_h) {
    return wanted.width <= display_w * kNearTier && wanted.height <= display_h * kNearTier;
}

// An explicit WxH is encoded as written; turned against the source, the
// picture is stretched, which is worth saying.
void note_turned_box(const RungSpec& r, int display_w, int display_h, std::vector<std::string>& notes) {
    const char* rung_shape = orientation(r.width, r.height);
    const char* source_shape = orientation(display_w, display_h);
    if (std::string_view(rung_shape) == source_shape) return;
    notes.push_back(fmt::format("rung {} ({}x{}) is {} but the source is {} ({}x{}): its picture is stretched to that "
                                "size; give only the short side (x{}) to follow the source's shape",
                                r.name, r.width, r.height, rung_shape, source_shape, display_w, display_h,
                                named_size(r)));
}

// Every rung dropped: one rung at the source's own (even) size, named by its
// short side, with the bitrate of the smallest requested rung.
RungSpec source_sized_rung(const LadderSpec& spec, int display_w, int display_h) {
    const auto smallest = std::min_element(spec.rungs.begin(), spec.rungs.end(), [](const RungSpec& a, const RungSpec& b) {
        return named_size(a) < named_size(b);
    });
    RungSpec r = *smallest;
    r.width = display_w & ~1;
    r.height = display_h & ~1;
    r.name = fmt::format("{}p", std::min(r.width, r.height));
    return r;
}

}  // namespace

FittedLadder fit_to_source(const LadderSpec& spec, int display_w, int display_h) {
    FittedLadder out;
    for (RungSpec r : spec.rungs) {
        const bool explicit_size = r.width != 0;
        const PictureSize wanted =
            explicit_size ? PictureSize{r.width, r.height} : derived_size(r.height, display_w, display_h);
        PictureSize fitted = explicit_size ? wanted : within_long_side(wanted, display_w, display_h);
        const bool larger = fitted.width > display_w || fitted.height > display_h;
        if (larger && !explicit_size && near_tier(fitted, display_w, display_h)) {
            fitted = PictureSize{display_w & ~1, display_h & ~1};
            out.notes.push_back(fmt::format("rung {} ({}x{}) made at the source's own {}x{}: within 2% of the "
                                            "tier's size, and ladder never upscales",
                                            r.name, wanted.width, wanted.height, fitted.width, fitted.height));
        } else if (larger) {
            out.notes.push_back(fmt::format("rung {} ({}x{}) dropped: the source is only {}x{} and ladder never upscales",
                                            r.name, wanted.width, wanted.height, display_w, display_h));
            continue;
        }
        if (explicit_size) note_turned_box(r, display_w, display_h, out.notes);
        r.width = fitted.width;
        r.height = fitted.height;
        out.ladder.rungs.push_back(r);
    }
    if (out.ladder.rungs.empty()) {
        RungSpec r = source_sized_rung(spec, display_w, display_h);
        out.notes.push_back(fmt::format("every rung is larger than the source: making one rung {} at {}x{}", r.name,
                                        r.width, r.height));
        out.ladder.rungs.push_back(r);
    }
    return out;
}

std::string budget_journal_key(const std::string& rung_name, int crf) {
    return fmt::format("{}@crf{}", rung_name, crf);
}

}  // namespace ladder::engine
