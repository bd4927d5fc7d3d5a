// Browser side of tests/player/play-shaka.mjs (a classic script served to
// headless Chromium next to Shaka Player's compiled build). It plays one
// manifest (DASH or HLS) with Shaka Player in a muted <video> and reports to
// Node through window.__ladderReport(kind, data); play-shaka.mjs decides.
//
// With config.switch it switches twice by hand (ABR off): to the variant
// farthest in height from the one playing, then to a third one (or back),
// each with selectVariantTrack(track, clearBuffer = true). A switch counts
// as confirmed when Shaka reports the variant active and the <video>
// element fired 'resize' with its width x height (the decoder really output
// pictures of the new representation).
//
// With config.subtitles it shows the first text track Shaka lists and, at
// 'ended', reports the cues the <video> element's text tracks hold (Shaka's
// native text displayer puts them there).
(function () {
  'use strict';
  const C = window.LADDER_PLAYER_CONFIG || {};
  function report(kind, data) {
    try {
      window.__ladderReport({ kind, data: data === undefined ? null : JSON.parse(JSON.stringify(data)) });
    } catch (e) {
      console.error('ladder player: report failed', e);
    }
  }
  window.addEventListener('error', (e) => report('pageError', { message: String(e.message) }));
  window.addEventListener('unhandledrejection', (e) =>
    report('pageError', { message: 'unhandled rejection: ' + String(e.reason && (e.reason.message || e.reason.code) || e.reason) }));

  if (!window.shaka || !window.shaka.Player) {
    report('setupError', { message: 'Shaka Player did not load' });
    return;
  }
  shaka.polyfill.installAll();
  report('shakaInfo', { version: shaka.Player.version, supported: shaka.Player.isBrowserSupported(), userAgent: navigator.userAgent });
  if (!shaka.Player.isBrowserSupported()) {
    report('setupError', { message: 'shaka.Player.isBrowserSupported() is false in this browser' });
    return;
  }

  const video = document.getElementById('video');
  video.muted = true;
  const player = new shaka.Player();
  const describe = (t) => ({ id: t.id, videoId: t.videoId, width: t.width, height: t.height, bandwidth: t.bandwidth,
                             videoCodec: t.videoCodec, audioCodec: t.audioCodec, language: t.language,
                             channels: t.channelsCount, active: t.active });
  player.addEventListener('error', (e) => {
    const d = e.detail || {};
    report('shakaError', { code: d.code, category: d.category, severity: d.severity, data: String(d.data) });
  });

  // Shaka logs a key it does not know and returns false: a setting the
  // check relies on that this Shaka version ignores fails the check.
  function configure(config) {
    if (!player.configure(config)) report('configRejected', { config: JSON.stringify(config) });
  }

  const switches = [];
  let pending = null;
  function confirmIfDone() {
    if (!pending || !pending.active || !pending.resized) return;
    switches.push({ to: pending.to, atMs: Math.round(performance.now()), currentTime: video.currentTime });
    report('switched', pending.to);
    pending = null;
    if (switches.length === 1) setTimeout(() => requestSwitch(1), 300);
  }
  video.addEventListener('resize', () => {
    if (pending && video.videoWidth === pending.to.width && video.videoHeight === pending.to.height) {
      pending.resized = true;
      confirmIfDone();
    }
  });
  player.addEventListener('variantchanged', () => {
    const active = player.getVariantTracks().find((t) => t.active);
    if (pending && active && active.id === pending.to.id) {
      pending.active = true;
      confirmIfDone();
    }
  });
  function requestSwitch(n) {
    const tracks = player.getVariantTracks();
    const active = tracks.find((t) => t.active);
    if (!active || tracks.length < 2) return;
    let target;
    if (n === 0) {
      target = tracks.reduce((a, b) => (Math.abs(b.height - active.height) > Math.abs(a.height - active.height) ? b : a));
    } else {
      const first = switches[0] ? switches[0].to.id : null;
      target = tracks.find((t) => t.id !== active.id && t.id !== first && t.height !== active.height) ||
               tracks.find((t) => t.id !== active.id);
    }
    pending = { to: describe(target), active: false, resized: video.videoHeight === target.height && video.videoWidth === target.width };
    report('switchRequested', pending.to);
    configure({ abr: { enabled: false } });
    player.selectVariantTrack(target, true);
  }

  function textCues() {
    const out = [];
    for (let i = 0; i < video.textTracks.length; i++) {
      const tt = video.textTracks[i];
      const cues = [];
      for (let j = 0; tt.cues && j < tt.cues.length; j++)
        cues.push({ start: Math.round(tt.cues[j].startTime * 1000) / 1000, end: Math.round(tt.cues[j].endTime * 1000) / 1000,
                    text: tt.cues[j].text });
      out.push({ label: tt.label, language: tt.language, mode: tt.mode, cues });
    }
    return out;
  }
  // What Shaka's SourceBuffers hold, audio and video apart (the <video>'s
  // buffered is their intersection).
  function trackBuffered() {
    const info = player.getBufferedInfo();
    const out = {};
    for (const type of ['audio', 'video']) out[type] = (info[type] || []).map((r) => [r.start, r.end]);
    return out;
  }
  // The end of the stream, once (end-watch.js).
  window.__ladderWatchEnd(video, (endedBy) => report('ended', {
    endedBy, currentTime: video.currentTime, duration: video.duration, switches, textTracks: textCues(),
    trackBuffered: trackBuffered(),
  }));
  (async () => {
    try {
      await player.attach(video);
      if (C.switch) configure({ abr: { enabled: false } });
      await player.load(C.src);
      const texts = player.getTextTracks();
      report('loaded', { tracks: player.getVariantTracks().map(describe), duration: video.duration,
                         textTracks: texts.map((t) => ({ id: t.id, language: t.language, label: t.label, kind: t.kind,
                                                         forced: !!t.forced, mimeType: t.mimeType })) });
      // Shaka 5 has neither setTextTrackVisibility nor
      // streaming.alwaysStreamText (5.2 rejects the key): selectTextTrack
      // streams the track and shows it, and its cues go to the <video>
      // element's text track (native displayer).
      if (C.subtitles && texts.length) player.selectTextTrack(texts[0]);
      video.playbackRate = C.rate || 4;
      await video.play();
      if (C.switch) setTimeout(() => requestSwitch(0), 500);
    } catch (e) {
      report('shakaError', { code: e.code, category: e.category, severity: e.severity, data: String(e.data || e.message) });
    }
  })();
})();
