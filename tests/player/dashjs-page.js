// Browser side of tests/player/play-dashjs.mjs (a classic script served to
// headless Chromium next to dash.js's UMD build). It plays one DASH manifest
// with dash.js in a muted <video> and reports to Node through
// window.__ladderReport({kind, data}); play-dashjs.mjs decides.
//
// ABR is off (streaming.abr.autoSwitchBitrate.video = false): every change
// of video representation is one this page asked for.
//
// With config.switch it switches the video representation twice by hand
// (setRepresentationForTypeById(..., forceReplace = true)): to the one
// farthest in height from the one playing, then to a third one (or back).
// A switch counts as confirmed when dash.js fired QUALITY_CHANGE_RENDERED
// for that representation and the <video> element fired 'resize' with its
// width x height (the decoder output pictures of it).
//
// With config.audioLanguage it switches the audio track, once playback
// runs, to the first track of that language (setCurrentTrack). Confirmed
// by TRACK_CHANGE_RENDERED for a track of that language and an audio
// media segment of that language loaded after the request.
//
// With config.textLanguage the text track of that language is chosen
// before the stream starts (setInitialMediaSettingsFor: dash.js 5.2's
// setTextTrack right after STREAM_INITIALIZED can fill the chosen track
// with another language's cues), and at 'ended' the page reports the cues
// of the <video> element's text tracks.
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
    report('pageError', { message: 'unhandled rejection: ' + String(e.reason && e.reason.message || e.reason) }));

  if (!window.dashjs || typeof window.dashjs.MediaPlayer !== 'function') {
    report('setupError', { message: 'dash.js did not load' });
    return;
  }
  const supported = typeof window.dashjs.supportsMediaSource === 'function' ? window.dashjs.supportsMediaSource()
    : !!window.MediaSource;
  const player = window.dashjs.MediaPlayer().create();
  report('dashjsInfo', { version: player.getVersion(), supported, userAgent: navigator.userAgent });
  if (!supported) {
    report('setupError', { message: 'dash.js: no MediaSource in this browser' });
    return;
  }
  const E = window.dashjs.MediaPlayer.events;
  const video = document.getElementById('video');
  video.muted = true;
  const t = () => Math.round(video.currentTime * 1000) / 1000;

  // The view first, the source last: dash.js takes settings and the text
  // choice only once initialised, and applies them when the source loads.
  player.initialize(video, null, true);
  player.updateSettings({
    debug: { logLevel: window.dashjs.Debug.LOG_LEVEL_WARNING },
    streaming: { abr: { autoSwitchBitrate: { video: false, audio: false } }, text: { defaultEnabled: !!C.textLanguage } },
  });
  if (C.textLanguage) player.setInitialMediaSettingsFor('text', { lang: C.textLanguage });

  // AudioChannelConfiguration's value: a descriptor { schemeIdUri, value } or the value itself.
  function channelsOf(m) {
    const c = (m.audioChannelConfiguration || [])[0];
    const v = c && typeof c === 'object' ? c.value : c;
    return v === undefined || v === null ? null : Number(v);
  }
  const describeRep = (r) => ({ id: r.id, width: r.width, height: r.height, bandwidth: r.bandwidth, codecs: r.codecs });
  const describeTrack = (m) => ({
    id: m.id, index: m.index, lang: m.lang, labels: (m.labels || []).map((l) => l.text),
    roles: (m.roles || []).map((r) => r.value),
    channels: channelsOf(m), codec: m.codec, mimeType: m.mimeType,
  });

  player.on(E.ERROR, (e) => {
    const err = e.error || {};
    report('dashjsError', { code: err.code, message: String(err.message || ''), data: err.data ? String(err.data) : null,
                            at: t() });
  });
  player.on(E.PLAYBACK_ERROR, (e) => report('dashjsError', { code: 'playbackError', message: String(e.error || ''),
                                                             at: t() }));

  // ---- video representation switches ---------------------------------------
  const switches = [];
  let pending = null;
  function confirmIfDone() {
    if (!pending || !pending.rendered || !pending.resized) return;
    pending.confirmedAtTime = t();
    switches.push(pending);
    report('switched', pending);
    pending = null;
    if (switches.length === 1) requestSwitch(1);
    else startRateOnceSwitched();
  }
  function requestSwitch(n) {
    const reps = player.getRepresentationsByType('video');
    const active = player.getCurrentRepresentationForType('video');
    if (!active || reps.length < 2) {
      report('switchImpossible', { representations: reps.length });
      return;
    }
    let target;
    if (n === 0) {
      target = reps.reduce((a, b) => (Math.abs(b.height - active.height) > Math.abs(a.height - active.height) ? b : a));
    } else {
      const first = switches[0] ? switches[0].from : null;
      target = reps.find((r) => r.id !== active.id && r.id !== first && r.height !== active.height) ||
               reps.find((r) => r.id !== active.id);
    }
    pending = { n: n + 1, from: active.id, to: describeRep(target), requestedAtTime: t(), rendered: false,
                resized: video.videoWidth === target.width && video.videoHeight === target.height };
    report('switchRequested', pending);
    player.setRepresentationForTypeById('video', target.id, true);
  }
  player.on(E.QUALITY_CHANGE_RENDERED, (e) => {
    if (e.mediaType !== 'video') return;
    const to = e.newRepresentation ? e.newRepresentation.id : null;
    report('qualityChangeRendered', { to, at: t() });
    if (pending && to === pending.to.id) {
      pending.rendered = true;
      confirmIfDone();
    }
  });
  video.addEventListener('resize', () => {
    report('resize', { width: video.videoWidth, height: video.videoHeight, at: t() });
    if (pending && video.videoWidth === pending.to.width && video.videoHeight === pending.to.height) {
      pending.resized = true;
      confirmIfDone();
    }
  });

  // ---- audio language ---------------------------------------------------------
  let audioSwitch = null;
  function requestAudioSwitch() {
    const playing = player.getCurrentTrackFor('audio');
    const target = player.getTracksFor('audio').find((m) => m.lang === C.audioLanguage && m !== playing);
    audioSwitch = { from: playing ? describeTrack(playing) : null, to: target ? describeTrack(target) : null,
                    requestedAtTime: t(), rendered: false, segmentLoaded: false, confirmed: false };
    report('audioSwitchRequested', audioSwitch);
    if (target) player.setCurrentTrack(target);
  }
  function confirmAudioIfDone() {
    if (!audioSwitch || audioSwitch.confirmed || !audioSwitch.rendered || !audioSwitch.segmentLoaded) return;
    audioSwitch.confirmed = true;
    audioSwitch.confirmedAtTime = t();
    report('audioSwitchConfirmed', audioSwitch);
    startRateOnceSwitched();
  }
  player.on(E.TRACK_CHANGE_RENDERED, (e) => {
    if (e.mediaType !== 'audio' || !audioSwitch || !e.newMediaInfo) return;
    report('trackChangeRendered', { mediaType: e.mediaType, lang: e.newMediaInfo.lang, at: t() });
    if (e.newMediaInfo.lang === C.audioLanguage) {
      audioSwitch.rendered = true;
      confirmAudioIfDone();
    }
  });
  player.on(E.FRAGMENT_LOADING_COMPLETED, (e) => {
    const r = e.request || {};
    if (r.type !== 'MediaSegment') return;
    const rep = r.representation || {};
    const lang = rep.mediaInfo ? rep.mediaInfo.lang : null;
    report('segmentLoaded', { mediaType: r.mediaType, lang, representationId: rep.id || null, index: r.index,
                              url: r.url });
    if (r.mediaType === 'audio' && audioSwitch && lang === C.audioLanguage) {
      audioSwitch.segmentLoaded = true;
      confirmAudioIfDone();
    }
  });

  // ---- playback ---------------------------------------------------------------
  // Switches are made at 1x (so that they finish well before the end);
  // the rest plays at config.rate.
  let rateSet = false;
  function startRateOnceSwitched() {
    const switchesDone = !C.switch || switches.length >= 2;
    const audioDone = !C.audioLanguage || (audioSwitch && (audioSwitch.confirmed || !audioSwitch.to));
    if (rateSet || !switchesDone || !audioDone) return;
    rateSet = true;
    video.playbackRate = C.rate || 4;
    report('rate', { playbackRate: video.playbackRate, at: t() });
  }
  let started = false;
  video.addEventListener('timeupdate', () => {
    if (started || video.currentTime <= 0.5) return;
    started = true;
    if (C.switch) requestSwitch(0);
    if (C.audioLanguage) requestAudioSwitch();
    startRateOnceSwitched();
  });
  player.on(E.STREAM_INITIALIZED, () => {
    const texts = player.getTracksFor('text');
    report('loaded', {
      representations: player.getRepresentationsByType('video').map(describeRep),
      audioTracks: player.getTracksFor('audio').map(describeTrack),
      audioTrack: player.getCurrentTrackFor('audio') ? describeTrack(player.getCurrentTrackFor('audio')) : null,
      textTracks: texts.map(describeTrack),
      textTrack: player.getCurrentTrackFor('text') ? describeTrack(player.getCurrentTrackFor('text')) : null,
      duration: player.duration(),
    });
  });

  function textCues() {
    const out = [];
    for (let i = 0; i < video.textTracks.length; i++) {
      const tt = video.textTracks[i];
      const cues = [];
      for (let j = 0; tt.cues && j < tt.cues.length; j++)
        cues.push({ start: Math.round(tt.cues[j].startTime * 1000) / 1000, end: Math.round(tt.cues[j].endTime * 1000) / 1000,
                    text: tt.cues[j].text });
      out.push({ label: tt.label, language: tt.language, kind: tt.kind, mode: tt.mode, cues });
    }
    return out;
  }
  // The end of the stream, once (end-watch.js).
  window.__ladderWatchEnd(video, (endedBy) => report('ended', {
    endedBy,
    currentTime: video.currentTime, duration: video.duration, switches, audioSwitch, textTracks: textCues(),
    quality: video.getVideoPlaybackQuality ? { totalVideoFrames: video.getVideoPlaybackQuality().totalVideoFrames,
                                               droppedVideoFrames: video.getVideoPlaybackQuality().droppedVideoFrames }
      : null,
  }));
  function bufferedRanges(ranges) {
    const out = [];
    for (let i = 0; ranges && i < ranges.length; i++)
      out.push([Math.round(ranges.start(i) * 1000) / 1000, Math.round(ranges.end(i) * 1000) / 1000]);
    return out;
  }
  let lastProgress = -1;
  video.addEventListener('timeupdate', () => {
    if (Math.abs(video.currentTime - lastProgress) < 1) return;
    lastProgress = video.currentTime;
    report('progress', { currentTime: t(), buffered: bufferedRanges(video.buffered) });
  });
  video.addEventListener('waiting', () => report('waiting', { at: t(), buffered: bufferedRanges(video.buffered) }));
  player.on(E.BUFFER_EMPTY, (e) => report('bufferEmpty', { mediaType: e.mediaType, at: t() }));
  // What play-dashjs.mjs prints when the check ends without 'ended'.
  window.__ladderSnapshot = () => ({
    currentTime: video.currentTime, duration: video.duration, paused: video.paused, ended: video.ended,
    readyState: video.readyState, playbackRate: video.playbackRate, buffered: bufferedRanges(video.buffered),
    audioBuffer: player.getBufferLength('audio'), videoBuffer: player.getBufferLength('video'),
    audioTrack: player.getCurrentTrackFor('audio') ? player.getCurrentTrackFor('audio').lang : null,
    representation: player.getCurrentRepresentationForType('video') ? player.getCurrentRepresentationForType('video').id : null,
  });
  video.addEventListener('error', () => {
    const err = video.error;
    report('videoError', { code: err ? err.code : null, message: err ? err.message : null, at: t() });
  });

  player.attachSource(C.src);
})();
