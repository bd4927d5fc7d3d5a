#include "mux/av1_sequence_header.hpp"

namespace ladder::mux {

std::optional<Dav1dSequenceHeader> parse_sequence_header(std::span<const uint8_t> obus) {
    if (obus.empty()) return std::nullopt;
    Dav1dSequenceHeader hdr{};
    if (dav1d_parse_sequence_header(&hdr, obus.data(), obus.size()) != 0) return std::nullopt;
    return hdr;
}

int bit_depth(const Dav1dSequenceHeader& h) { return 8 + 2 * h.hbd; }

int seq_level_idx(const Dav1dSequenceHeader& h) {
    const auto& op = h.operating_points[0];
    return ((op.major_level - 2) << 2) | op.minor_level;
}

namespace {

struct Diff {
    std::vector<std::string> names;
    template <typename T>
    void field(const char* name, const T& a, const T& b) {
        if (!(a == b)) names.emplace_back(name);
    }
};

void compare_config(Diff& d, const Dav1dSequenceHeader& a, const Dav1dSequenceHeader& b) {
    d.field("profile", a.profile, b.profile);
    d.field("seq_level_idx", seq_level_idx(a), seq_level_idx(b));
    d.field("tier", a.operating_points[0].tier, b.operating_points[0].tier);
    d.field("bit_depth", a.hbd, b.hbd);
    d.field("monochrome", a.monochrome, b.monochrome);
    d.field("subsampling_x", a.ss_hor, b.ss_hor);
    d.field("subsampling_y", a.ss_ver, b.ss_ver);
    d.field("chroma_sample_position", a.chr, b.chr);
    d.field("color_description_present", a.color_description_present, b.color_description_present);
    d.field("color_primaries", a.pri, b.pri);
    d.field("transfer_characteristics", a.trc, b.trc);
    d.field("matrix_coefficients", a.mtrx, b.mtrx);
    d.field("color_range", a.color_range, b.color_range);
    d.field("max_frame_width", a.max_width, b.max_width);
    d.field("max_frame_height", a.max_height, b.max_height);
}

void compare_operating_points(Diff& d, const Dav1dSequenceHeader& a, const Dav1dSequenceHeader& b) {
    d.field("operating_points_cnt", a.num_operating_points, b.num_operating_points);
    if (a.num_operating_points != b.num_operating_points) return;
    for (int i = 0; i < a.num_operating_points; ++i) {
        const auto& x = a.operating_points[i];
        const auto& y = b.operating_points[i];
        bool same = x.major_level == y.major_level && x.minor_level == y.minor_level &&
                    x.initial_display_delay == y.initial_display_delay && x.idc == y.idc &&
                    x.tier == y.tier && x.decoder_model_param_present == y.decoder_model_param_present &&
                    x.display_model_param_present == y.display_model_param_present;
        if (!same) d.names.push_back("operating_point[" + std::to_string(i) + "]");
    }
}

void compare_strict(Diff& d, const Dav1dSequenceHeader& a, const Dav1dSequenceHeader& b) {
    compare_operating_points(d, a, b);
    d.field("still_picture", a.still_picture, b.still_picture);
    d.field("reduced_still_picture_header", a.reduced_still_picture_header, b.reduced_still_picture_header);
    d.field("timing_info_present", a.timing_info_present, b.timing_info_present);
    d.field("num_units_in_display_tick", a.num_units_in_tick, b.num_units_in_tick);
    d.field("time_scale", a.time_scale, b.time_scale);
    d.field("equal_picture_interval", a.equal_picture_interval, b.equal_picture_interval);
    d.field("num_ticks_per_picture", a.num_ticks_per_picture, b.num_ticks_per_picture);
    d.field("decoder_model_info_present", a.decoder_model_info_present, b.decoder_model_info_present);
    d.field("buffer_delay_length", a.encoder_decoder_buffer_delay_length, b.encoder_decoder_buffer_delay_length);
    d.field("num_units_in_decoding_tick", a.num_units_in_decoding_tick, b.num_units_in_decoding_tick);
    d.field("buffer_removal_time_length", a.buffer_removal_delay_length, b.buffer_removal_delay_length);
    d.field("frame_presentation_time_length", a.frame_presentation_delay_length, b.frame_presentation_delay_length);
    d.field("initial_display_delay_present", a.display_model_info_present, b.display_model_info_present);
    d.field("frame_width_bits", a.width_n_bits, b.width_n_bits);
    d.field("frame_height_bits", a.height_n_bits, b.height_n_bits);
    d.field("frame_id_numbers_present", a.frame_id_numbers_present, b.frame_id_numbers_present);
    d.field("delta_frame_id_length", a.delta_frame_id_n_bits, b.delta_frame_id_n_bits);
    d.field("frame_id_length", a.frame_id_n_bits, b.frame_id_n_bits);
    d.field("use_128x128_superblock", a.sb128, b.sb128);
    d.field("enable_filter_intra", a.filter_intra, b.filter_intra);
    d.field("enable_intra_edge_filter", a.intra_edge_filter, b.intra_edge_filter);
    d.field("enable_interintra_compound", a.inter_intra, b.inter_intra);
    d.field("enable_masked_compound", a.masked_compound, b.masked_compound);
    d.field("enable_warped_motion", a.warped_motion, b.warped_motion);
    d.field("enable_dual_filter", a.dual_filter, b.dual_filter);
    d.field("enable_order_hint", a.order_hint, b.order_hint);
    d.field("enable_jnt_comp", a.jnt_comp, b.jnt_comp);
    d.field("enable_ref_frame_mvs", a.ref_frame_mvs, b.ref_frame_mvs);
    d.field("seq_force_screen_content_tools", a.screen_content_tools, b.screen_content_tools);
    d.field("seq_force_integer_mv", a.force_integer_mv, b.force_integer_mv);
    d.field("order_hint_bits", a.order_hint_n_bits, b.order_hint_n_bits);
    d.field("enable_superres", a.super_res, b.super_res);
    d.field("enable_cdef", a.cdef, b.cdef);
    d.field("enable_restoration", a.restoration, b.restoration);
    d.field("separate_uv_delta_q", a.separate_uv_delta_q, b.separate_uv_delta_q);
    d.field("film_grain_params_present", a.film_grain_present, b.film_grain_present);
}

}  // namespace

std::vector<std::string> sequence_header_differences(const Dav1dSequenceHeader& a,
                                                     const Dav1dSequenceHeader& b, SpliceCheck level) {
    Diff d;
    compare_config(d, a, b);
    if (level == SpliceCheck::strict) compare_strict(d, a, b);
    return d.names;
}

}  // namespace ladder::mux
