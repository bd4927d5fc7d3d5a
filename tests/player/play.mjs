#!/usr/bin/env node
// Real-player check for ladder's HLS output: serves DIR over HTTP on 127.0.0.1,
// opens a test page with hls.js in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core) and plays the master playlist to the end.
//
//   node tests/player/play.mjs DIR [--master master.m3u8] [--timeout-ms 60000]
//                              [--switch] [--audio-switch] [--subtitles] [--rate 4]
//                              [--tolerate a,b] [--verbose]
//
// Exit codes: 0 played to the end, no untolerated error; 1 playback failure;
// 2 usage or setup problem (bad arguments, chromium or node_modules missing,
// browser without MSE, interrupted). The last line of stdout is always
//   PLAYER-RESULT {json}
// See README.md in this directory for the format and the error policy.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { browserSetup } from './browser-setup.mjs';
import { startServer } from './static-server.mjs';
import { SwitchWindows, isTolerated } from './switch-aborts.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PREFIX = '/__ladder_player__/';
// Non-fatal hls.js error details that do not fail the check by default (see README.md).
const DEFAULT_TOLERATED = ['bufferStalledError'];

const started = Date.now();
const result = {
  ok: false,
  exitCode: 2,
  reason: null,
  master: null,
  hlsVersion: null,
  browserVersion: null,
  levels: [],
  manifestVariants: null,
  manifestAudioRenditions: null,
  audioTracks: [],
  audioSwitch: null,
  subtitleTracks: [],
  textTracks: [],
  bufferCodecs: [],
  switches: [],
  levelSwitched: [],
  ended: false,
  endedBy: null,
  hlsEndedStalled: false,
  duration: null,
  currentTime: null,
  playbackRate: null,
  quality: null,
  fragsBuffered: {},
  errors: [],
  warnings: [],
  tolerated: DEFAULT_TOLERATED.slice(),
  elapsedMs: 0,
};

function log(line) {
  process.stdout.write(line + '\n');
}

function usage(msg) {
  if (msg) log('play.mjs: ' + msg);
  log('usage: node tests/player/play.mjs DIR [--master master.m3u8] [--timeout-ms 60000] [--switch] [--rate 4] [--tolerate detail,...] [--verbose]');
}

function parseArgs(argv) {
  const o = { dir: null, master: 'master.m3u8', timeoutMs: 60000, switch: false, audioSwitch: false, subtitles: false,
    rate: 4, tolerate: null, verbose: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(a + ' needs a value');
      return argv[++i];
    };
    if (a === '--master') o.master = val();
    else if (a === '--timeout-ms') o.timeoutMs = Number(val());
    else if (a === '--switch') o.switch = true;
    else if (a === '--audio-switch') o.audioSwitch = true;
    else if (a === '--subtitles') o.subtitles = true;
    else if (a === '--rate') o.rate = Number(val());
    else if (a === '--tolerate') o.tolerate = val().split(',').map((s) => s.trim()).filter(Boolean);
    else if (a === '--verbose' || a === '-v') o.verbose = true;
    else if (a === '--help' || a === '-h') { usage(); process.exit(0); }
    else if (a.startsWith('-')) throw new Error('unknown option ' + a);
    else if (o.dir === null) o.dir = a;
    else throw new Error('unexpected argument ' + a);
  }
  if (o.dir === null) throw new Error('DIR is required');
  if (!Number.isFinite(o.timeoutMs) || o.timeoutMs <= 0) throw new Error('--timeout-ms must be a positive number');
  if (!Number.isFinite(o.rate) || o.rate <= 0 || o.rate > 16) throw new Error('--rate must be in (0, 16]');
  return o;
}

// ---------------------------------------------------------------------------
// Playlist facts the player must agree with
// ---------------------------------------------------------------------------
function countMaster(text) {
  const lines = text.split(/\r?\n/);
  return {
    variants: lines.filter((l) => l.startsWith('#EXT-X-STREAM-INF')).length,
    audio: lines.filter((l) => l.startsWith('#EXT-X-MEDIA:') && /TYPE=AUDIO/.test(l)).length,
  };
}

// Lower-case; AV1's all-default optional tail (.0.110.01.01.01.0) is dropped,
// so the short and the long form of the same stream compare equal.
function normCodec(c) {
  let s = String(c).trim().toLowerCase();
  if (s.startsWith('av01.')) s = s.replace(/\.0\.110\.01\.01\.01\.0$/, '');
  return s;
}
// null when the playlist's codec agrees with the one hls.js derived from the
// init segment, else the error detail to report. For av01 hls.js reads
// profile, level, tier, bit depth, monochrome and chroma subsampling/sample
// position from av1C but always fills colour as .01.01.01.0, so the colour
// fields (cp.tc.mc.F) are not compared.
function compareCodec(want, got) {
  if (want.startsWith('av01.') && got.startsWith('av01.')) {
    const a = want.split('.');
    const b = got.split('.');
    if (a.slice(0, 4).join('.') !== b.slice(0, 4).join('.')) return 'codecsMismatch';
    const tail = (p) => (p.length > 4 ? `${Number(p[4])}.${p[5]}` : '0.110');
    return tail(a) === tail(b) ? null : 'codecsTailMismatch';
  }
  return want === got ? null : 'codecsMismatch';
}
function splitCodecs(list) {
  const out = { video: [], audio: [] };
  for (const c of String(list).split(',').map((x) => x.trim()).filter(Boolean)) {
    const n = normCodec(c);
    if (/^(mp4a|ac-3|ec-3|ac-4|opus|flac|alac|mp3|fLaC)/i.test(n)) out.audio.push(n);
    else out.video.push(n);
  }
  return out;
}

// ---------------------------------------------------------------------------
function fmtLevel(l) {
  const kbps = (b) => (b ? Math.round(b / 1000) + ' kb/s' : '-');
  return `  level ${l.index}: ${l.width}x${l.height} ${kbps(l.bitrate)}` +
    (l.averageBitrate ? ` (avg ${kbps(l.averageBitrate)})` : '') +
    ` fps=${l.frameRate || '-'} CODECS="${l.codecs ?? ''}" video=${l.videoCodec ?? '-'}` +
    ` audio=${l.audioCodec ?? '-'} mse=${l.videoCodecSupported} ${l.url ?? ''}`;
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    usage(e.message);
    result.reason = 'usage: ' + e.message;
    return 2;
  }
  if (opts.tolerate) result.tolerated = opts.tolerate;
  const tolerated = new Set(result.tolerated);

  const root = path.resolve(opts.dir);
  const masterRel = opts.master.replace(/^\/+/, '');
  const masterPath = path.join(root, masterRel);
  result.master = masterPath;
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) {
    result.reason = `setup: ${root} is not a directory`;
    return 2;
  }
  if (!fs.existsSync(masterPath)) {
    result.reason = `setup: master playlist ${masterPath} not found`;
    return 2;
  }
  const counts = countMaster(fs.readFileSync(masterPath, 'utf8'));
  result.manifestVariants = counts.variants;
  result.manifestAudioRenditions = counts.audio;

  const setup = await browserSetup('hls.js/dist/hls.js');
  if (setup.error) {
    result.reason = setup.error;
    return 2;
  }
  const { chromium, executablePath, libraryFile: hlsFile } = setup;

  const page0 = `<!doctype html>
<html><head><meta charset="utf-8"><title>ladder player check</title></head>
<body>
<video id="video" muted playsinline width="640" height="360"></video>
<script src="${PREFIX}hls.js"></script>
<script>window.LADDER_PLAYER_CONFIG = ${JSON.stringify({
    src: '/' + masterRel.split('/').map(encodeURIComponent).join('/'),
    switch: opts.switch,
    audioSwitch: opts.audioSwitch,
    subtitles: opts.subtitles,
    rate: opts.rate,
  }).replace(/</g, '\\u003c')};</script>
<script src="${PREFIX}end-watch.js"></script>
<script src="${PREFIX}player-page.js"></script>
</body></html>
`;
  const files = {
    'index.html': page0,
    'hls.js': hlsFile,
    'player-page.js': path.join(HERE, 'player-page.js'), 'end-watch.js': path.join(HERE, 'end-watch.js'),
  };

  // ---- state shared with the event handlers ----
  let finish; // resolves the wait below with a {code, reason}
  const done = new Promise((resolve) => { finish = resolve; });
  let finished = false;
  const end = (code, reason) => {
    if (!finished) {
      finished = true;
      finish({ code, reason });
    }
  };
  let failTimer = null;
  const failSoon = (reason) => {
    // let a few follow-up events arrive (for the report), then stop
    if (!failTimer) failTimer = setTimeout(() => end(1, reason), 750);
  };
  const requests = [];
  // The switches this check asked for and hls.js has not made yet: a load
  // hls.js cancels meanwhile is tolerated (switch-aborts.mjs says why).
  const switchWindows = new SwitchWindows();
  const addError = (e) => {
    e.tolerated = isTolerated(e, tolerated, switchWindows);
    result.errors.push(e);
    log(`player: ERROR ${e.type}/${e.details} fatal=${e.fatal}${e.tolerated ? ' (tolerated)' : ''}` +
      `${e.url ? ' url=' + e.url : ''}${e.reason ? ' : ' + e.reason : ''}`);
    if (!e.tolerated) {
      if (e.fatal) end(1, `fatal ${e.type} error: ${e.details}${e.reason ? ' (' + e.reason + ')' : ''}`);
      else failSoon(`non-fatal ${e.type} error not tolerated: ${e.details}${e.url ? ' ' + e.url : ''}`);
    }
  };

  let server = null;
  let browser = null;
  let page = null;
  let timer = null;
  const onSignal = (sig) => end(2, 'interrupted by ' + sig);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);

  try {
    server = await startServer(root, files, requests, (entry) => {
      addError({ type: 'http', details: `status${entry.status}`, fatal: false, url: entry.url, reason: `HTTP ${entry.status} for ${entry.method} ${entry.url}` });
    }, PREFIX);
    const port = server.address().port;
    const pageUrl = `http://127.0.0.1:${port}${PREFIX}index.html`;
    log(`player: serving ${root} at http://127.0.0.1:${port}/ ; master ${masterRel} (${counts.variants} variants, ${counts.audio} audio renditions)`);

    try {
      browser = await chromium.launch({
        executablePath,
        headless: true,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        timeout: 30000,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--autoplay-policy=no-user-gesture-required',
          '--mute-audio',
        ],
      });
    } catch (e) {
      result.reason = `setup: cannot launch ${executablePath}: ${e.message.split('\n')[0]}`;
      return 2;
    }
    result.browserVersion = browser.version();
    // launch() gives every run a fresh temporary profile (user data dir).
    const context = await browser.newContext();
    page = await context.newPage();
    page.on('pageerror', (err) => addError({ type: 'page', details: 'pageError', fatal: true, reason: err.message }));
    page.on('crash', () => end(1, 'the page crashed'));
    page.on('console', (msg) => {
      if (opts.verbose || msg.type() === 'error') log(`player: [console.${msg.type()}] ${msg.text()}`);
    });

    // CODECS in the master vs what hls.js read from the init segment (av1C etc.)
    const checkedInit = new Set();
    const checkInit = (d) => {
      const key = `${d.type}:${d.level}`;
      if (checkedInit.has(key)) return;
      checkedInit.add(key);
      let video = null;
      let audio = null;
      if (d.type === 'main') {
        const l = result.levels[d.level];
        if (!l) return;
        video = l.videoCodec;
        audio = l.audioCodec;
        if (!l.codecs) {
          const w = `level ${d.level} (${l.width}x${l.height}) has no CODECS attribute in the master playlist`;
          result.warnings.push(w);
          log('player: WARNING ' + w);
          return;
        }
      } else if (d.type === 'audio') {
        const a = result.audioTracks.find((t) => t.id === d.level);
        audio = a ? a.audioCodec : null;
      }
      const fromInit = splitCodecs(Object.values(d.tracks).map((t) => t.codec).filter(Boolean).join(','));
      const want = { video: video ? normCodec(video) : null, audio: audio ? normCodec(audio) : null };
      for (const kind of ['video', 'audio']) {
        if (!want[kind] || !fromInit[kind].length) continue;
        const got = fromInit[kind][0];
        const verdict = compareCodec(want[kind], got);
        if (verdict) {
          addError({ type: 'player', details: verdict, fatal: false, url: d.url,
            reason: `${d.type} level ${d.level}: playlist ${kind} codec ${want[kind]} but the init segment says ${got}` +
              (verdict === 'codecsTailMismatch' ? ' (monochrome/chroma subsampling/chroma_sample_position differ; a short av01 form means .0.110)' : '') });
        }
      }
      log(`player: init segment ${d.type} level ${d.level}: ${Object.entries(d.tracks).filter(([, v]) => v.codec).map(([k, v]) => `${k}=${v.codec}`).join(' ')}` +
        (d.type === 'main' ? ` (CODECS video ${video ?? '-'}, audio ${audio ?? '-'})` : ` (audio rendition codec ${audio ?? '-'})`));
    };
    const seenFrag = new Set();
    const resizes = [];
    let lastProgress = -10;
    await page.exposeFunction('__ladderReport', (msg) => {
      const d = msg.data || {};
      switchWindows.observe(msg);
      switch (msg.kind) {
        case 'hlsInfo':
          result.hlsVersion = d.version;
          log(`player: hls.js ${d.version} in ${result.browserVersion}; MSE supported: ${d.mseSupported}`);
          break;
        case 'setupError':
          end(2, 'setup: ' + d.message);
          break;
        case 'pageError':
          addError({ type: 'page', details: 'pageError', fatal: true, reason: d.message });
          break;
        case 'started':
          if (opts.verbose) log(`player: loading ${d.src}`);
          break;
        case 'manifestParsed':
          result.levels = d.levels;
          result.audioTracks = d.audioTracks;
          result.subtitleTracks = d.subtitleTracks || [];
          for (const s of result.subtitleTracks)
            log(`  subtitles ${s.id}: "${s.name}" group=${s.groupId} lang=${s.lang ?? '-'} default=${s.default} forced=${s.forced}`);
          log(`player: MANIFEST_PARSED ${d.levels.length} level(s), ${d.audioTracks.length} audio track(s); first level ${d.firstLevel}`);
          for (const l of d.levels) log(fmtLevel(l));
          for (const a of d.audioTracks) {
            log(`  audio ${a.id}: "${a.name}" group=${a.groupId} lang=${a.lang ?? '-'} default=${a.default} codec=${a.audioCodec ?? '-'} channels=${a.channels ?? '-'}`);
          }
          if (d.levels.length !== counts.variants) {
            addError({ type: 'player', details: 'levelsDropped', fatal: false,
              reason: `master has ${counts.variants} EXT-X-STREAM-INF variants but hls.js kept ${d.levels.length}` });
          }
          if (d.audioTracks.length !== counts.audio) {
            addError({ type: 'player', details: 'audioTracksDropped', fatal: false,
              reason: `master has ${counts.audio} audio renditions but hls.js kept ${d.audioTracks.length}` });
          }
          if (opts.switch && d.levels.length < 2) {
            addError({ type: 'player', details: 'switchImpossible', fatal: false,
              reason: `--switch needs at least 2 levels, hls.js has ${d.levels.length}` });
          }
          break;
        case 'bufferCodecs':
          if (!Object.keys(d).length) break;
          result.bufferCodecs.push(d);
          log('player: BUFFER_CODECS ' + Object.entries(d).map(([k, v]) => `${k}: ${v.container}; codecs=${v.codec}${v.levelCodec && v.levelCodec !== v.codec ? ' (playlist ' + v.levelCodec + ')' : ''}`).join(' | '));
          break;
        case 'initSegment':
          checkInit(d);
          break;
        case 'levelSwitched':
          result.levelSwitched.push(d);
          log(`player: LEVEL_SWITCHED -> ${d.level} at t=${d.at}`);
          break;
        case 'fragLoaded':
          if (opts.verbose) log(`player: FRAG_LOADED ${d.type} level ${d.level} sn ${d.sn} [${d.start}+${d.duration}] ${d.url}`);
          break;
        case 'fragBuffered': {
          const key = `${d.type}:${d.level}`;
          result.fragsBuffered[key] = (result.fragsBuffered[key] || 0) + 1;
          if (opts.verbose || !seenFrag.has(key)) log(`player: FRAG_BUFFERED ${d.type} level ${d.level} sn ${d.sn} [${d.start}+${d.duration}]`);
          seenFrag.add(key);
          break;
        }
        case 'levelPinned':
          log(`player: level ${d.level} pinned (ABR off): hls.js switches only when this check asks`);
          break;
        case 'switchRequested':
          log(`player: switch #${d.n} requested at t=${d.requestedAtTime}: hls.${d.method} = ${d.to} (playing ${d.from})`);
          break;
        case 'switchConfirmed':
          log(`player: switch #${d.n} to level ${d.to} confirmed at t=${d.confirmedAtTime} (LEVEL_SWITCHED, FRAG_LOADED, FRAG_BUFFERED${d.resizeNeeded ? ', video resize' : ''})`);
          break;
        case 'switchImpossible':
          break;
        case 'audioSwitchRequested':
          result.audioSwitch = d;
          log(`player: audio switch requested at t=${d.requestedAtTime}: track ${d.from} (${d.fromLang}) -> ${d.to} (${d.toLang})`);
          break;
        case 'audioTrackSwitched':
          log(`player: AUDIO_TRACK_SWITCHED -> ${d.id}`);
          break;
        case 'audioSwitchConfirmed':
          result.audioSwitch = d;
          log(`player: audio switch to track ${d.to} (${d.toLang}) confirmed at t=${d.confirmedAtTime} (AUDIO_TRACK_SWITCHED, FRAG_BUFFERED)`);
          break;
        case 'rate':
          result.playbackRate = d.playbackRate;
          log(`player: playbackRate ${d.playbackRate} from t=${d.at}`);
          break;
        case 'playing':
          if (opts.verbose) log(`player: playing at t=${d.at}`);
          break;
        case 'waiting':
          if (opts.verbose) log(`player: waiting at t=${d.at}`);
          break;
        case 'resize':
          resizes.push(`${d.width}x${d.height}`);
          log(`player: video resize ${d.width}x${d.height} at t=${d.at}`);
          break;
        case 'durationchange':
          result.duration = d.duration;
          break;
        case 'progress':
          result.currentTime = d.currentTime;
          if (opts.verbose || d.currentTime - lastProgress >= 2) {
            lastProgress = d.currentTime;
            log(`player: t=${d.currentTime} / ${Math.round(d.duration * 1000) / 1000} buffered ${JSON.stringify(d.buffered)}`);
          }
          break;
        case 'hlsMediaEnded':
          log(`player: hls.js MEDIA_ENDED (stalled=${d.stalled}) at t=${d.at}`);
          if (d.stalled) result.hlsEndedStalled = true;
          break;
        case 'ended':
          result.ended = true;
          result.endedBy = d.endedBy;
          result.currentTime = d.currentTime;
          result.duration = d.duration;
          result.quality = d.quality;
          result.trackBuffered = d.trackBuffered || {};
          result.textTracks = d.textTracks || [];
          for (const tt of result.textTracks)
            log(`player: text track "${tt.label}" (${tt.language}, ${tt.mode}): ${tt.cues.length} cue(s)`);
          log(`player: video ended (${d.endedBy}) at t=${d.currentTime} of ${d.duration}; buffered ${JSON.stringify(d.buffered)}; frames ${JSON.stringify(d.quality)}`);
          log(`player: SourceBuffers hold ${JSON.stringify(result.trackBuffered)}`);
          end(0, null);
          break;
        case 'hlsError':
          addError({ type: d.type, details: d.details, fatal: d.fatal, reason: d.reason, url: d.url, level: d.level, httpCode: d.httpCode, at: d.at });
          break;
        case 'videoError':
          addError({ type: 'video', details: `MediaError${d.code}`, fatal: true, reason: d.message, at: d.at });
          break;
        case 'playRejected':
          addError({ type: 'video', details: 'playRejected', fatal: true, reason: d.message });
          break;
        default:
          if (opts.verbose) log(`player: ${msg.kind} ${JSON.stringify(d)}`);
      }
    });

    timer = setTimeout(() => end(1, `timeout after ${opts.timeoutMs} ms without 'ended'`), opts.timeoutMs);
    await page.goto(pageUrl, { waitUntil: 'load', timeout: 30000 });
    const outcome = await done;
    clearTimeout(timer);
    clearTimeout(failTimer);

    // Final snapshot from the page (also on timeout and failures).
    try {
      const s = await page.evaluate(() => (window.__ladderSnapshot ? window.__ladderSnapshot() : null));
      if (s) {
        result.currentTime = s.currentTime;
        result.duration = s.duration;
        result.playbackRate = s.playbackRate;
        result.quality = s.quality;
        result.switches = s.switches;
        result.finalState = { paused: s.paused, ended: s.ended, readyState: s.readyState, currentLevel: s.currentLevel, videoWidth: s.videoWidth, videoHeight: s.videoHeight, buffered: s.buffered };
      }
    } catch {
      // page gone (crash); keep what the events told us
    }

    // Display size vs RESOLUTION: exact match expected; a mismatch (e.g. a
    // non-square pixel aspect ratio in the init segment) is only a warning.
    const checkSize = (what, levelIndex, shown) => {
      const l = result.levels[levelIndex];
      if (!l || !shown || !l.width || !l.height) return;
      if (shown !== `${l.width}x${l.height}`) {
        const w = `${what}: level ${levelIndex} has RESOLUTION=${l.width}x${l.height} but the video element displays ${shown} (pixel aspect ratio not 1:1?)`;
        result.warnings.push(w);
        log('player: WARNING ' + w);
      }
    };
    if (resizes.length && result.levelSwitched.length) checkSize('start', result.levelSwitched[0].level, resizes[0]);
    for (const s of result.switches) checkSize(`switch #${s.n}`, s.to, s.displayedAs);

    let { code, reason } = outcome;
    if (code === 0) {
      // 'ended' fired: now apply the checks that must hold at the end.
      const bad = result.errors.filter((e) => !e.tolerated);
      if (bad.length) {
        code = 1;
        reason = `${bad.length} untolerated error(s), first: ${bad[0].type}/${bad[0].details}`;
      } else if (opts.audioSwitch && !(result.audioSwitch && result.audioSwitch.confirmed)) {
        code = 1;
        const r = result.audioSwitch;
        reason = r ? `the audio switch to track ${r.to} (${r.toLang}) was not confirmed before the end (AUDIO_TRACK_SWITCHED=${r.switched} FRAG_BUFFERED=${r.fragBuffered})`
          : 'no audio switch was requested before the end';
      } else if (opts.switch) {
        const want = result.levels.length >= 2 ? 2 : 0;
        const confirmed = result.switches.filter((s) => s.confirmed).length;
        if (confirmed < want || result.switches.length < want) {
          code = 1;
          const s = result.switches.find((x) => !x.confirmed);
          reason = `only ${confirmed} of ${want} level switches confirmed before the end` +
            (s ? ` (switch #${s.n} to ${s.to}: LEVEL_SWITCHED=${s.levelSwitched} FRAG_LOADED=${s.fragLoaded} FRAG_BUFFERED=${s.fragBuffered} resize=${s.resizeNeeded ? s.resized : 'n/a'})` : '');
        }
      }
      if (code === 0 && result.quality && result.quality.totalVideoFrames === 0) {
        code = 1;
        reason = 'no video frame was decoded (getVideoPlaybackQuality().totalVideoFrames = 0)';
      }
    }
    result.reason = reason;
    return code;
  } catch (e) {
    result.reason = 'setup: ' + (e && e.message ? e.message.split('\n')[0] : String(e));
    return 2;
  } finally {
    clearTimeout(timer);
    clearTimeout(failTimer);
    if (browser) await browser.close().catch(() => {});
    if (server) {
      server.closeAllConnections?.();
      await new Promise((r) => server.close(() => r()));
    }
    result.requests = requests.length;
    result.rangeRequests = requests.filter((r) => r.status === 206).length;
    result.http404 = requests.filter((r) => r.status === 404).map((r) => r.url);
  }
}

const code = await main().catch((e) => {
  result.reason = 'internal: ' + (e && e.stack ? e.stack : String(e));
  return 2;
});
result.exitCode = code;
result.ok = code === 0;
result.elapsedMs = Date.now() - started;
if (!result.ok) log(`player: FAIL (exit ${code}): ${result.reason}`);
else log(`player: OK: played ${result.currentTime} s of ${result.duration} s to 'ended'; ${result.switches.filter((s) => s.confirmed).length} switch(es) confirmed; ${result.errors.length} tolerated error event(s); ${result.elapsedMs} ms`);
log('PLAYER-RESULT ' + JSON.stringify(result));
process.exitCode = code;
