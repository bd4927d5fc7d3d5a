#!/usr/bin/env node
// A second real client for ladder's output: Shaka Player (npm, pinned by
// package-lock.json) in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core) plays a DASH manifest or an HLS master playlist
// served from DIR on 127.0.0.1 to the end.
//
//   node tests/player/play-shaka.mjs DIR [--manifest manifest.mpd] [--switch]
//                                    [--subtitles] [--rate 4] [--timeout-ms 90000]
//
// --subtitles: the first text track Shaka lists is chosen; the result has
// `shakaTextTracks` (what Shaka read) and `textTracks` (the <video>
// element's text tracks and their cues at 'ended').
// The result's `consoleWarnings` holds what the page logged as warnings
// (Shaka's own, e.g. "Unable to determine bitstream format for CEA parsing!").
//
// Passes (exit 0) when the <video> fired 'ended', Shaka reported no error,
// it listed as many variants as the manifest has video representations (or
// HLS variants), and with --switch both manual switches were confirmed
// (tests/player/shaka-page.js). Exit 1: playback failed; 2: usage or setup.
// The last line of stdout is always PLAYER-RESULT {json}.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { browserSetup } from './browser-setup.mjs';
import { videoRepresentationCount } from './mpd-facts.mjs';
import { startServer } from './static-server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PREFIX = '/__ladder_player__/';
const result = { ok: false, exitCode: 2, reason: null, player: 'shaka', manifest: null, shakaVersion: null,
                 browserVersion: null, expectedVariants: null, tracks: [], switches: [], errors: [], ended: false,
                 currentTime: null, duration: null, consoleWarnings: [] };
const log = (line) => process.stdout.write(line + '\n');

function parseArgs(argv) {
  const o = { dir: null, manifest: 'manifest.mpd', switch: false, subtitles: false, rate: 4, timeoutMs: 90000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (i + 1 >= argv.length) throw new Error(a + ' needs a value');
      return argv[++i];
    };
    if (a === '--manifest') o.manifest = val();
    else if (a === '--switch') o.switch = true;
    else if (a === '--subtitles') o.subtitles = true;
    else if (a === '--rate') o.rate = Number(val());
    else if (a === '--timeout-ms') o.timeoutMs = Number(val());
    else if (a.startsWith('-')) throw new Error('unknown option ' + a);
    else if (o.dir === null) o.dir = a;
    else throw new Error('unexpected argument ' + a);
  }
  if (o.dir === null) throw new Error('DIR is required');
  return o;
}

// Video representations of an MPD, or the video playlists of an HLS master
// (a rung listed once per audio group is one video): the videos the player
// must list. Shaka makes a variant of each video with each audio track, so
// its variants are counted by their video.
function expectedVariants(text, isDash) {
  if (!isDash) {
    const lines = text.split(/\r?\n/);
    const uris = new Set();
    lines.forEach((l, i) => { if (l.startsWith('#EXT-X-STREAM-INF') && i + 1 < lines.length) uris.add(lines[i + 1]); });
    return uris.size;
  }
  return videoRepresentationCount(text);
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
  result.expectedVariants = expectedVariants(fs.readFileSync(manifestPath, 'utf8'), manifestRel.endsWith('.mpd'));
  const setup = await browserSetup('shaka-player/dist/shaka-player.compiled.js');
  if (setup.error) {
    result.reason = setup.error;
    return 2;
  }
  const { chromium, executablePath, libraryFile: shakaFile } = setup;
  const page0 = `<!doctype html>
<html><head><meta charset="utf-8"><title>ladder Shaka check</title></head>
<body>
<video id="video" muted playsinline width="640" height="360"></video>
<script src="${PREFIX}shaka.js"></script>
<script>window.LADDER_PLAYER_CONFIG = ${JSON.stringify({
    src: '/' + manifestRel.split('/').map(encodeURIComponent).join('/'), switch: opts.switch,
    subtitles: opts.subtitles, rate: opts.rate,
  }).replace(/</g, '\\u003c')};</script>
<script src="${PREFIX}end-watch.js"></script>
<script src="${PREFIX}shaka-page.js"></script>
</body></html>
`;
  const files = { 'index.html': page0, 'shaka.js': shakaFile, 'shaka-page.js': path.join(HERE, 'shaka-page.js'), 'end-watch.js': path.join(HERE, 'end-watch.js') };

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
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--autoplay-policy=no-user-gesture-required', '--mute-audio'] });
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
      // Shaka's warnings (shaka.log.alwaysWarn), e.g. about CEA-608 parsing.
      if (msg.type() === 'warning') {
        result.consoleWarnings.push(msg.text());
        log(`player: [console.warn] ${msg.text()}`);
      }
    });
    await page.exposeFunction('__ladderReport', (msg) => {
      const d = msg.data || {};
      switch (msg.kind) {
        case 'shakaInfo':
          result.shakaVersion = d.version;
          log(`player: Shaka Player ${d.version} in ${result.browserVersion}; supported: ${d.supported}`);
          break;
        case 'setupError':
          end(2, 'setup: ' + d.message);
          break;
        case 'pageError':
          fail({ type: 'page', reason: d.message });
          break;
        case 'configRejected':
          end(2, `setup: Shaka ${result.shakaVersion} rejected the configuration ${d.config}`);
          break;
        case 'shakaError':
          fail({ type: 'shaka', reason: `error ${d.code} (category ${d.category}, severity ${d.severity}): ${d.data}` });
          break;
        case 'loaded':
          result.tracks = d.tracks;
          result.shakaTextTracks = d.textTracks || [];
          log(`player: loaded ${manifestRel}: ${d.tracks.length} variant(s), duration ${d.duration}`);
          for (const t of d.tracks) log(`  ${t.width}x${t.height} ${Math.round(t.bandwidth / 1000)} kb/s ${t.videoCodec} ${t.audioCodec || ''}`);
          {
            const videos = new Set(d.tracks.map((t) => t.videoId)).size;
            if (videos !== result.expectedVariants)
              fail({ type: 'player', reason: `the manifest has ${result.expectedVariants} videos but Shaka lists ${videos}` });
          }
          break;
        case 'switchRequested':
          log(`player: switch to ${d.width}x${d.height} requested`);
          break;
        case 'switched':
          result.switches.push(d);
          log(`player: switch to ${d.width}x${d.height} confirmed (active, and the video resized)`);
          break;
        case 'ended':
          result.ended = true;
          result.textTracks = d.textTracks || [];
          for (const tt of result.textTracks)
            log(`player: text track "${tt.label}" (${tt.language}, ${tt.mode}): ${tt.cues.length} cue(s)`);
          result.currentTime = d.currentTime;
          result.duration = d.duration;
          result.trackBuffered = d.trackBuffered || {};
          log(`player: video ended (${d.endedBy}) at t=${d.currentTime} of ${d.duration}; SourceBuffers hold ${JSON.stringify(result.trackBuffered)}`);
          if (opts.switch && result.switches.length < 2)
            end(1, `only ${result.switches.length} of 2 switches confirmed before the end`);
          else end(0, null);
          break;
        default:
          break;
      }
    });
    const timer = setTimeout(() => end(1, `timeout after ${opts.timeoutMs} ms without 'ended'`), opts.timeoutMs);
    await page.goto(pageUrl, { waitUntil: 'load', timeout: 30000 });
    const outcome = await done;
    clearTimeout(timer);
    result.reason = outcome.reason;
    return outcome.code;
  } catch (e) {
    result.reason = 'setup: ' + e.message.split('\n')[0];
    return 2;
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (server) server.close();
  }
}

const code = await main();
result.exitCode = code;
result.ok = code === 0;
log('PLAYER-RESULT ' + JSON.stringify(result));
process.exit(code);
