// The encoder traits table (gpu/encoder_traits.*): every encoder ladder
// accepts has one record with what used to be decided from its name in six
// files; a slot looks it up once; names ladder does not drive are refused
// where they always were.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "engine/base/errors.hpp"
#include "engine/encode/backend/encoder_backend.hpp"
#include "engine/plan/ladder_spec.hpp"
#include "engine/run/preflight.hpp"
#include "gpu/cpu_info.hpp"
#include "gpu/encoder_traits.hpp"
#include "gpu/gpu_pool.hpp"

namespace ladder::gpu {
namespace {

TEST(EncoderTraits, EveryEncoderLadderAcceptsHasARecord) {
    // --encoder and --cpu-encoders (short and long names).
    for (const char* name : {"svt", "aom", "libsvtav1", "libaom-av1"}) {
        const std::string encoder = cpu_encoder_name(name);
        const EncoderTraits* t = find_encoder_traits(encoder);
        ASSERT_NE(t, nullptr) << name;
        EXPECT_EQ(t->name, encoder);
        EXPECT_FALSE(t->gpu()) << name;
    }
    for (const auto& [encoder, count] : parse_encoder_mix("svt:2,aom:1"))
        EXPECT_NE(find_encoder_traits(encoder), nullptr) << encoder;
    // The GPU encoders --policy selects.
    ASSERT_NE(gpu_encoder_traits(DeviceKind::nvidia), nullptr);
    ASSERT_NE(gpu_encoder_traits(DeviceKind::intel), nullptr);
    EXPECT_EQ(gpu_encoder_traits(DeviceKind::nvidia)->name, "ladder-nvenc") << "ladder drives NVENC by default";
    EXPECT_EQ(gpu_encoder_traits(DeviceKind::nvidia, NvencClient::ffmpeg)->name, "av1_nvenc");
    EXPECT_EQ(gpu_encoder_traits(DeviceKind::nvidia, NvencClient::ffmpeg)->family, EncoderFamily::nvenc);
    EXPECT_EQ(gpu_encoder_traits(DeviceKind::nvidia)->family, EncoderFamily::nvenc_direct);
    EXPECT_EQ(gpu_encoder_traits(DeviceKind::intel)->name, "av1_qsv");
    EXPECT_EQ(gpu_encoder_traits(DeviceKind::cpu), nullptr);
    // The complexity analysis' SVT-AV1 takes a CRF.
    EXPECT_TRUE(encoder_traits("libsvtav1").takes_crf);

    std::set<std::string_view> names, short_names;
    for (const EncoderTraits& t : all_encoder_traits()) {
        EXPECT_TRUE(names.insert(t.name).second) << t.name;
        // NVENC's two clients drive one engine: slots are "gpu0:nvenc" either way.
        if (t.family != EncoderFamily::nvenc_direct) {
            EXPECT_TRUE(short_names.insert(t.short_name).second) << t.short_name;
        }
        EXPECT_EQ(&encoder_traits(t.name), &t);
        EXPECT_FALSE(t.label().empty()) << t.name;
        EXPECT_LE(t.min_preset, t.default_preset) << t.name;
        EXPECT_LE(t.default_preset, t.max_preset) << t.name;
        EXPECT_EQ(t.in_encoder_process, !t.gpu()) << "CPU encoders run in encoder processes: " << t.name;
        EXPECT_EQ(t.threaded, !t.gpu()) << t.name;
    }
    EXPECT_EQ(names.size(), 5u);
}

// The values the name-keyed functions had before the table.
TEST(EncoderTraits, TheTableSaysWhatTheNameKeyedFunctionsSaid) {
    const EncoderTraits& svt = encoder_traits("libsvtav1");
    const EncoderTraits& aom = encoder_traits("libaom-av1");
    const EncoderTraits& nvenc = encoder_traits("av1_nvenc");
    const EncoderTraits& qsv = encoder_traits("av1_qsv");
    // encoder_keeps_sessions: all but libaom.
    EXPECT_TRUE(svt.keeps_sessions);
    EXPECT_FALSE(aom.keeps_sessions);
    EXPECT_TRUE(nvenc.keeps_sessions);
    EXPECT_TRUE(qsv.keeps_sessions);
    // encoder_controls_session_rate and forces_key_frames: the GPU encoders.
    for (const EncoderTraits* t : {&svt, &aom}) {
        EXPECT_FALSE(t->controls_session_rate) << t->name;
        EXPECT_FALSE(t->forces_key_frames) << t->name;
    }
    for (const EncoderTraits* t : {&nvenc, &qsv}) {
        EXPECT_TRUE(t->controls_session_rate) << t->name;
        EXPECT_TRUE(t->forces_key_frames) << t->name;
    }
    EXPECT_EQ(nvenc.device, DeviceKind::nvidia);
    EXPECT_EQ(qsv.device, DeviceKind::intel);
    // default_preset.
    EXPECT_EQ(svt.default_preset, 8);
    EXPECT_EQ(aom.default_preset, 6);
    EXPECT_EQ(nvenc.default_preset, 5);
    EXPECT_EQ(qsv.default_preset, 4);
    // The HDR10 OBUs: SVT-AV1 writes its own.
    EXPECT_TRUE(svt.writes_hdr_metadata);
    EXPECT_FALSE(aom.writes_hdr_metadata || nvenc.writes_hdr_metadata || qsv.writes_hdr_metadata);
    // typical_response.
    EXPECT_DOUBLE_EQ(svt.typical_response.first, 0.71);
    EXPECT_DOUBLE_EQ(svt.typical_response.rest, 0.9);
    for (const EncoderTraits* t : {&aom, &nvenc, &qsv}) {
        EXPECT_DOUBLE_EQ(t->typical_response.first, 1.0) << t->name;
        EXPECT_DOUBLE_EQ(t->typical_response.rest, 1.0) << t->name;
    }
    // encoder_limits' labels and rates.
    EXPECT_EQ(svt.label(), "SVT-AV1");
    EXPECT_EQ(aom.label(), "libaom");
    EXPECT_EQ(nvenc.label(), "NVENC");
    EXPECT_EQ(qsv.label(), "Quick Sync");
    EXPECT_EQ(svt.limits.max_kbps, 100'000);
    EXPECT_FALSE(svt.limits.takes_max_rate);
    EXPECT_EQ(aom.limits.max_kbps, 2'000'000);
    EXPECT_EQ(nvenc.limits.max_kbps, 4'294'967);
    // The short names in slot labels.
    EXPECT_EQ(make_cpu_slots("libsvtav1", 1, CpuInfo{1, 0, "test"}).front().label, "cpu0:svt");
    EXPECT_EQ(make_cpu_slots("libaom-av1", 1, CpuInfo{1, 0, "test"}).front().label, "cpu0:aom");
}

TEST(EncoderTraits, ASessionsPresetIsTheSettingsOrTheDefaultWithinTheEncodersRange) {
    engine::EncoderSettings s;
    EXPECT_EQ(engine::session_preset(encoder_traits("libsvtav1"), s), 8);
    s.preset = 20;
    EXPECT_EQ(engine::session_preset(encoder_traits("libsvtav1"), s), 13);
    EXPECT_EQ(engine::session_preset(encoder_traits("libaom-av1"), s), 8);
    EXPECT_EQ(engine::session_preset(encoder_traits("av1_nvenc"), s), 7);
    s.preset = 0;
    EXPECT_EQ(engine::session_preset(encoder_traits("av1_qsv"), s), 1);
    EXPECT_EQ(engine::session_preset(encoder_traits("libsvtav1"), s), 0);
}

TEST(EncoderTraits, ASlotLooksItsRecordUpOnceAndCarriesIt) {
    EncoderSlot slot;
    slot.label = "cpu0:svt";
    slot.set_encoder("libsvtav1");
    EXPECT_EQ(&slot.traits(), &encoder_traits("libsvtav1"));
    const EncoderSlot copy = slot;
    EXPECT_EQ(&copy.traits(), &slot.traits()) << "a copy carries the same record";
    for (const auto& s : make_cpu_slots("libaom-av1", 2, CpuInfo{2, 0, "test"}))
        EXPECT_EQ(&s.traits(), &encoder_traits("libaom-av1"));
}

TEST(EncoderTraits, NamesLadderDoesNotDriveAreRefusedWhereTheyWere) {
    EXPECT_EQ(find_encoder_traits("librav1e"), nullptr);
    EXPECT_EQ(find_encoder_traits("svt"), nullptr) << "the table is keyed on libavcodec's names";
    EXPECT_THROW(encoder_traits("libx264"), std::invalid_argument);
    // The command line's names.
    EXPECT_THROW(cpu_encoder_name("x264"), std::invalid_argument);
    EXPECT_THROW(cpu_encoder_name("nvenc"), std::invalid_argument) << "not a CPU encoder";
    EXPECT_THROW(parse_encoder_mix("svt:1,rav1e:1"), std::invalid_argument);
    // A slot made with such a name has no record: asking for it is a bug.
    EncoderSlot slot;
    slot.set_encoder("libx264");
    EXPECT_EQ(slot.traits_record, nullptr);
    EXPECT_THROW(slot.traits(), std::logic_error);
    // The pre-flight: an encoder that is not one of ladder's is refused as
    // one missing from FFmpeg (exit 2), before anything is encoded.
    engine::LadderSpec ladder;
    ladder.rungs.push_back(engine::RungSpec{"360p", 640, 360, 800, 0, 0});
    EXPECT_THROW(engine::check_encoders({"libx264"}, ladder), engine::InputError);
    EXPECT_NO_THROW(engine::check_encoders({"libsvtav1"}, ladder));
}

}  // namespace
}  // namespace ladder::gpu
