#!/usr/bin/env node
// A second DASH client for ladder's output: dash.js (npm `dashjs`, pinned
// by package-lock.json), the DASH Industry Forum's reference player, in
// headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core)
// plays the DASH manifest served from DIR on 127.0.0.1 to the end.
//
//   node tests/player/play-dashjs.mjs DIR [--manifest manifest.mpd] [--switch]
//                                     [--audio-language LANG] [--subtitles]
//                                     [--rate 4] [--timeout-ms 90000]
//
// --switch: two manual switches of video representation (ABR off).
// --audio-language LANG: once playback runs, switch to the first audio track
//   of language LANG (as the MPD's lang writes it); confirmed by dash.js's
//   TRACK_CHANGE_RENDERED and an audio segment of LANG loaded.
// --subtitles: the text track of the MPD's first text AdaptationSet is chosen
//   (its lang) and the result's `textTracks` holds the <video> element's text
//   tracks with their cues at 'ended'.
//
// Passes (exit 0) when the <video> fired 'ended', dash.js reported no error,
// no request got an HTTP error, dash.js lists as many video representations
// as the manifest has, video frames were decoded, and what was asked for
// (switches, audio language) was confirmed before the end
// (tests/player/dashjs-page.js). Exit 1: playback failed; 2: usage or setup.
// The last line of stdout is always PLAYER-RESULT {json}.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { browserSetup } from './browser-setup.mjs';
import { firstTextLanguage, videoRepresentationCount } from './mpd-facts.mjs';
import { startServer } from './static-server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PREFIX = '/__ladder_player__/';
const result = { ok: false, exitCode: 2, reason: null, player: 'dash.js', manifest: null, dashjsVersion: null,
                 browserVersion: null, expectedRepresentations: null, representations: [], audioTracks: [],
                 audioTrack: null, textLanguage: null, dashjsTextTracks: [], switches: [], audioSwitch: null,
                 errors: [], ended: false, currentTime: null, duration: null, quality: null, textTracks: [],
                 consoleWarnings: [] };
const log = (line) => process.stdout.write(line + '\n');

function parseArgs(argv) {
  const o = { dir: null, manifest: 'manifest.mpd', switch: false, audioLanguage: null, subtitles: false, rate: 4,
              timeoutMs: 90000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(a + ' needs a value');
      return argv[++i];
    };
    if (a === '--manifest') o.manifest = val();
    else if (a === '--switch') o.switch = true;
    else if (a === '--audio-language') o.audioLanguage = val();
    else if (a === '--subtitles') o.subtitles = true;
    else if (a === '--rate') o.rate = Number(val());
    else if (a === '--timeout-ms') o.timeoutMs = Number(val());
    else if (a.startsWith('-')) throw new Error('unknown option ' + a);
    else if (o.dir === null) o.dir = a;
    else throw new Error('unexpected argument ' + a);
  }
  if (o.dir === null) throw new Error('DIR is required');
  if (!Number.isFinite(o.timeoutMs) || o.timeoutMs <= 0) throw new Error('--timeout-ms must be a positive number');
  if (!Number.isFinite(o.rate) || o.rate <= 0 || o.rate > 16) throw new Error('--rate must be in (0, 16]');
  return o;
}

function testPage(src, opts, textLanguage) {
  const config = { src, switch: opts.switch, audioLanguage: opts.audioLanguage, textLanguage, rate: opts.rate };
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>ladder dash.js check</title></head>
<body>
<video id="video" muted playsinline width="640" height="360"></video>
<script src="${PREFIX}dash.js"></script>
<script>window.LADDER_PLAYER_CONFIG = ${JSON.stringify(config).replace(/</g, '\\u003c')};</script>
<script src="${PREFIX}end-watch.js"></script>
<script src="${PREFIX}dashjs-page.js"></script>
</body></html>
`;
}

// What must hold once 'ended' fired: null, or the reason it failed.
function endFailure(opts) {
  if (result.representations.length !== result.expectedRepresentations)
    return `the manifest has ${result.expectedRepresentations} video representations but dash.js lists ${result.representations.length}`;
  if (opts.switch && result.switches.length < 2)
    return `only ${result.switches.length} of 2 representation switches confirmed before the end`;
  if (opts.audioLanguage) {
    const s = result.audioSwitch;
    if (!s || !s.to) return `dash.js lists no other audio track in ${opts.audioLanguage}`;
    if (!s.confirmed)
      return `the switch to audio in ${opts.audioLanguage} was not confirmed before the end (TRACK_CHANGE_RENDERED=${s.rendered} segment loaded=${s.segmentLoaded})`;
  }
  if (result.quality && result.quality.totalVideoFrames === 0) return 'no video frame was decoded';
  return null;
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    result.reason = 'usage: ' + e.message;
    return 2;
  }
  const root = path.resolve(opts.dir);
  const manifestRel = opts.manifest.replace(/^\/+/, '');
  const manifestPath = path.join(root, manifestRel);
  result.manifest = manifestPath;
  if (!fs.existsSync(manifestPath)) {
    result.reason = `setup: ${manifestPath} not found`;
    return 2;
  }
  const mpd = fs.readFileSync(manifestPath, 'utf8');
  result.expectedRepresentations = videoRepresentationCount(mpd);
  if (opts.subtitles) {
    result.textLanguage = firstTextLanguage(mpd);
    if (!result.textLanguage) {
      result.reason = `setup: --subtitles but ${manifestRel} has no text AdaptationSet with a lang`;
      return 2;
    }
  }
  const setup = await browserSetup('dashjs');
  if (setup.error) {
    result.reason = setup.error;
    return 2;
  }
  const { chromium, executablePath, libraryFile: dashFile } = setup;
  const src = '/' + manifestRel.split('/').map(encodeURIComponent).join('/');
  const files = { 'index.html': testPage(src, opts, result.textLanguage), 'dash.js': dashFile,
                  'dashjs-page.js': path.join(HERE, 'dashjs-page.js'), 'end-watch.js': path.join(HERE, 'end-watch.js') };

  let finish;
  const done = new Promise((resolve) => { finish = resolve; });
  const end = (code, reason) => finish({ code, reason });
  const fail = (e) => {
    result.errors.push(e);
    log(`player: ERROR ${JSON.stringify(e)}`);
    end(1, `${e.type}: ${e.reason}`);
  };
  let server = null;
  let browser = null;
  try {
    server = await startServer(root, files, [], (entry) =>
      fail({ type: 'http', reason: `HTTP ${entry.status} for ${entry.method} ${entry.url}` }), PREFIX);
    const pageUrl = `http://127.0.0.1:${server.address().port}${PREFIX}index.html`;
    try {
      browser = await chromium.launch({ executablePath, headless: true, timeout: 30000,
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
               '--disable-component-update', '--disable-sync', '--autoplay-policy=no-user-gesture-required',
               '--mute-audio'] });
    } catch (e) {
      result.reason = `setup: cannot launch ${executablePath}: ${e.message.split('\n')[0]}`;
      return 2;
    }
    result.browserVersion = browser.version();
    const page = await (await browser.newContext()).newPage();
    page.on('pageerror', (err) => fail({ type: 'page', reason: err.message }));
    page.on('crash', () => end(1, 'the page crashed'));
    page.on('console', (msg) => {
      if (msg.type() === 'error') log(`player: [console.error] ${msg.text()}`);
      if (msg.type() === 'warning') {
        result.consoleWarnings.push(msg.text());
        log(`player: [console.warn] ${msg.text()}`);
      }
    });
    await page.exposeFunction('__ladderReport', (msg) => onReport(msg, opts, end, fail));
    const timer = setTimeout(() => end(1, `timeout after ${opts.timeoutMs} ms without 'ended'`), opts.timeoutMs);
    await page.goto(pageUrl, { waitUntil: 'load', timeout: 30000 });
    const outcome = await done;
    clearTimeout(timer);
    if (outcome.code !== 0) await takeSnapshot(page);
    result.reason = outcome.reason;
    return outcome.code;
  } catch (e) {
    result.reason = 'setup: ' + e.message.split('\n')[0];
    return 2;
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (server) {
      server.closeAllConnections?.();
      await new Promise((r) => server.close(() => r()));
    }
  }
}

// The page's state when the check failed (e.g. where a timeout found the
// playhead and the buffers), into the result and the log.
async function takeSnapshot(page) {
  try {
    result.finalState = await page.evaluate(() => (window.__ladderSnapshot ? window.__ladderSnapshot() : null));
    if (result.finalState) log(`player: state at the end: ${JSON.stringify(result.finalState)}`);
  } catch {
    // the page is gone (crash): the events tell what there is
  }
}

function onReport(msg, opts, end, fail) {
  const d = msg.data || {};
  switch (msg.kind) {
    case 'dashjsInfo':
      result.dashjsVersion = d.version;
      log(`player: dash.js ${d.version} in ${result.browserVersion}; MSE: ${d.supported}`);
      break;
    case 'setupError':
      end(2, 'setup: ' + d.message);
      break;
    case 'pageError':
      fail({ type: 'page', reason: d.message });
      break;
    case 'dashjsError':
      fail({ type: 'dash.js', reason: `error ${d.code}: ${d.message}${d.data ? ' (' + d.data + ')' : ''} at t=${d.at}` });
      break;
    case 'videoError':
      fail({ type: 'video', reason: `MediaError ${d.code}: ${d.message}` });
      break;
    case 'loaded':
      result.representations = d.representations;
      result.audioTracks = d.audioTracks;
      result.audioTrack = d.audioTrack;
      result.dashjsTextTracks = d.textTracks;
      log(`player: stream initialized: ${d.representations.length} video representation(s), ` +
        `${d.audioTracks.length} audio track(s), ${d.textTracks.length} text track(s); duration ${d.duration}`);
      for (const r of d.representations) log(`  video ${r.id}: ${r.width}x${r.height} ${Math.round(r.bandwidth / 1000)} kb/s ${r.codecs}`);
      for (const a of d.audioTracks) log(`  audio ${a.id}: ${a.lang} "${a.labels.join('/')}" ${a.channels} ch, roles ${a.roles.join(',')}`);
      for (const x of d.textTracks) log(`  text ${x.id}: ${x.lang} "${x.labels.join('/')}", roles ${x.roles.join(',')}`);
      if (d.textTrack) log(`player: text track chosen: ${d.textTrack.lang}`);
      break;
    case 'switchRequested':
      log(`player: switch #${d.n} ${d.from} -> ${d.to.id} (${d.to.width}x${d.to.height}) requested at t=${d.requestedAtTime}`);
      break;
    case 'switched':
      result.switches.push(d);
      log(`player: switch to ${d.to.width}x${d.to.height} confirmed at t=${d.confirmedAtTime} (QUALITY_CHANGE_RENDERED, video resized)`);
      break;
    case 'switchImpossible':
      fail({ type: 'player', reason: `--switch needs 2 video representations, dash.js lists ${d.representations}` });
      break;
    case 'audioSwitchRequested':
      result.audioSwitch = d;
      log(`player: audio switch ${d.from ? d.from.lang : '-'} -> ${d.to ? d.to.lang + ' (' + d.to.id + ')' : 'none'} requested at t=${d.requestedAtTime}`);
      break;
    case 'audioSwitchConfirmed':
      result.audioSwitch = d;
      log(`player: audio switch to ${d.to.lang} confirmed at t=${d.confirmedAtTime} (TRACK_CHANGE_RENDERED, audio segment loaded)`);
      break;
    case 'rate':
      log(`player: playbackRate ${d.playbackRate} from t=${d.at}`);
      break;
    case 'progress':
      log(`player: t=${d.currentTime} buffered ${JSON.stringify(d.buffered)}`);
      break;
    case 'waiting':
      log(`player: waiting at t=${d.at}, buffered ${JSON.stringify(d.buffered)}`);
      break;
    case 'bufferEmpty':
      log(`player: dash.js ${d.mediaType} buffer empty at t=${d.at}`);
      break;
    case 'ended':
      result.ended = true;
      result.currentTime = d.currentTime;
      result.duration = d.duration;
      result.quality = d.quality;
      result.audioSwitch = d.audioSwitch || result.audioSwitch;
      result.textTracks = d.textTracks || [];
      for (const tt of result.textTracks)
        log(`player: text track "${tt.label}" (${tt.language}, ${tt.mode}): ${tt.cues.length} cue(s)`);
      log(`player: video ended (${d.endedBy}) at t=${d.currentTime} of ${d.duration}; frames ${JSON.stringify(d.quality)}`);
      {
        const why = endFailure(opts);
        end(why ? 1 : 0, why);
      }
      break;
    default:
      if (process.env.LADDER_PLAYER_VERBOSE) log(`player: ${msg.kind} ${JSON.stringify(d)}`);
      break;
  }
}

const code = await main().catch((e) => {
  result.reason = 'internal: ' + (e && e.stack ? e.stack : String(e));
  return 2;
});
result.exitCode = code;
result.ok = code === 0;
log(result.ok ? `player: OK: dash.js played ${result.currentTime} s of ${result.duration} s to 'ended'`
  : `player: FAIL (exit ${code}): ${result.reason}`);
log('PLAYER-RESULT ' + JSON.stringify(result));
process.exit(code);
