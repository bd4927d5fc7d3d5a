// svt-init-race: the SVT-AV1 crash of docs/hardening.md ("Why SVT-AV1
// crashed inside ladder"), without ladder and without FFmpeg. Build (needs
// libsvtav1enc-dev) and run:
//   cc -O2 -g -o svt-init-race scripts/svt-init-race.c $(pkg-config --cflags --libs SvtAv1Enc) -lpthread -lm -ldl
//   ./svt-init-race -t 16 -m serial -s 60     # crashed in 0-3 s on 16 cores
//   ./svt-init-race -t 16 -m initx -s 60      # no crash, half the throughput
//
// N threads, each repeatedly opens a fresh SVT-AV1 encoder, encodes
// one chunk (default 50 frames) and closes it -- the way ladder drives
// libsvtav1 through libavcodec (FFmpeg 5.1's libsvtav1.c call sequence and
// parameters: VBR, closed GOP = chunk, lp=1, preset 10), no FFmpeg involved.
//
// Lock modes (--mode):
//   serial   opens (init_handle+set_parameter+init) and closes (deinit +
//            deinit_handle) serialized by one mutex; encoding in parallel
//            (what ladder does)
//   none     no lock at all
//   initx    like serial, and svt_av1_enc_init additionally excludes every
//            encoder that is encoding (rwlock: encoders hold it shared from
//            after init until before deinit; init takes it exclusively)
//   allx     like initx, and deinit/deinit_handle/init_handle exclusive too
// Prints one line per chunk to stderr with -v; a summary at the end.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <EbSvtAv1Enc.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <execinfo.h>
#include <signal.h>
#include <ucontext.h>
#include <fcntl.h>

typedef struct { int w, h, kbps; } Size;
static Size sizes[8] = {{1920, 1080, 4500}, {1280, 720, 2500}, {960, 540, 1200}, {640, 360, 600}};
static int nsizes = 4;
static int nthreads = 16, frames_per_chunk = 50, preset = 10, verbose = 0;
static double seconds = 60;
static int max_chunks = 1000000;
static const char *mode = "serial";
static pthread_mutex_t life_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t enc_rw;
static atomic_int chunk_counter, chunks_done, opens_done;
static uint8_t sinlut[256];
static struct timespec t0;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9;
}

static void die(const char *what, int err) {
    fprintf(stderr, "svt-init-race: %s failed: 0x%x\n", what, err);
    exit(3);
}

// Varied content, a function of the global frame number g (scenes of 37 frames,
// not aligned with chunks): plasma with motion, noise over gradient, flat colour,
// a scrolling bar chart; fades in/out at scene edges, hard cuts between scenes.
static uint32_t rng_state = 1;
static void fill_frame(uint8_t *y, uint8_t *u, uint8_t *v, int w, int h, long g, uint32_t *rng) {
    const int scene_len = 37;
    long scene = g / scene_len;
    int pos = (int)(g % scene_len);
    int type = (int)(scene % 4);
    int fade = 256;
    if (scene % 3 == 0 && pos < 10) fade = pos * 256 / 10;                          // fade in
    if (scene % 3 == 1 && pos >= scene_len - 12) fade = (scene_len - 1 - pos) * 256 / 12;  // fade out
    int t = (int)g;
    for (int r = 0; r < h; r++) {
        uint8_t *row = y + (size_t)r * w;
        for (int c = 0; c < w; c++) {
            int val;
            switch (type) {
            case 0: {  // plasma, moving and zooming
                int zx = c * (64 + (t % 50)) / (64 * 4), zy = r * (64 + (t % 50)) / (64 * 4);
                val = (sinlut[(zx + t * 3) & 255] + sinlut[(zy * 2 - t * 2) & 255] + sinlut[((zx + zy) + t) & 255]) / 3;
                break;
            }
            case 1: {  // gradient + strong noise
                *rng ^= *rng << 13; *rng ^= *rng >> 17; *rng ^= *rng << 5;
                val = (c * 255 / w + r * 128 / h) / 2 + (int)(*rng & 63) - 32 + ((c + t * 7) & 64);
                break;
            }
            case 2:  // flat colour with a moving square
                val = (c / 64 + t) % 17 == 0 || (r / 64 + t / 2) % 11 == 0 ? 200 : 60 + (int)(scene * 37 % 120);
                break;
            default: {  // checker text-like pattern scrolling
                int cc = (c + t * 5) / 8, rr = (r + t) / 12;
                val = ((cc * 7 + rr * 13) % 5 == 0) ? 235 : ((cc ^ rr) & 3) * 30 + 40;
                break;
            }
            }
            val = val * fade / 256;
            row[c] = (uint8_t)(val < 0 ? 0 : val > 255 ? 255 : val);
        }
    }
    int cw = w / 2, ch = h / 2;
    for (int r = 0; r < ch; r++)
        for (int c = 0; c < cw; c++) {
            int du = (sinlut[(c + t) & 255] - 128) / 2, dv = (sinlut[(r * 2 + t * 3 + (int)scene * 40) & 255] - 128) / 2;
            u[(size_t)r * cw + c] = (uint8_t)(128 + du * fade / 256);
            v[(size_t)r * cw + c] = (uint8_t)(128 + dv * fade / 256);
        }
}


// Crash report: faulting address, RIP, backtrace (lib(+offset) for hidden
// symbols), and the libSvtAv1Enc mappings so offsets can be symbolized.
static void put(const char *s) { ssize_t r = write(2, s, strlen(s)); (void)r; }
static void puthex(unsigned long v) {
    char b[19]; b[0] = '0'; b[1] = 'x';
    for (int i = 0; i < 16; i++) b[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
    b[18] = 0; put(b);
}
static void on_crash(int sig, siginfo_t *si, void *uc_) {
    ucontext_t *uc = uc_;
    put("svt-init-race: CRASH signal "); put(sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGABRT ? "SIGABRT" : sig == SIGILL ? "SIGILL" : "SIGFPE");
    put(" fault addr "); puthex((unsigned long)si->si_addr);
    put(" rip "); puthex((unsigned long)uc->uc_mcontext.gregs[REG_RIP]);
    put(" rsp "); puthex((unsigned long)uc->uc_mcontext.gregs[REG_RSP]);
    put("\n");
    void *fr[64];
    int n = backtrace(fr, 64);
    backtrace_symbols_fd(fr, n, 2);
    int fd = open("/proc/self/maps", O_RDONLY);
    if (fd >= 0) {
        char buf[4096]; ssize_t k; put("svt-init-race: maps:\n");
        while ((k = read(fd, buf, sizeof buf)) > 0) { ssize_t r = write(2, buf, (size_t)k); (void)r; }
        close(fd);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void lock_life(void) { if (strcmp(mode, "none")) pthread_mutex_lock(&life_mx); }
static void unlock_life(void) { if (strcmp(mode, "none")) pthread_mutex_unlock(&life_mx); }
static int use_rw(void) { return !strcmp(mode, "initx") || !strcmp(mode, "allx"); }

static void *worker(void *arg) {
    int id = (int)(intptr_t)arg;
    uint32_t rng = 0x9e3779b9u * (id + 1);
    uint8_t *buf = NULL;
    while (now() < seconds) {
        int k = atomic_fetch_add(&chunk_counter, 1);
        if (k >= max_chunks) break;
        Size s = sizes[k % nsizes];
        long first = (long)(k / nsizes) * frames_per_chunk;  // same frames in every rung, like ladder
        size_t ysz = (size_t)s.w * s.h;
        buf = realloc(buf, ysz * 3 / 2);

        EbComponentType *h = NULL;
        EbSvtAv1EncConfiguration cfg;
        memset(&cfg, 0, sizeof(cfg));
        int allx = !strcmp(mode, "allx");
        if (allx) pthread_rwlock_wrlock(&enc_rw); else lock_life();
        EbErrorType e = svt_av1_enc_init_handle(&h, NULL, &cfg);
        if (e != EB_ErrorNone) die("svt_av1_enc_init_handle", e);
        // FFmpeg 5.1 libsvtav1.c config_enc_params with ladder's AVCodecContext
        cfg.hierarchical_levels = 4;  // FFmpeg's deprecated option defaults
        cfg.tier = 0;
        cfg.scene_change_detection = 0;
        cfg.tile_columns = 0;
        cfg.tile_rows = 0;
        cfg.enc_mode = preset;
        cfg.target_bit_rate = (uint32_t)s.kbps * 1000;
        cfg.rate_control_mode = 1;
        cfg.max_qp_allowed = 63;
        cfg.min_qp_allowed = 1;
        cfg.max_bit_rate = 0;
        cfg.maximum_buffer_size_ms = 2000;
        cfg.color_primaries = 1; cfg.matrix_coefficients = 1; cfg.transfer_characteristics = 1;
        cfg.color_range = 0;
        cfg.intra_period_length = frames_per_chunk - 1;
        cfg.frame_rate_numerator = 25;
        cfg.frame_rate_denominator = 1;
        cfg.intra_refresh_type = 2;
        if (svt_av1_enc_parse_parameter(&cfg, "lp", "1") != EB_ErrorNone) die("parse lp", 0);
        cfg.source_width = s.w;
        cfg.source_height = s.h;
        cfg.encoder_bit_depth = 8;
        cfg.encoder_color_format = EB_YUV420;
        e = svt_av1_enc_set_parameter(h, &cfg);
        if (e != EB_ErrorNone) die("svt_av1_enc_set_parameter", e);
        if (!allx) unlock_life();
        // svt_av1_enc_init is where the process-global tables are (re)built
        if (use_rw() && !allx) pthread_rwlock_wrlock(&enc_rw);
        else if (!allx) lock_life();
        e = svt_av1_enc_init(h);
        if (e != EB_ErrorNone) die("svt_av1_enc_init", e);
        EbBufferHeaderType *hdr = NULL;
        if (svt_av1_enc_stream_header(h, &hdr) != EB_ErrorNone) die("stream_header", 0);
        svt_av1_enc_stream_header_release(hdr);
        if (use_rw()) pthread_rwlock_unlock(&enc_rw); else unlock_life();
        atomic_fetch_add(&opens_done, 1);

        if (use_rw()) pthread_rwlock_rdlock(&enc_rw);
        EbSvtIOFormat io;
        EbBufferHeaderType in;
        memset(&in, 0, sizeof(in));
        in.size = sizeof(in);
        in.p_buffer = (uint8_t *)&io;
        int got_eos = 0;
        long bytes = 0;
        int packets = 0;
        for (int f = 0; f <= frames_per_chunk && !got_eos; f++) {
            if (f < frames_per_chunk) {
                fill_frame(buf, buf + ysz, buf + ysz + ysz / 4, s.w, s.h, first + f, &rng);
                io.luma = buf; io.cb = buf + ysz; io.cr = buf + ysz + ysz / 4;
                io.y_stride = s.w; io.cb_stride = io.cr_stride = s.w / 2;
                in.n_filled_len = (uint32_t)(ysz * 3 / 2);
                in.flags = 0;
                in.pts = f;
                in.pic_type = f == 0 ? EB_AV1_KEY_PICTURE : EB_AV1_INVALID_PICTURE;
                svt_av1_enc_send_picture(h, &in);
            } else {
                EbBufferHeaderType last;
                memset(&last, 0, sizeof(last));
                last.pic_type = EB_AV1_INVALID_PICTURE;
                last.flags = EB_BUFFERFLAG_EOS;
                svt_av1_enc_send_picture(h, &last);
            }
            // like libavcodec's receive loop: poll without waiting until EOS sent
            for (;;) {
                EbBufferHeaderType *out = NULL;
                e = svt_av1_enc_get_packet(h, &out, f == frames_per_chunk);
                if (e == EB_NoErrorEmptyQueue) break;
                if (e != EB_ErrorNone) die("get_packet", e);
                bytes += out->n_filled_len;
                packets++;
                if (out->flags & EB_BUFFERFLAG_EOS) got_eos = 1;
                svt_av1_enc_release_out_buffer(&out);
                if (got_eos) break;
            }
        }
        if (use_rw()) pthread_rwlock_unlock(&enc_rw);

        if (allx) pthread_rwlock_wrlock(&enc_rw); else lock_life();
        svt_av1_enc_deinit(h);
        svt_av1_enc_deinit_handle(h);
        if (allx) pthread_rwlock_unlock(&enc_rw); else unlock_life();
        int done = atomic_fetch_add(&chunks_done, 1) + 1;
        if (verbose)
            fprintf(stderr, "%8.2f s thread %2d chunk %4d %4dx%-4d %3d packets %7ld bytes (done %d)\n", now(), id, k,
                    s.w, s.h, packets, bytes, done);
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "-t")) nthreads = atoi(v), i++;
        else if (!strcmp(a, "-m")) mode = v, i++;
        else if (!strcmp(a, "-s")) seconds = atof(v), i++;
        else if (!strcmp(a, "-f")) frames_per_chunk = atoi(v), i++;
        else if (!strcmp(a, "-p")) preset = atoi(v), i++;
        else if (!strcmp(a, "-n")) max_chunks = atoi(v), i++;
        else if (!strcmp(a, "-v")) verbose = 1;
        else if (!strcmp(a, "-r")) {  // sizes: WxH@KBPS,WxH@KBPS
            nsizes = 0;
            char *dup = strdup(v), *save = NULL;
            for (char *tok = strtok_r(dup, ",", &save); tok && nsizes < 8; tok = strtok_r(NULL, ",", &save))
                if (sscanf(tok, "%dx%d@%d", &sizes[nsizes].w, &sizes[nsizes].h, &sizes[nsizes].kbps) == 3) nsizes++;
            i++;
        } else {
            fprintf(stderr, "usage: svt-init-race [-t threads] [-m serial|none|initx|allx] [-s seconds] [-f frames] [-p preset] [-n chunks] [-r WxH@kbps,...] [-v]\n");
            return 2;
        }
    }
    {
        void *warm[1]; backtrace(warm, 1);
        static char altstack[1 << 16];
        stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
        sigaltstack(&ss, NULL);
        struct sigaction sa; memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_crash; sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
        for (int i = 0; i < 5; i++) sigaction(sigs[i], &sa, NULL);
    }
    for (int i = 0; i < 256; i++) sinlut[i] = (uint8_t)(128 + 110 * sin(i * 2 * M_PI / 256));
    pthread_rwlockattr_t ra;
    pthread_rwlockattr_init(&ra);
    pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&enc_rw, &ra);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    Dl_info di;
    if (dladdr((void *)svt_av1_enc_init_handle, &di)) fprintf(stderr, "svt-init-race: SVT-AV1 library %s\n", di.dli_fname);
    fprintf(stderr, "svt-init-race: %d threads, mode %s, preset %d, %d frames/chunk, %d sizes, %.0f s\n", nthreads, mode,
            preset, frames_per_chunk, nsizes, seconds);
    pthread_t th[256];
    for (int i = 0; i < nthreads; i++) {
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, 8 << 20);
        pthread_create(&th[i], &at, worker, (void *)(intptr_t)i);
    }
    for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
    printf("svt-init-race: OK mode=%s threads=%d chunks=%d opens=%d in %.1f s\n", mode, nthreads, atomic_load(&chunks_done),
           atomic_load(&opens_done), now());
    (void)rng_state;
    return 0;
}
