// Browser side of tests/player/play.mjs (a classic script, served to headless
// Chromium next to hls.js; Node never imports it). It plays one HLS master
// playlist with hls.js in a muted <video> and reports everything that matters
// to Node through window.__ladderReport(kind, data), which play.mjs installs
// with page.exposeFunction(). play.mjs decides pass/fail from these reports.
//
// With config.switch it also drives two manual level switches:
//   1. hls.currentLevel = A (immediate switch: hls.js flushes the buffer), where
//      A is the lowest level if the playing one is the highest, else the highest;
//   2. hls.nextLevel = B (smooth switch at the next fragment), where B is a level
//      that is neither A nor the first one when there are >= 3 levels, else the
//      first one again.
// A switch counts as confirmed when, after the request, hls.js fired
// LEVEL_SWITCHED for that level, FRAG_LOADED and FRAG_BUFFERED for a main
// fragment of that level, and (when the two levels differ in RESOLUTION) the
// <video> element fired 'resize' with the target level's width x height, i.e.
// the decoder really output pictures of the new rendition (the element's size
// is the display size, so it may differ from RESOLUTION by the pixel aspect
// ratio: 2 % is accepted and play.mjs prints a warning).
//
// ABR is off: the page pins the level hls.js starts with, so every level
// switch is one the page asked for.
//
// With config.audioSwitch it switches the audio track once (hls.audioTrack =
// a track of another language) and confirms it by AUDIO_TRACK_SWITCHED and a
// buffered audio fragment of that track. With config.subtitles it turns the
// first subtitle track on and reports the cues the <video> element's text
// tracks hold when playback ends.
(function () {
  'use strict';
  const C = window.LADDER_PLAYER_CONFIG || {};
  let seq = 0;
  function report(kind, data) {
    const msg = {
      seq: seq++,
      wallMs: Math.round(performance.now()),
      kind,
      data: data === undefined ? null : JSON.parse(JSON.stringify(data)),
    };
    try {
      window.__ladderReport(msg);
    } catch (e) {
      console.error('ladder player: report failed', e);
    }
  }
  window.addEventListener('error', (e) => report('pageError', { message: String(e.message) }));
  window.addEventListener('unhandledrejection', (e) =>
    report('pageError', { message: 'unhandled rejection: ' + String(e.reason && e.reason.message || e.reason) }));

  if (typeof window.Hls !== 'function') {
    report('setupError', { message: 'hls.js did not load' });
    return;
  }
  const Hls = window.Hls;
  const E = Hls.Events;
  report('hlsInfo', {
    version: Hls.version,
    mseSupported: Hls.isMSESupported(),
    userAgent: navigator.userAgent,
  });
  if (!Hls.isMSESupported()) {
    report('setupError', { message: 'Hls.isMSESupported() is false in this browser' });
    return;
  }

  const video = document.getElementById('video');
  video.muted = true;
  video.autoplay = false;
  video.playsInline = true;

  const hls = new Hls({ debug: false, enableWorker: true });
  window.__hls = hls;

  const t = () => Math.round(video.currentTime * 1000) / 1000;
  function mimeSupported(codec) {
    if (!codec) return null;
    return MediaSource.isTypeSupported('video/mp4; codecs="' + codec + '"');
  }
  function describeLevel(l, i) {
    return {
      index: i,
      width: l.width || 0,
      height: l.height || 0,
      bitrate: l.bitrate || 0,
      averageBitrate: l.averageBitrate || 0,
      codecs: (l.attrs && l.attrs.CODECS) || null,
      videoCodec: l.videoCodec || null,
      audioCodec: l.audioCodec || null,
      frameRate: l.frameRate || 0,
      videoRange: l.videoRange || null,
      audioGroups: l.audioGroups || null,
      url: l.url || (l.uri || null),
      videoCodecSupported: mimeSupported(l.videoCodec),
    };
  }
  function frag(data) {
    const f = data.frag || {};
    return {
      type: f.type,
      level: f.level,
      sn: f.sn,
      start: Math.round((f.start || 0) * 1000) / 1000,
      duration: Math.round((f.duration || 0) * 1000) / 1000,
      url: f.relurl || f.url || null,
    };
  }

  // ---- switch driver -------------------------------------------------------
  const sw = {
    phase: 0, // 0 waiting to request #1, 1 waiting for #1, 2 waiting to request #2, 3 waiting for #2, 4 done
    requests: [],
    firstFragBuffered: false,
  };
  function bitrateOrder() {
    return hls.levels.map((l, i) => ({ i, b: l.bitrate || 0, h: l.height || 0 }))
      .sort((a, b) => a.b - b.b || a.h - b.h)
      .map((x) => x.i);
  }
  function request(n, method, to) {
    const from = hls.currentLevel;
    const r = {
      n, method, from, to,
      requestedAtTime: t(), requestedAtMs: Math.round(performance.now()),
      levelSwitched: false, fragLoaded: false, fragBuffered: false,
      resizeNeeded: false, resized: false, displayedAs: null, confirmed: false, confirmedAtTime: null,
    };
    const a = hls.levels[from];
    const b = hls.levels[to];
    r.resizeNeeded = !!(a && b && b.width > 0 && b.height > 0 && (a.width !== b.width || a.height !== b.height));
    sw.requests.push(r);
    report('switchRequested', r);
    if (method === 'currentLevel') hls.currentLevel = to;
    else hls.nextLevel = to;
  }
  function pending() {
    const r = sw.requests[sw.requests.length - 1];
    return r && !r.confirmed ? r : null;
  }
  function checkConfirmed() {
    const r = pending();
    if (!r) return;
    if (r.levelSwitched && r.fragLoaded && r.fragBuffered && (!r.resizeNeeded || r.resized)) {
      r.confirmed = true;
      r.confirmedAtTime = t();
      report('switchConfirmed', r);
      sw.phase += 1;
      if (sw.phase === 4) setRate();
    }
  }
  // ---- audio track switch ---------------------------------------------------
  const asw = { request: null, done: false };
  function driveAudioSwitch() {
    if (!C.audioSwitch || asw.request || !sw.firstFragBuffered || video.currentTime <= 0.5) return;
    const tracks = hls.audioTracks || [];
    const cur = hls.audioTrack;
    const from = tracks[cur];
    const to = tracks.findIndex((a, i) => i !== cur && (!from || a.lang !== from.lang));
    asw.request = {
      from: cur, to, fromLang: from ? from.lang : null, toLang: to >= 0 ? tracks[to].lang : null,
      toName: to >= 0 ? tracks[to].name : null, requestedAtTime: t(),
      switched: false, fragBuffered: false, confirmed: false, confirmedAtTime: null,
    };
    report('audioSwitchRequested', asw.request);
    if (to < 0) {
      asw.done = true;
      setRate();
      return;
    }
    hls.audioTrack = to;
  }
  function checkAudioSwitch() {
    const r = asw.request;
    if (!r || r.confirmed || !r.switched || !r.fragBuffered) return;
    r.confirmed = true;
    r.confirmedAtTime = t();
    asw.done = true;
    report('audioSwitchConfirmed', r);
    setRate();
  }
  function textTracks() {
    const out = [];
    for (let i = 0; i < video.textTracks.length; i++) {
      const tt = video.textTracks[i];
      const cues = [];
      for (let j = 0; tt.cues && j < tt.cues.length; j++) {
        const c = tt.cues[j];
        // shown: what the browser's WebVTT cue text parser makes of the
        // text (character references read, tags gone), as it displays it.
        const shown = typeof c.getCueAsHTML === 'function' ? c.getCueAsHTML().textContent : null;
        cues.push({ start: Math.round(c.startTime * 1000) / 1000, end: Math.round(c.endTime * 1000) / 1000, text: c.text,
                    shown });
      }
      out.push({ label: tt.label, language: tt.language, kind: tt.kind, mode: tt.mode, cues });
    }
    return out;
  }

  function driveSwitches() {
    driveAudioSwitch();
    if (!C.switch) return;
    const n = hls.levels.length;
    if (sw.phase === 0) {
      if (n < 2) {
        sw.phase = 4;
        report('switchImpossible', { levels: n });
        setRate();
        return;
      }
      const cur = hls.currentLevel;
      if (!sw.firstFragBuffered || cur < 0 || video.currentTime <= 0.5) return;
      const order = bitrateOrder();
      const highest = order[order.length - 1];
      const lowest = order[0];
      sw.phase = 1;
      request(1, 'currentLevel', cur === highest ? lowest : highest);
    } else if (sw.phase === 2) {
      const first = sw.requests[0];
      if (video.currentTime < first.confirmedAtTime + 0.5) return;
      let to = first.from;
      if (n >= 3) {
        // a level that was neither played first nor switched to: take the middle one by bitrate
        const others = bitrateOrder().filter((i) => i !== first.from && i !== first.to);
        to = others[Math.floor((others.length - 1) / 2)];
      }
      sw.phase = 3;
      request(2, 'nextLevel', to);
    }
  }
  let rateSet = false;
  function setRate() {
    if (rateSet) return;
    rateSet = true;
    const rate = Number(C.rate) || 1;
    if (rate !== 1) video.playbackRate = rate;
    report('rate', { playbackRate: video.playbackRate, at: t() });
  }

  // ---- hls.js events ---------------------------------------------------------
  hls.on(E.MANIFEST_PARSED, (_ev, data) => {
    report('manifestParsed', {
      levels: hls.levels.map(describeLevel),
      audioTracks: (hls.allAudioTracks || data.audioTracks || []).map((a) => ({
        id: a.id, name: a.name, groupId: a.groupId, lang: a.lang || null,
        default: !!a.default, autoselect: !!a.autoselect, audioCodec: a.audioCodec || null,
        channels: (a.attrs && a.attrs.CHANNELS) || null, url: a.url || null,
      })),
      firstLevel: hls.firstLevel,
      startLevel: hls.startLevel,
      subtitleTracks: (hls.allSubtitleTracks || data.subtitleTracks || []).map((s) => ({
        id: s.id, name: s.name, groupId: s.groupId, lang: s.lang || null, default: !!s.default,
        forced: !!s.forced, autoselect: !!s.autoselect, url: s.url || null,
      })),
    });
    pinStartLevel();
    const p = video.play();
    if (p && p.catch) p.catch((e) => report('playRejected', { message: String(e && e.message || e) }));
  });
  // ABR off from the start, on the level hls.js chose to start with: hls.js
  // then changes level (and with it the audio group) only when this page
  // asks. An ABR switch cancels the fragment in flight with a non-fatal
  // 'aborted' error that play.mjs does not tolerate outside a switch it
  // requested (switch-aborts.mjs); a run failed on one when ABR moved to
  // the variant of another audio group at start-up.
  function pinStartLevel() {
    const level = hls.loadLevel >= 0 ? hls.loadLevel : hls.startLevel;
    if (level < 0 || level >= hls.levels.length) return;
    hls.loadLevel = level;
    report('levelPinned', { level, autoLevelEnabled: hls.autoLevelEnabled });
  }
  // The subtitle track is chosen once hls.js has listed the tracks of the
  // playing level (earlier, the choice is dropped).
  let subtitlesOn = false;
  hls.on(E.SUBTITLE_TRACKS_UPDATED, (_ev, data) => {
    report('subtitleTracksUpdated', { count: (data.subtitleTracks || []).length });
    if (!C.subtitles || subtitlesOn || !(data.subtitleTracks || []).length) return;
    subtitlesOn = true;
    hls.subtitleDisplay = true;
    hls.subtitleTrack = 0;
  });
  hls.on(E.BUFFER_CODECS, (_ev, data) => {
    const out = {};
    for (const k of Object.keys(data.tracks || {})) {
      const tr = data.tracks[k];
      out[k] = { container: tr.container, codec: tr.codec, levelCodec: tr.levelCodec || null };
    }
    report('bufferCodecs', out);
  });
  hls.on(E.FRAG_PARSING_INIT_SEGMENT, (_ev, data) => {
    const f = data.frag || {};
    const tracks = {};
    for (const k of Object.keys(data.tracks || {})) {
      const tr = data.tracks[k];
      tracks[k] = { codec: tr.codec || null, levelCodec: tr.levelCodec || null, container: tr.container || null };
    }
    report('initSegment', { type: f.type, level: f.level, url: f.relurl || f.url || null, tracks });
  });
  hls.on(E.LEVEL_SWITCHED, (_ev, data) => {
    report('levelSwitched', { level: data.level, at: t() });
    const r = pending();
    if (r && data.level === r.to) { r.levelSwitched = true; checkConfirmed(); }
  });
  hls.on(E.FRAG_LOADED, (_ev, data) => {
    const f = frag(data);
    report('fragLoaded', f);
    const r = pending();
    if (r && f.type === 'main' && f.level === r.to) { r.fragLoaded = true; checkConfirmed(); }
  });
  hls.on(E.FRAG_BUFFERED, (_ev, data) => {
    const f = frag(data);
    report('fragBuffered', f);
    if (f.type === 'main') sw.firstFragBuffered = true;
    const r = pending();
    if (r && f.type === 'main' && f.level === r.to) { r.fragBuffered = true; checkConfirmed(); }
  });
  hls.on(E.AUDIO_TRACK_SWITCHED, (_ev, data) => {
    report('audioTrackSwitched', { id: data.id });
    const r = asw.request;
    if (r && data.id === r.to) { r.switched = true; checkAudioSwitch(); }
  });
  hls.on(E.FRAG_BUFFERED, (_ev, data) => {
    const f = frag(data);
    const r = asw.request;
    if (r && f.type === 'audio' && f.level === r.to) { r.fragBuffered = true; checkAudioSwitch(); }
  });
  // What each SourceBuffer holds (audio and video apart; the <video>'s
  // buffered is their intersection), as of the last append.
  const trackBuffered = {};
  hls.on(E.BUFFER_APPENDED, (_ev, data) => {
    for (const [type, ranges] of Object.entries(data.timeRanges || {})) {
      if (!ranges) continue;
      const out = [];
      for (let i = 0; i < ranges.length; i++) out.push([ranges.start(i), ranges.end(i)]);
      trackBuffered[type] = out;
    }
  });
  hls.on(E.MEDIA_ENDED, (_ev, data) => report('hlsMediaEnded', { stalled: !!(data && data.stalled), at: t() }));
  hls.on(E.ERROR, (_ev, data) => {
    const ctx = data.context || {};
    report('hlsError', {
      type: data.type,
      details: data.details,
      fatal: !!data.fatal,
      reason: data.reason || (data.error && data.error.message) || null,
      url: (data.frag && (data.frag.relurl || data.frag.url)) || data.url || ctx.url || null,
      level: data.level !== undefined ? data.level : (data.frag ? data.frag.level : null),
      httpCode: data.response ? data.response.code : null,
      at: t(),
    });
  });

  // ---- <video> events --------------------------------------------------------
  let lastReported = -1;
  video.addEventListener('timeupdate', () => {
    if (Math.abs(video.currentTime - lastReported) >= 1 || lastReported < 0) {
      lastReported = video.currentTime;
      report('progress', { currentTime: t(), duration: video.duration, buffered: bufferedRanges() });
    }
    driveSwitches();
  });
  function bufferedRanges() {
    const out = [];
    for (let i = 0; i < video.buffered.length; i++) {
      out.push([Math.round(video.buffered.start(i) * 1000) / 1000, Math.round(video.buffered.end(i) * 1000) / 1000]);
    }
    return out;
  }
  function quality() {
    const q = video.getVideoPlaybackQuality ? video.getVideoPlaybackQuality() : null;
    return q ? { totalVideoFrames: q.totalVideoFrames, droppedVideoFrames: q.droppedVideoFrames } : null;
  }
  video.addEventListener('playing', () => {
    report('playing', { at: t() });
    if (!C.switch && !C.audioSwitch) setRate();
  });
  video.addEventListener('waiting', () => report('waiting', { at: t() }));
  video.addEventListener('resize', () => {
    report('resize', { width: video.videoWidth, height: video.videoHeight, at: t() });
    const r = pending();
    const lv = r && hls.levels[r.to];
    if (r && lv && sizeMatches(video.videoWidth, video.videoHeight, lv)) {
      r.resized = true;
      r.displayedAs = video.videoWidth + 'x' + video.videoHeight;
      checkConfirmed();
    }
  });
  // The element reports the display size (pixel aspect ratio applied), so a
  // level whose pixels are not square shows up a little off its RESOLUTION:
  // accept 2 % (at least 2 px) here; play.mjs warns about any inexact match.
  function sizeMatches(w, h, lv) {
    const near = (a, b) => Math.abs(a - b) <= Math.max(2, 0.02 * b);
    return near(w, lv.width) && near(h, lv.height);
  }
  video.addEventListener('durationchange', () => report('durationchange', { duration: video.duration }));
  // The end of the stream, once (end-watch.js).
  window.__ladderWatchEnd(video, (endedBy) => report('ended', {
    endedBy,
    currentTime: video.currentTime, duration: video.duration, buffered: bufferedRanges(),
    quality: quality(), videoWidth: video.videoWidth, videoHeight: video.videoHeight,
    textTracks: textTracks(), trackBuffered,
  }));
  video.addEventListener('error', () => {
    const err = video.error;
    report('videoError', { code: err ? err.code : null, message: err ? err.message : null, at: t() });
  });

  // Snapshot on demand (play.mjs calls this before closing, e.g. on timeout).
  window.__ladderSnapshot = () => ({
    currentTime: video.currentTime,
    duration: video.duration,
    paused: video.paused,
    ended: video.ended,
    readyState: video.readyState,
    playbackRate: video.playbackRate,
    videoWidth: video.videoWidth,
    videoHeight: video.videoHeight,
    buffered: bufferedRanges(),
    quality: quality(),
    currentLevel: hls.currentLevel,
    switches: sw.requests,
    switchPhase: sw.phase,
    audioSwitch: asw.request,
    textTracks: textTracks(),
  });

  hls.attachMedia(video);
  hls.loadSource(C.src);
  report('started', { src: C.src, switch: !!C.switch, rate: C.rate });
})();
