#include "engine/job.hpp"
#include "av/compat.hpp"

extern "C" {
#include <libavutil/imgutils.h>
}

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <thread>

#include "av/av_error.hpp"
#include "engine/audio_rendition_writer.hpp"
#include "engine/chunk_dispatcher.hpp"
#include "engine/chunk_journal.hpp"
#include "engine/decode_pump.hpp"
#include "engine/encoder_worker.hpp"
#include "engine/errors.hpp"
#include "engine/master_playlist.hpp"
#include "engine/output_paths.hpp"
#include "engine/plan_job.hpp"
#include "engine/process_encoder.hpp"
#include "engine/rung_runtime.hpp"
#include "engine/rung_scaler.hpp"
#include "engine/source_info.hpp"
#include "gpu/cpu_info.hpp"
#include "mux/atomic_file.hpp"
#include "mux/av1_codecs_string.hpp"
#include "mux/hls_master_builder.hpp"
#include "mux/hls_track_playlists.hpp"

namespace ladder::engine {

namespace {

// The first real error of a run; later Cancelled exceptions (threads that
// were stopped because of it) do not replace it.
class FailureLatch {
public:
    explicit FailureLatch(std::stop_source& stop) : stop_(stop) {}

    void record(std::exception_ptr e) {
        bool cancelled = false;
        try {
            std::rethrow_exception(e);
        } catch (const Cancelled&) {
            cancelled = true;
        } catch (...) {
        }
        {
            std::lock_guard lock(mu_);
            if (!cancelled && !first_) first_ = e;
        }
        stop_.request_stop();
    }

    void rethrow_if_failed() {
        std::lock_guard lock(mu_);
        if (first_) std::rethrow_exception(first_);
    }

private:
    std::stop_source& stop_;
    std::mutex mu_;
    std::exception_ptr first_;
};


EncoderSettings settings_for(const Rung& rung, const SourceInfo& src, int preset) {
    EncoderSettings s;
    s.width = rung.width;
    s.height = rung.height;
    s.pix_fmt = src.pix_fmt;
    s.frame_rate = src.frame_rate;
    s.bitrate_kbps = rung.bitrate_kbps;
    s.maxrate_kbps = rung.maxrate_kbps;
    s.bufsize_kbps = rung.bufsize_kbps;
    s.preset = preset;
    s.color_primaries = src.color_primaries;
    s.color_trc = src.color_trc;
    s.colorspace = src.colorspace;
    s.color_range = src.color_range;
    return s;
}

std::string describe_slots(const gpu::GpuPool& pool) {
    std::map<std::string, std::pair<int, int>> counts;  // encoder -> sessions, threads each
    for (const auto& s : pool.slots()) {
        ++counts[s.encoder].first;
        counts[s.encoder].second = s.threads;
    }
    std::string out;
    for (const auto& [encoder, n] : counts) {
        out += fmt::format("{}{} {}", out.empty() ? "" : " + ", n.first, encoder);
        if (encoder.rfind("lib", 0) == 0) out += fmt::format(" x {} threads", n.second);
    }
    return out;
}

// What must be the same for a journaled chunk to be reused by --resume.
std::string job_fingerprint(const JobOptions& o, const SourceInfo& src, const LadderSpec& ladder,
                            const std::vector<std::pair<std::string, int>>& encoders, int chunk_frames) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(o.input, ec);
    const auto mtime = std::filesystem::last_write_time(o.input, ec).time_since_epoch().count();
    std::string f = fmt::format("source={}|{}|{}|{}x{}|{}/{}|chunk={}|preset={}|check={}", std::filesystem::absolute(o.input).string(),
                                size, mtime, src.width, src.height, src.frame_rate.num, src.frame_rate.den,
                                chunk_frames, o.preset, static_cast<int>(o.splice_check));
    for (const auto& r : ladder.rungs)
        f += fmt::format("|{}={}x{}@{}/{}/{}", r.name, r.width, r.height, r.bitrate_kbps, r.maxrate_kbps, r.bufsize_kbps);
    for (const auto& [encoder, count] : encoders) f += fmt::format("|{}", encoder);
    return f;
}

}  // namespace

int chunk_frames_for(double segment_seconds, AVRational frame_rate) {
    if (!(segment_seconds > 0) || segment_seconds > 60)
        throw InputError(fmt::format("--segment-seconds {} must be within (0, 60]", segment_seconds));
    return std::max(1, static_cast<int>(std::lround(segment_seconds * av_q2d(frame_rate))));
}

JobReport run_job(const JobOptions& options, ProgressSink& progress, std::stop_token external_stop) {
    const auto started = std::chrono::steady_clock::now();

    // --- Pre-flight: everything that can be wrong with the request fails here,
    // before a thread starts or a file is written.
    const JobOptions::Shard* shard = options.shard ? &*options.shard : nullptr;
    auto input = open_source(options.input);
    const SourceInfo src = describe_source(*input);
    if (shard) check_source_matches_plan(shard->plan, src);
    const int chunk_frames = shard ? shard->plan.chunk_frames : chunk_frames_for(options.segment_seconds, src.frame_rate);
    // A shard's frames: those of its chunks, numbered as in the whole source.
    const std::int64_t first_frame = shard ? static_cast<std::int64_t>(shard->first_chunk) * chunk_frames : 0;
    const std::int64_t end_frame =
        shard ? std::min<std::int64_t>(static_cast<std::int64_t>(shard->end_chunk) * chunk_frames, shard->plan.frames)
              : 0;
    FittedLadder fitted = fit_to_source(options.ladder ? *options.ladder : default_ladder(), src.display_width,
                                        src.display_height);
    validate_ladder(fitted.ladder);
    // Trimming the default ladder is expected; trimming the user's own is worth a warning.
    for (const auto& n : fitted.notes) progress.note(options.ladder ? NoteLevel::warning : NoteLevel::info, n);
    const auto encoder_mix = options.cpu_encoders.empty()
                                 ? std::vector<std::pair<std::string, int>>{{options.encoder, options.cpu_slots}}
                                 : options.cpu_encoders;
    DeviceRequest device_request;
    device_request.policy = options.policy;
    device_request.sessions_per_gpu = options.sessions_per_gpu;
    device_request.decode = options.decode;
    device_request.cpu_mix = encoder_mix;
    device_request.cpu_requested = options.cpu_slots > 0 || !options.cpu_encoders.empty();
    device_request.inventory = options.inventory;
    // Encoder processes end (and are reaped) when this goes, after every
    // thread that used them has been joined.
    std::unique_ptr<EncoderProcesses> processes;
    if (options.isolation == EncoderIsolation::process && !options.encoder_factory)
        processes = std::make_unique<EncoderProcesses>(options.encoder_stall_timeout);
    const EncoderFactory factory = options.encoder_factory ? options.encoder_factory
                                   : processes            ? process_encoder_factory(*processes)
                                                          : EncoderFactory(make_encoder_backend);
    device_request.encoder_factory = factory;
    DevicePlan devices =
        plan_devices(device_request, src, settings_for(fitted.ladder.rungs.front(), src, options.preset));
    std::vector<std::string> slot_encoders;
    // GPU encoders were opened once by the pre-flight; CPU ones are looked up.
    for (const auto& s : devices.slots)
        if (s.kind == gpu::DeviceKind::cpu &&
            std::find(slot_encoders.begin(), slot_encoders.end(), s.encoder) == slot_encoders.end())
            slot_encoders.push_back(s.encoder);
    for (const auto& encoder : slot_encoders)
        if (!gpu::encoder_available(encoder))
            throw InputError(fmt::format("encoder {} is not in this FFmpeg build: install one with it or pick another "
                                         "--encoder",
                                         encoder));
    for (const auto& encoder : slot_encoders)
        for (const auto& r : fitted.ladder.rungs)
            if (auto problem = encoder_size_problem(encoder, r.width, r.height); !problem.empty())
                throw InputError(fmt::format("rung {}: {}: make the rung larger or use --encoder aom", r.name, problem));
    // A shard writes chunks into the plan's journal, no outputs.
    const bool write_mp4 = !shard && options.format != OutputFormat::hls;
    const bool write_hls = !shard && options.format != OutputFormat::mp4;
    const bool hls_audio = write_hls && options.audio && src.audio_stream >= 0;
    std::vector<std::string> rung_names;
    for (const auto& r : fitted.ladder.rungs) rung_names.push_back(r.name);
    const LadderOutputs outputs = ladder_outputs(options.outdir, rung_names, write_mp4, write_hls, hls_audio);
    const std::vector<RungOutputs>& rung_outputs = outputs.rungs;
    if (shard) {
        std::filesystem::create_directories(options.outdir);
    } else {
        prepare_output_dir(options.outdir, outputs.finals, options.overwrite || options.resume);
    }
    // An old master playlist would point at a mix of old and new segments
    // while this run is under way: it goes first and comes back last.
    if (write_hls) std::filesystem::remove(master_playlist_path(options.outdir));

    std::unique_ptr<AudioTrack> audio;
    if (shard) {
        // `ladder stitch` encodes the audio, once.
    } else if (options.audio && src.audio_stream >= 0) {
        const AVStream* vs = input->get()->streams[src.video_stream];
        const std::int64_t video_start =
            vs->start_time == AV_NOPTS_VALUE ? 0 : av_rescale_q(vs->start_time, vs->time_base, av::kTimeBaseQ);
        try {
            audio = std::make_unique<AudioTrack>(input->get()->streams[src.audio_stream], video_start);
        } catch (const av::AvError& e) {
            throw InputError(fmt::format("input {}: cannot decode its audio ({}): pass --audio none to skip audio",
                                         src.path, e.what()));
        }
        if (src.audio_streams > 1) {
            int ordinal = 1;  // among the audio streams, as players number tracks
            for (int i = 0; i < src.audio_stream; ++i)
                ordinal += input->get()->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO;
            progress.note(NoteLevel::info,
                          fmt::format("input {} has {} audio streams: encoding audio track {} (stream #{}, {}, {} ch), "
                                      "the one marked default (else FFmpeg's best ranked); the others are left out",
                                      src.path, src.audio_streams, ordinal, src.audio_stream, src.audio_language,
                                      input->get()->streams[src.audio_stream]->codecpar->ch_layout.nb_channels));
        }
    } else if (options.audio) {
        progress.note(NoteLevel::info, fmt::format("input {} has no usable audio stream: outputs are video only",
                                                    src.path));
    }
    if (src.interlaced)
        progress.note(NoteLevel::info,
                      fmt::format("input {} is interlaced: deinterlacing it (bwdif, one frame per frame, {:.3f} fps)",
                                  src.path, av_q2d(src.frame_rate)));
    if (src.rotation != 0)
        progress.note(NoteLevel::info, fmt::format("input {} is rotated: turning it {} degrees clockwise ({}x{})",
                                                    src.path, src.rotation, src.display_width, src.display_height));

    const gpu::CpuInfo cpu = gpu::read_cpu_info();
    std::uint64_t largest_chunk = 0;
    std::string largest_rung;
    for (const auto& r : fitted.ladder.rungs) {
        const auto bytes = static_cast<std::uint64_t>(av_image_get_buffer_size(src.pix_fmt, r.width, r.height, 1)) *
                           static_cast<std::uint64_t>(chunk_frames);
        if (bytes > largest_chunk) {
            largest_chunk = bytes;
            largest_rung = r.name;
        }
    }
    std::uint64_t budget_bytes = options.memory_budget;
    if (budget_bytes == 0) {
        budget_bytes = std::max<std::uint64_t>(cpu.available_memory_bytes / 4, 2 * largest_chunk);
    } else if (budget_bytes < largest_chunk) {
        throw InputError(fmt::format("--memory-budget {} bytes is below one chunk of rung {} ({} frames = {} bytes): "
                                     "raise it or shorten --segment-seconds",
                                     budget_bytes, largest_rung, chunk_frames, largest_chunk));
    }
    MemoryBudget memory(budget_bytes);
    ChunkJournal journal(options.outdir,
                         shard ? shard->plan.fingerprint()
                               : job_fingerprint(options, src, fitted.ladder, encoder_mix, chunk_frames),
                         shard ? JournalMode::shared : options.resume ? JournalMode::resume : JournalMode::fresh);
    if (options.resume && !journal.resuming())
        progress.note(NoteLevel::warning,
                      fmt::format("--resume: no journal in {}; encoding everything", journal.dir().string()));
    std::atomic<int> resumed_chunks{0};
    for (const auto& [level, message] : devices.notes) progress.note(level, message);
    gpu::GpuPool pool(devices.slots);
    progress.note(NoteLevel::info,
                  fmt::format("{}: {}x{} {} fps, {} frames; {} rung(s), {}-frame chunks; {} encoder sessions ({}); "
                              "decoding on {}",
                              src.path, src.display_width, src.display_height, av_q2d(src.frame_rate),
                              src.estimated_frames, fitted.ladder.rungs.size(), chunk_frames, pool.size(),
                              describe_slots(pool), devices.decode_label));

    // --- Per-rung plumbing.
    std::vector<RungRuntime> rungs;
    std::vector<std::int64_t> pixels;
    for (std::size_t i = 0; i < fitted.ladder.rungs.size(); ++i) {
        const Rung& r = fitted.ladder.rungs[i];
        RungRuntime rt;
        rt.rung = r;
        rt.settings = settings_for(r, src, options.preset);
        rt.frames = std::make_unique<FrameChannel>(static_cast<std::size_t>(std::max(8, chunk_frames / 4)));
        rt.invariant = std::make_unique<RungCodecInvariant>(options.splice_check);
        rt.rate = std::make_unique<RungRateFeedback>(rt.settings.bitrate_kbps);
        if (!shard)
            rt.finalizer = std::make_unique<RungFinalizer>(static_cast<int>(i), r, rung_outputs[i], src.frame_rate,
                                                       write_mp4 ? audio.get() : nullptr, progress);
        rungs.push_back(std::move(rt));
        pixels.push_back(static_cast<std::int64_t>(r.width) * r.height);
        progress.rung_state(static_cast<int>(i), r.name, RungState::pending);
    }
    const bool fixed = options.dispatch == DispatchMode::fixed;
    const int worker_count = fixed ? static_cast<int>(rungs.size()) : static_cast<int>(pool.size());
    std::vector<RungPlan> plans;
    for (std::size_t i = 0; i < rungs.size(); ++i)
        plans.push_back(
            RungPlan{rungs[i].rung.name, pixels[i], shard ? end_frame - first_frame : src.estimated_frames, chunk_frames});
    const std::size_t queue_capacity = options.queue_chunks ? options.queue_chunks : std::numeric_limits<int>::max();
    ChunkDispatcher scheduler(std::move(plans), queue_capacity, options.dispatch, options.max_tries,
                              worker_count);
    std::vector<FrameChannel*> channels;
    for (auto& r : rungs) channels.push_back(r.frames.get());
    DecodePump pump(*input, src, channels, audio.get(), progress, std::move(devices.decode_device));
    if (shard) pump.limit_to(FrameRange{first_frame, end_frame, shard->plan.origin_pts});
    std::unique_ptr<AudioRenditionWriter> audio_rendition;
    if (hls_audio && audio)
        audio_rendition = std::make_unique<AudioRenditionWriter>(hls_audio_dir(options.outdir, kAudioRendition),
                                                                 *audio, chunk_frames, src.frame_rate);

    std::stop_source no_more_work;  // ends lease claims once no slot is needed
    std::stop_source stop;
    std::stop_callback forward_stop(external_stop, [&] { stop.request_stop(); });
    std::stop_callback stop_claims(stop.get_token(), [&] { no_more_work.request_stop(); });
    FailureLatch failure(stop);

    WorkerSetup setup;
    setup.pool = &pool;
    setup.dispatcher = &scheduler;
    setup.rungs = &rungs;
    setup.progress = &progress;
    setup.factory = factory;
    setup.job_start = started;
    setup.quarantine_after = options.quarantine_after;
    setup.journal = &journal;
    std::vector<SlotReport> slot_reports(pool.size());
    std::vector<int> failure_runs(pool.size(), 0);
    setup.slot_reports = &slot_reports;
    setup.failure_runs = &failure_runs;
    setup.no_more_work = &no_more_work;
    std::atomic<int> chunks_encoding{0};
    setup.chunks_encoding = &chunks_encoding;
    setup.cores = options.tail_threads ? cpu.cores : 0;
    // With helper dispatch the dispatcher's workers are the pool's slots.
    if (!fixed)
        for (const auto& slot : pool.slots()) scheduler.add_worker(slot.encoder, -1);
    std::vector<std::unique_ptr<EncoderWorker>> workers;
    for (int i = 0; i < worker_count; ++i) workers.push_back(std::make_unique<EncoderWorker>(setup, fixed ? i : -1));

    // --- Threads. Each stage records its failure (which stops the run)
    // before its cleanup runs, so no consumer mistakes a failure for an end.
    {
        std::vector<std::jthread> threads;
        auto stage = [&failure](auto body, auto cleanup) {
            try {
                body();
            } catch (...) {
                failure.record(std::current_exception());
            }
            cleanup();
        };
        const std::stop_token token = stop.get_token();
        threads.emplace_back([&, token] { stage([&] { pump.run(token); }, [&] { pump.close_outputs(); }); });
        std::vector<std::unique_ptr<RungScaler>> scalers;
        for (std::size_t i = 0; i < rungs.size(); ++i) {
            RungRuntime& rt = rungs[i];
            scalers.push_back(std::make_unique<RungScaler>(
                static_cast<int>(i), rt.rung, src.pix_fmt, chunk_frames, *rt.frames, scheduler.queue(static_cast<int>(i)),
                [&rt, &audio_rendition](int chunks, std::int64_t frames) {
                    if (rt.finalizer) rt.finalizer->set_total(chunks, frames);
                    if (audio_rendition) audio_rendition->set_video_frames(frames);
                },
                &memory,
                [&rt, &journal, &resumed_chunks, &progress](RawChunk& raw) {
                    if (!journal.resuming()) return false;
                    auto c = journal.load(raw.rung, rt.rung.name, raw.index);
                    if (!c || c->first_frame != raw.first_frame ||
                        c->frame_count != static_cast<std::int64_t>(raw.frames.size()) ||
                        !rt.invariant->check(*c).accepted)
                        return false;
                    ChunkDone done;
                    done.rung = raw.rung;
                    done.rung_name = rt.rung.name;
                    done.chunk = raw.index;
                    done.frames = c->frame_count;
                    done.bytes = c->bytes;
                    done.slot = c->slot_label;
                    progress.chunk_done(done);
                    if (rt.finalizer) rt.finalizer->deliver(std::move(*c));
                    ++resumed_chunks;
                    return true;
                }));
            RungScaler* scaler = scalers.back().get();
            scaler->keep_on_gpu(devices.keep_frames_on_gpu);
            if (shard) scaler->start_at(shard->first_chunk, first_frame);
            SegmentChunkQueue* queue = &scheduler.queue(static_cast<int>(i));
            threads.emplace_back([&, scaler, queue, token] {
                stage([&] { scaler->run(token); }, [queue] { queue->close(); });
            });
            if (rt.finalizer)
                threads.emplace_back([&, token, fin = rt.finalizer.get()] { stage([&] { fin->run(token); }, [] {}); });
        }
        if (audio_rendition)
            threads.emplace_back([&, token] { stage([&] { audio_rendition->run(token); }, [] {}); });
        for (auto& w : workers)
            threads.emplace_back([&, w = w.get(), token] { stage([&] { w->run(token); }, [] {}); });
        for (auto& t : threads) t.join();
    }

    // Rungs left unfinished by a failure or a stop say so before the error.
    if (stop.stop_requested())
        for (std::size_t i = 0; i < rungs.size(); ++i)
            if (rungs[i].finalizer && !rungs[i].finalizer->completed())
                progress.rung_state(static_cast<int>(i), rungs[i].rung.name, RungState::failed);
    auto withdraw = [&] {
        std::vector<bool> finished;
        for (const auto& rt : rungs) finished.push_back(rt.finalizer && rt.finalizer->completed());
        withdraw_finished_outputs(rung_outputs, finished,
                                  audio_rendition ? std::optional(audio_rendition->dir()) : std::nullopt);
    };
    if (stop.stop_requested()) withdraw();
    failure.rethrow_if_failed();
    if (stop.stop_requested()) throw Cancelled();
    if (write_hls) {
        try {
            write_master_playlist(options.outdir, src, rungs, audio_rendition.get(), audio.get());
        } catch (...) {
            withdraw();  // e.g. the disk filled up on the last file
            throw;
        }
    }
    if (!shard) journal.remove();  // everything it held is in the finished outputs now
    if (shard && resumed_chunks > 0)
        progress.note(NoteLevel::info,
                      fmt::format("{} chunk(s) of this shard were already in {} and were kept", resumed_chunks.load(),
                                  journal.dir().string()));
    else if (resumed_chunks > 0)
        progress.note(NoteLevel::info, fmt::format("resumed {} chunk(s) from the journal instead of encoding them",
                                                    resumed_chunks.load()));

    JobReport report;
    report.input = src.path;
    report.source_video_packets = pump.counters().video_packets;
    report.source_frames_decoded = pump.counters().frames_decoded;
    report.frames_normalized = pump.counters().frames_normalized;
    report.audio_packets = audio ? audio->packet_count() : 0;
    report.frame_rate = av_q2d(src.frame_rate);
    report.encoder_slots = static_cast<int>(pool.size());
    report.decode_seconds = pump.counters().busy_seconds;
    report.decode_device = devices.decode_label;
    report.frames_decoded_on_gpu = pump.counters().frames_on_gpu;
    report.dropped_devices = devices.dropped;
    report.memory_budget = memory.limit();
    report.peak_queued_bytes = memory.peak();
    report.resumed_chunks = resumed_chunks;
    if (shard) {
        ShardSummary summary;
        summary.index = shard->spec.index;
        summary.count = shard->spec.count;
        summary.first_chunk = shard->first_chunk;
        summary.end_chunk = shard->end_chunk;
        summary.chunks_kept = resumed_chunks;
        for (const auto& slot : slot_reports) summary.chunks_encoded += slot.chunks;
        report.shard = summary;
    }
    for (auto& r : rungs) {
        if (!r.finalizer) continue;
        report.rungs.push_back(r.finalizer->report());
        auto recs = r.finalizer->chunk_records();
        report.chunks.insert(report.chunks.end(), recs.begin(), recs.end());
    }
    std::map<std::pair<std::string, std::string>, MismatchRecord> mismatches;
    if (processes)
        for (const auto& [id, count] : processes->started())
            slot_reports.at(static_cast<std::size_t>(id)).processes = count;
    for (const auto& slot : slot_reports)
        if (!slot.label.empty()) report.slots.push_back(slot);  // slots that never got a chunk are left out
    for (const auto& w : workers) {
        report.retries.insert(report.retries.end(), w->retries().begin(), w->retries().end());
        for (const auto& [key, m] : w->mismatches()) {
            auto& total = mismatches[key];
            if (total.count == 0) total = m;
            else total.count += m.count;
        }
    }
    for (auto& [key, m] : mismatches) report.mismatches.push_back(m);
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report;
}

}  // namespace ladder::engine
