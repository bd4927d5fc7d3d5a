#include "av/extradata.hpp"

#include "av/av_error.hpp"

#include <algorithm>
#include <new>

namespace ladder::av {

std::vector<std::uint8_t> extract_extradata(const AVPacket* pkt, const AVCodecParameters* par) {
    const AVBitStreamFilter* filter = av_bsf_get_by_name("extract_extradata");
    if (!filter) throw AvError(AVERROR_BSF_NOT_FOUND, "this FFmpeg build has no extract_extradata filter");
    AVBSFContext* raw = nullptr;
    check(av_bsf_alloc(filter, &raw), "allocating extract_extradata");
    BsfPtr bsf(raw);
    check(avcodec_parameters_copy(bsf->par_in, par), "configuring extract_extradata");
    bsf->time_base_in = AVRational{1, 1};
    check(av_bsf_init(bsf.get()), "starting extract_extradata");
    check(av_bsf_send_packet(bsf.get(), ref_packet(pkt).get()), "feeding extract_extradata");
    PacketPtr out = make_packet();
    check(av_bsf_receive_packet(bsf.get(), out.get()), "reading extract_extradata");
    std::size_t size = 0;
    const std::uint8_t* data = av_packet_get_side_data(out.get(), AV_PKT_DATA_NEW_EXTRADATA, &size);
    return data ? std::vector<std::uint8_t>(data, data + size) : std::vector<std::uint8_t>{};
}

void set_extradata(AVCodecParameters* par, const std::vector<std::uint8_t>& data) {
    av_freep(&par->extradata);
    par->extradata_size = 0;
    if (data.empty()) return;
    par->extradata = static_cast<std::uint8_t*>(av_mallocz(data.size() + AV_INPUT_BUFFER_PADDING_SIZE));
    if (!par->extradata) throw std::bad_alloc();
    std::copy(data.begin(), data.end(), par->extradata);
    par->extradata_size = static_cast<int>(data.size());
}

}  // namespace ladder::av
