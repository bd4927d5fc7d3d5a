// RungCodecInvariant and the AV1 sequence header helpers, on REAL sequence
// headers made in the test by libsvtav1 and libaom-av1 through libavcodec.
#include "engine/rung/rung.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "av/av_error.hpp"
#include "av/handles.hpp"
#include "av1_test_encoder.hpp"
#include "mux/av1_sequence_header.hpp"

// ThreadSanitizer: libSvtAv1Enc (uninstrumented, with its own thread pool and
// synchronisation TSan cannot see) gets data races reported on its intercepted
// memset/memcpy calls between its worker threads (SVT-AV1 1.4.1, first at
// libSvtAv1Enc.so.1+0x2c5924). They are inside the encoder library, not in
// ladder; suppress them so TSan runs report only our code. Used only when the
// test binary is built with -fsanitize=thread.
extern "C" const char* __tsan_default_suppressions() { return "race:libSvtAv1Enc.so\n"; }

namespace av = ladder::av;
namespace mux = ladder::mux;
using ladder::engine::EncodedChunk;
using ladder::engine::RungCodecInvariant;
using mux::SpliceCheck;
using ladder::test::Av1Sample;
using ladder::test::encode_av1;

namespace {

struct EncodeKey {
    std::string encoder;
    int width;
    int height;
    int preset;
    auto operator<=>(const EncodeKey&) const = default;
};

// Encodes each (encoder, size) once per test program: encoder start-up is the
// slow part of this file. The reference points into the static cache, not at
// the (temporary) encoder name: GCC 14's -Wdangling-reference cannot see that.
#if defined(__has_cpp_attribute)
#if __has_cpp_attribute(gnu::no_dangling)
#define LADDER_NO_DANGLING [[gnu::no_dangling]]
#endif
#endif
#ifndef LADDER_NO_DANGLING
#define LADDER_NO_DANGLING
#endif
LADDER_NO_DANGLING const Av1Sample& sample(const std::string& encoder, int width, int height, int preset = -1) {
    ::setenv("SVT_LOG", "1", 0);  // SVT-AV1: errors only, unless the caller asked for more
    static std::mutex mu;
    static std::map<EncodeKey, Av1Sample> cache;
    std::lock_guard lock(mu);
    EncodeKey key{encoder, width, height, preset};
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, encode_av1(encoder, width, height, preset)).first;
    return it->second;
}

Dav1dSequenceHeader parsed(const std::vector<std::uint8_t>& bytes) {
    auto h = mux::parse_sequence_header(bytes);
    if (!h) throw std::runtime_error("no sequence header found in " + std::to_string(bytes.size()) + " bytes");
    return *h;
}

std::string join(const std::vector<std::string>& v) {
    std::ostringstream os;
    for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    return os.str();
}

bool has_encoder(const char* name) { return avcodec_find_encoder_by_name(name) != nullptr; }

#define REQUIRE_ENCODER(name)                                                                     \
    do {                                                                                          \
        if (!has_encoder(name)) GTEST_SKIP() << name << " is not in this FFmpeg build";           \
    } while (0)

EncodedChunk chunk_from(const std::vector<std::uint8_t>& bytes) {
    EncodedChunk c;
    av::PacketPtr p = av::make_packet();
    av::check(av_new_packet(p.get(), static_cast<int>(bytes.size())), "allocating a packet");
    if (!bytes.empty()) std::memcpy(p->data, bytes.data(), bytes.size());
    p->flags |= AV_PKT_FLAG_KEY;
    c.packets.push_back(std::move(p));
    return c;
}

}  // namespace

// ---------------------------------------------------------------- parsing

TEST(Av1SequenceHeader, SvtFirstPacketCarriesAParsableHeader) {
    REQUIRE_ENCODER("libsvtav1");
    const auto& s = sample("libsvtav1", 160, 120);
    EXPECT_TRUE(s.first_packet_is_key);
    const auto h = parsed(s.first_packet);
    EXPECT_EQ(h.max_width, 160);
    EXPECT_EQ(h.max_height, 120);
    EXPECT_EQ(mux::bit_depth(h), 8);
    EXPECT_EQ(h.profile, 0);  // main profile for 8-bit 4:2:0
    EXPECT_EQ(h.monochrome, 0);
    EXPECT_EQ(h.ss_hor, 1);
    EXPECT_EQ(h.ss_ver, 1);
    EXPECT_GE(mux::seq_level_idx(h), 0);
    EXPECT_LE(mux::seq_level_idx(h), 31);
    RecordProperty("svt_seq_level_idx", mux::seq_level_idx(h));
}

TEST(Av1SequenceHeader, AomFirstPacketCarriesAParsableHeader) {
    REQUIRE_ENCODER("libaom-av1");
    const auto& s = sample("libaom-av1", 160, 120);
    EXPECT_TRUE(s.first_packet_is_key);
    const auto h = parsed(s.first_packet);
    EXPECT_EQ(h.max_width, 160);
    EXPECT_EQ(h.max_height, 120);
    EXPECT_EQ(mux::bit_depth(h), 8);
    EXPECT_EQ(h.profile, 0);
    RecordProperty("aom_seq_level_idx", mux::seq_level_idx(h));
}

TEST(Av1SequenceHeader, ExtradataAndFirstPacketAgree) {
    struct Case {
        const char* encoder;
        int preset;
    };
    for (const Case c : {Case{"libsvtav1", 12}, Case{"libsvtav1", 8}, Case{"libaom-av1", 8}, Case{"libaom-av1", 6}}) {
        SCOPED_TRACE(std::string(c.encoder) + " preset " + std::to_string(c.preset));
        if (!has_encoder(c.encoder)) continue;
        const auto& s = sample(c.encoder, 160, 120, c.preset);
        ASSERT_FALSE(s.extradata.empty())
            << c.encoder << " gave no global header (neither extradata nor NEW_EXTRADATA side data)";
        const auto from_extradata = parsed(s.extradata);
        const auto from_packet = parsed(s.first_packet);
        const auto strict = mux::sequence_header_differences(from_extradata, from_packet, SpliceCheck::strict);
        const auto config = mux::sequence_header_differences(from_extradata, from_packet, SpliceCheck::config);
        std::cout << "[ INFO     ] " << c.encoder << " preset " << c.preset << ": extradata "
                  << (s.extradata_at_open.empty() ? "not set at open" : "set at open") << ", taken from "
                  << s.extradata_source
                  << "; extradata vs first packet, strict: " << (strict.empty() ? "(equal)" : join(strict))
                  << "; config: " << (config.empty() ? "(equal)" : join(config)) << "\n";
        // What av1C carries always agrees.
        EXPECT_TRUE(config.empty()) << join(config);
        // libaom's global header is the in-band one. SVT-AV1 (1.4.1) writes
        // its stream header at open, before the preset's coding tools are
        // settled, so some enable_* flags differ from the key frame's header:
        // reported above, not asserted (it depends on the SVT-AV1 version).
        if (std::string(c.encoder) == "libaom-av1") {
            EXPECT_TRUE(strict.empty()) << join(strict);
        }
    }
}

TEST(Av1SequenceHeader, GarbageAndEmptyGiveNothing) {
    EXPECT_FALSE(mux::parse_sequence_header({}).has_value());
    const std::vector<std::uint8_t> zeros(64, 0);
    EXPECT_FALSE(mux::parse_sequence_header(zeros).has_value());
    const std::vector<std::uint8_t> ones(64, 0xff);
    EXPECT_FALSE(mux::parse_sequence_header(ones).has_value());
    // A temporal delimiter OBU alone (type 2, has_size, size 0).
    const std::vector<std::uint8_t> td = {0x12, 0x00};
    EXPECT_FALSE(mux::parse_sequence_header(td).has_value());
    // Pseudo-random bytes.
    std::vector<std::uint8_t> noise(256);
    std::uint32_t x = 2463534242u;
    for (auto& b : noise) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b = static_cast<std::uint8_t>(x);
    }
    EXPECT_FALSE(mux::parse_sequence_header(noise).has_value());
}

TEST(Av1SequenceHeader, TruncatedHeaderGivesNothing) {
    REQUIRE_ENCODER("libsvtav1");
    const auto& s = sample("libsvtav1", 160, 120);
    ASSERT_FALSE(s.extradata.empty());
    // Every strict prefix of the sequence header OBU must fail cleanly (this
    // is also an ASan check of the parser's bounds).
    for (std::size_t n = 1; n < s.extradata.size(); ++n) {
        std::vector<std::uint8_t> prefix(s.extradata.begin(), s.extradata.begin() + static_cast<std::ptrdiff_t>(n));
        EXPECT_FALSE(mux::parse_sequence_header(prefix).has_value()) << "prefix of " << n << " bytes";
    }
}

// ---------------------------------------------------------------- comparisons

TEST(Av1SequenceHeader, SameEncoderSameSettingsAreEqualUnderStrict) {
    REQUIRE_ENCODER("libsvtav1");
    const auto a = parsed(encode_av1("libsvtav1", 160, 120).first_packet);
    const auto b = parsed(sample("libsvtav1", 160, 120).first_packet);  // a separate encoder session
    const auto diffs = mux::sequence_header_differences(a, b, SpliceCheck::strict);
    EXPECT_TRUE(diffs.empty()) << join(diffs);
    EXPECT_TRUE(mux::sequence_header_differences(a, b, SpliceCheck::config).empty());
    EXPECT_TRUE(mux::sequence_header_differences(a, a, SpliceCheck::strict).empty());
}

TEST(Av1SequenceHeader, SvtAndAomDifferUnderStrict) {
    REQUIRE_ENCODER("libsvtav1");
    REQUIRE_ENCODER("libaom-av1");
    const auto svt = parsed(sample("libsvtav1", 160, 120).first_packet);
    const auto aom = parsed(sample("libaom-av1", 160, 120).first_packet);
    const auto diffs = mux::sequence_header_differences(svt, aom, SpliceCheck::strict);
    SCOPED_TRACE("svt vs aom, strict: " + join(diffs));
    RecordProperty("svt_vs_aom_strict", join(diffs));
    std::cout << "[ INFO     ] svt vs aom 160x120, strict differences: " << join(diffs) << "\n";
    EXPECT_FALSE(diffs.empty());
    // The comparison is symmetric in which fields it names.
    EXPECT_EQ(mux::sequence_header_differences(aom, svt, SpliceCheck::strict), diffs);
}

TEST(Av1SequenceHeader, SvtAndAomUnderConfig) {
    REQUIRE_ENCODER("libsvtav1");
    REQUIRE_ENCODER("libaom-av1");
    const auto svt = parsed(sample("libsvtav1", 160, 120).first_packet);
    const auto aom = parsed(sample("libaom-av1", 160, 120).first_packet);
    const auto diffs = mux::sequence_header_differences(svt, aom, SpliceCheck::config);
    RecordProperty("svt_vs_aom_config", join(diffs));
    std::cout << "[ INFO     ] svt vs aom 160x120, config differences: "
              << (diffs.empty() ? "(none)" : join(diffs)) << "; seq_level_idx svt " << mux::seq_level_idx(svt)
              << " aom " << mux::seq_level_idx(aom) << "\n";
    // Same size, bit depth, subsampling and (unset) color description: the
    // av1C-visible fields can only differ in the level the encoders signal.
    for (const auto& d : diffs) EXPECT_EQ(d, "seq_level_idx") << "unexpected config difference";
    EXPECT_EQ(diffs.empty(), mux::seq_level_idx(svt) == mux::seq_level_idx(aom));
    // Observed with SVT-AV1 1.4.1 and libaom 3.6 at 160x120: both signal level
    // 2.0, so a config-level rung accepts either encoder.
    EXPECT_TRUE(diffs.empty()) << join(diffs);
    RungCodecInvariant inv(SpliceCheck::config);
    ASSERT_TRUE(inv.check(svt).accepted);
    const auto v = inv.check(aom);
    EXPECT_TRUE(v.accepted) << join(v.differences);
}

TEST(Av1SequenceHeader, DifferentResolutionDiffersUnderConfig) {
    REQUIRE_ENCODER("libsvtav1");
    const auto small = parsed(sample("libsvtav1", 160, 120).first_packet);
    const auto large = parsed(sample("libsvtav1", 320, 240).first_packet);
    EXPECT_EQ(large.max_width, 320);
    EXPECT_EQ(large.max_height, 240);
    const auto config = mux::sequence_header_differences(small, large, SpliceCheck::config);
    std::cout << "[ INFO     ] svt 160x120 vs 320x240, config differences: " << join(config) << "\n";
    EXPECT_NE(std::find(config.begin(), config.end(), "max_frame_width"), config.end()) << join(config);
    EXPECT_NE(std::find(config.begin(), config.end(), "max_frame_height"), config.end()) << join(config);
    // Strict names at least what config names.
    const auto strict = mux::sequence_header_differences(small, large, SpliceCheck::strict);
    for (const auto& d : config) EXPECT_NE(std::find(strict.begin(), strict.end(), d), strict.end()) << d;
}

// ---------------------------------------------------------------- RungCodecInvariant

TEST(RungCodecInvariant, FirstHeaderSetsTheContract) {
    REQUIRE_ENCODER("libsvtav1");
    RungCodecInvariant inv(SpliceCheck::strict);
    EXPECT_FALSE(inv.contract().has_value());
    const auto h = parsed(sample("libsvtav1", 160, 120).first_packet);
    const auto v = inv.check(h);
    EXPECT_TRUE(v.accepted);
    EXPECT_TRUE(v.differences.empty());
    ASSERT_TRUE(inv.contract().has_value());
    EXPECT_EQ(inv.contract()->max_width, 160);
}

TEST(RungCodecInvariant, AcceptsTheSameEncoderAgain) {
    REQUIRE_ENCODER("libsvtav1");
    RungCodecInvariant inv(SpliceCheck::strict);
    ASSERT_TRUE(inv.check(parsed(sample("libsvtav1", 160, 120).first_packet)).accepted);
    const auto second = inv.check(parsed(encode_av1("libsvtav1", 160, 120).first_packet));
    EXPECT_TRUE(second.accepted) << join(second.differences);
}

TEST(RungCodecInvariant, StrictRefusesAomAfterAnSvtContract) {
    REQUIRE_ENCODER("libsvtav1");
    REQUIRE_ENCODER("libaom-av1");
    RungCodecInvariant inv(SpliceCheck::strict);
    const auto svt = parsed(sample("libsvtav1", 160, 120).first_packet);
    ASSERT_TRUE(inv.check(svt).accepted);
    const auto v = inv.check(parsed(sample("libaom-av1", 160, 120).first_packet));
    SCOPED_TRACE("refused for: " + join(v.differences));
    EXPECT_FALSE(v.accepted);
    EXPECT_FALSE(v.differences.empty());
    // A refused header does not replace the contract: svt is still accepted.
    EXPECT_TRUE(inv.check(svt).accepted);
    EXPECT_EQ(inv.contract()->max_width, svt.max_width);
}

TEST(RungCodecInvariant, ConfigRefusesAnotherResolution) {
    REQUIRE_ENCODER("libsvtav1");
    RungCodecInvariant inv(SpliceCheck::config);
    ASSERT_TRUE(inv.check(parsed(sample("libsvtav1", 160, 120).first_packet)).accepted);
    const auto v = inv.check(parsed(sample("libsvtav1", 320, 240).first_packet));
    EXPECT_FALSE(v.accepted);
    EXPECT_NE(std::find(v.differences.begin(), v.differences.end(), "max_frame_width"), v.differences.end());
}

TEST(RungCodecInvariant, ChecksEncodedChunks) {
    REQUIRE_ENCODER("libsvtav1");
    RungCodecInvariant inv(SpliceCheck::strict);
    // No packets, or no header: refused, and no contract is set.
    EXPECT_FALSE(inv.check(EncodedChunk{}).accepted);
    EXPECT_FALSE(inv.check(chunk_from({0x12, 0x00})).accepted);
    EXPECT_FALSE(inv.contract().has_value());

    const auto& s = sample("libsvtav1", 160, 120);
    const auto first = inv.check(chunk_from(s.first_packet));
    EXPECT_TRUE(first.accepted) << join(first.differences);
    ASSERT_TRUE(inv.contract().has_value());
    const auto again = inv.check(chunk_from(s.first_packet));
    EXPECT_TRUE(again.accepted) << join(again.differences);
    if (has_encoder("libaom-av1")) {
        const auto aom = inv.check(chunk_from(sample("libaom-av1", 160, 120).first_packet));
        EXPECT_FALSE(aom.accepted);
    }
}

TEST(RungCodecInvariant, ConcurrentChecksAgreeOnOneContract) {
    REQUIRE_ENCODER("libsvtav1");
    REQUIRE_ENCODER("libaom-av1");
    const auto svt = parsed(sample("libsvtav1", 160, 120).first_packet);
    const auto aom = parsed(sample("libaom-av1", 160, 120).first_packet);
    RungCodecInvariant inv(SpliceCheck::strict);
    std::atomic<int> svt_ok{0}, aom_ok{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                if ((t + i) % 2 == 0) {
                    if (inv.check(svt).accepted) ++svt_ok;
                } else {
                    if (inv.check(aom).accepted) ++aom_ok;
                }
            }
        });
    }
    for (auto& th : threads) th.join();
    // Whichever came first became the contract; the other was always refused.
    EXPECT_TRUE((svt_ok.load() == 400 && aom_ok.load() == 0) || (svt_ok.load() == 0 && aom_ok.load() == 400))
        << "svt accepted " << svt_ok.load() << ", aom accepted " << aom_ok.load();
}
