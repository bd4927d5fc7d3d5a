#include "cli/report_view.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "av/regular_file.hpp"

namespace ladder::cli {
namespace {

using nlohmann::json;

// Every message starts with this, so one line says what the file is not.
[[noreturn]] void invalid(const std::string& what) { throw ReportError("not a ladder report: " + what); }

// `where` prefixes entry errors ("chunks[3]: "); empty at the top level.
const json& array_member(const json& obj, const char* key, const std::string& where) {
    const auto it = obj.find(key);
    if (it == obj.end() || !it->is_array()) invalid(fmt::format("{}no '{}' array", where, key));
    return *it;
}

const json& object_entry(const json& entry, const std::string& where) {
    if (!entry.is_object()) invalid(fmt::format("{}is not an object", where));
    return entry;
}

double number(const json& obj, const char* key, const std::string& where) {
    const auto it = obj.find(key);
    if (it == obj.end() || !it->is_number()) invalid(fmt::format("{}'{}' is missing or not a number", where, key));
    const double v = it->get<double>();
    if (v < 0) invalid(fmt::format("{}'{}' is negative", where, key));
    return v;
}

// Absent and null mean "not known" (a partial report); any other type is wrong.
std::optional<double> optional_number(const json& obj, const char* key, const std::string& where) {
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::nullopt;
    return number(obj, key, where);
}

std::int64_t count(const json& obj, const char* key, const std::string& where) {
    const auto it = obj.find(key);
    if (it == obj.end() || !it->is_number_integer())
        invalid(fmt::format("{}'{}' is missing or not an integer", where, key));
    if (it->is_number_unsigned()) {
        const auto u = it->get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            invalid(fmt::format("{}'{}' is too large", where, key));
        return static_cast<std::int64_t>(u);
    }
    const auto v = it->get<std::int64_t>();
    if (v < 0) invalid(fmt::format("{}'{}' is negative", where, key));
    return v;
}

std::optional<std::int64_t> optional_count(const json& obj, const char* key, const std::string& where) {
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::nullopt;
    return count(obj, key, where);
}

std::string text(const json& obj, const char* key, const std::string& where) {
    const auto it = obj.find(key);
    if (it == obj.end() || !it->is_string()) invalid(fmt::format("{}'{}' is missing or not a string", where, key));
    return it->get<std::string>();
}

std::string optional_text(const json& obj, const char* key, const std::string& where) {
    const auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return {};
    return text(obj, key, where);
}

bool flag(const json& obj, const char* key, bool fallback, const std::string& where) {
    const auto it = obj.find(key);
    if (it == obj.end()) return fallback;
    if (!it->is_boolean()) invalid(fmt::format("{}'{}' is not true or false", where, key));
    return it->get<bool>();
}

// A rung's CRFs: budget's search ("crf_search": its chunks' CRFs and
// verdict), else the ladder's "crf" (-1 or absent: a rate).
void read_constant_quality(const json& r, const std::string& where, ViewRung& rung) {
    if (const auto search = r.find("crf_search"); search != r.end() && !search->is_null()) {
        const std::string at = where + "crf_search: ";
        const json& s = object_entry(*search, at);
        const json& crfs = array_member(s, "chunk_crf", at);
        for (std::size_t i = 0; i < crfs.size(); ++i) {
            if (!crfs[i].is_number_integer()) invalid(fmt::format("{}chunk_crf[{}] is not an integer", at, i));
            rung.chunk_crf.push_back(crfs[i].get<std::int64_t>());
        }
        rung.crf_verdict = optional_text(s, "verdict", at);
        return;
    }
    if (const auto crf = r.find("crf"); crf != r.end() && crf->is_number_integer() && crf->get<std::int64_t>() >= 0)
        rung.chunk_crf.push_back(crf->get<std::int64_t>());
}

ViewRung rung_from(const json& entry, const std::string& where) {
    const json& r = object_entry(entry, where);
    ViewRung rung;
    rung.name = text(r, "name", where);
    rung.width = optional_count(r, "width", where);
    rung.height = optional_count(r, "height", where);
    rung.bitrate_kbps = optional_count(r, "bitrate_kbps", where);
    rung.average_kbps = optional_number(r, "average_kbps", where);
    rung.chunks = count(r, "chunks", where);
    rung.frames = count(r, "frames", where);
    rung.encode_fps = number(r, "encode_fps", where);
    const json& slots = array_member(r, "slots", where);
    for (std::size_t i = 0; i < slots.size(); ++i) {
        if (!slots[i].is_string()) invalid(fmt::format("{}slots[{}] is not a string", where, i));
        rung.slots.push_back(slots[i].get<std::string>());
    }
    read_constant_quality(r, where, rung);
    return rung;
}

ViewSlot slot_from(const json& entry, const std::string& where) {
    const json& s = object_entry(entry, where);
    ViewSlot slot;
    slot.label = text(s, "label", where);
    slot.encoder = optional_text(s, "encoder", where);
    slot.chunks = count(s, "chunks", where);
    slot.busy_share = number(s, "busy_share", where);
    slot.failures = count(s, "failures", where);
    slot.quarantined = flag(s, "quarantined", false, where);
    return slot;
}

ViewChunk chunk_from(const json& entry, const std::string& where, std::size_t rungs,
                     const std::map<std::string, std::size_t>& slot_index) {
    const json& c = object_entry(entry, where);
    ViewChunk chunk;
    const std::int64_t rung = count(c, "rung", where);
    if (static_cast<std::uint64_t>(rung) >= rungs)
        invalid(fmt::format("{}'rung' {} is not a rung of the report (it has {})", where, rung, rungs));
    chunk.rung = static_cast<std::size_t>(rung);
    chunk.index = count(c, "index", where);
    const std::string slot = text(c, "slot", where);
    const auto found = slot_index.find(slot);
    if (found == slot_index.end()) invalid(fmt::format("{}slot '{}' is not in 'slots'", where, slot));
    chunk.slot = found->second;
    chunk.frames = count(c, "frames", where);
    chunk.bytes = static_cast<std::uint64_t>(count(c, "bytes", where));
    chunk.start_seconds = number(c, "start_seconds", where);
    chunk.end_seconds = number(c, "end_seconds", where);
    if (chunk.end_seconds < chunk.start_seconds)
        invalid(fmt::format("{}'end_seconds' is before 'start_seconds'", where));
    return chunk;
}

ViewRetry retry_from(const json& entry, const std::string& where) {
    const json& t = object_entry(entry, where);
    return ViewRetry{text(t, "rung", where), count(t, "chunk", where), text(t, "slot", where),
                     optional_text(t, "error", where), optional_text(t, "cause", where)};
}

}  // namespace

ReportView report_view_from_json(const json& report) {
    if (!report.is_object()) invalid("the top level is not a JSON object");
    ReportView view;
    // The arrays first: a JSON file that is something else entirely fails on
    // the key that says most ("no 'chunks' array").
    // A named empty prefix, not a "" temporary: GCC 14's -Wdangling-reference
    // flags any reference returned from a call that took a temporary.
    const std::string top_level;
    const json& chunks = array_member(report, "chunks", top_level);
    const json& rungs = array_member(report, "rungs", top_level);
    const json& slots = array_member(report, "slots", top_level);
    view.input = text(report, "input", "");
    view.wall_seconds = number(report, "wall_seconds", "");
    view.ok = flag(report, "ok", true, "");
    view.partial = flag(report, "partial", false, "");
    view.error = optional_text(report, "error", "");
    view.decode_seconds = optional_number(report, "decode_seconds", "");
    view.decode_device = optional_text(report, "decode_device", "");
    view.rate_control = optional_text(report, "rate_control", "");
    view.source_passes = optional_count(report, "source_passes", "");

    for (std::size_t i = 0; i < rungs.size(); ++i)
        view.rungs.push_back(rung_from(rungs[i], fmt::format("rungs[{}]: ", i)));
    std::map<std::string, std::size_t> slot_index;
    for (std::size_t i = 0; i < slots.size(); ++i) {
        const std::string where = fmt::format("slots[{}]: ", i);
        view.slots.push_back(slot_from(slots[i], where));
        if (!slot_index.emplace(view.slots.back().label, i).second)
            invalid(fmt::format("{}slot '{}' is listed twice", where, view.slots.back().label));
    }
    for (std::size_t i = 0; i < chunks.size(); ++i)
        view.chunks.push_back(chunk_from(chunks[i], fmt::format("chunks[{}]: ", i), view.rungs.size(), slot_index));
    // Older reports may lack the list of failed attempts; it is only counted.
    if (report.contains("retries")) {
        const json& retries = array_member(report, "retries", top_level);
        for (std::size_t i = 0; i < retries.size(); ++i)
            view.retries.push_back(retry_from(retries[i], fmt::format("retries[{}]: ", i)));
    }
    return view;
}

ReportView parse_report(std::string_view text) {
    json report;
    try {
        report = json::parse(text);
    } catch (const json::parse_error& e) {
        // what() is "[json.exception.parse_error.101] parse error at ..."; the
        // bracketed id means nothing to a user.
        std::string_view message = e.what();
        if (const auto close = message.find("] "); close != std::string_view::npos) message.remove_prefix(close + 2);
        throw ReportError(fmt::format("not JSON: {}", message));
    }
    return report_view_from_json(report);
}

namespace {

// A FIFO or a device is refused, not opened (av/regular_file.hpp).
std::string read_report_file(const std::filesystem::path& path) {
    std::optional<av::RegularFile> file;
    try {
        file.emplace(path.string(), "report");
    } catch (const av::NotARegularFile& e) {
        throw ReportError(fmt::format("is {}: ladder reads regular files only; write the report to a file first",
                                      e.kind()));
    } catch (const std::system_error& e) {
        throw ReportError(fmt::format("cannot open: {}", e.code().message()));
    }
    try {
        return file->read_all();
    } catch (const std::system_error& e) {
        throw ReportError(fmt::format("cannot read: {}", e.code().message()));
    }
}

}  // namespace

ReportView read_report(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw ReportError("is a directory, not a report file");
    return parse_report(read_report_file(path));
}

}  // namespace ladder::cli
