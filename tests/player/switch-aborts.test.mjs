// Unit check of the hls.js check's tolerance rule (switch-aborts.mjs):
// event sequences as player-page.js reports them, two of them recorded in
// real runs of AudioTracks.HlsJsListsTheAudioTracksAndSwitchesLanguage, are
// replayed the way play.mjs handles them (every report observed in order,
// each hlsError judged when it comes). Run: node --test tests/player/switch-aborts.test.mjs
import assert from 'node:assert/strict';
import test from 'node:test';

import { SwitchWindows, isTolerated } from './switch-aborts.mjs';

const DEFAULT_TOLERATED = new Set(['bufferStalledError']);

// The verdict on every hlsError of the sequence, in order.
function replay(messages, tolerated = DEFAULT_TOLERATED) {
  const windows = new SwitchWindows();
  const verdicts = [];
  for (const msg of messages) {
    windows.observe(msg);
    if (msg.kind === 'hlsError') verdicts.push(isTolerated(msg.data, tolerated, windows));
  }
  return verdicts;
}

const aborted = (url, level) => ({ kind: 'hlsError',
  data: { type: 'networkError', details: 'aborted', fatal: false, reason: 'Aborted', url, level } });
const fragBuffered = (type, level, sn) => ({ kind: 'fragBuffered', data: { type, level, sn } });
const levelSwitched = (level) => ({ kind: 'levelSwitched', data: { level } });

// Recorded (2 variants of one 90p rung, one per audio group; 6 renditions):
// hls.js's ABR moved from level 0 (group audio-aac) to level 1 (group
// audio-aac-51) at start-up and cancelled level 0's fragment 3 with it.
// The check had asked for no switch yet: not tolerated (the page now pins
// the start level, so that hls.js makes only the switches it is asked for).
const abrSwitchAtStartUp = [
  { kind: 'manifestParsed', data: { firstLevel: 0 } },
  { kind: 'initSegment', data: { type: 'main', level: 0 } },
  fragBuffered('main', 0, 0),
  fragBuffered('audio', 0, 0),
  { kind: 'resize', data: { width: 160, height: 90 } },
  levelSwitched(0),
  aborted('seg_00003.m4s', 0),
  { kind: 'initSegment', data: { type: 'main', level: 1 } },
  fragBuffered('main', 1, 3),
];

// Recorded: the check switched the audio track (0 -> 1, another language);
// hls.js cancelled the audio fragment in flight between the request and
// AUDIO_TRACK_SWITCHED: tolerated.
const requestedAudioSwitch = [
  { kind: 'manifestParsed', data: { firstLevel: 0 } },
  fragBuffered('main', 0, 0),
  fragBuffered('audio', 0, 0),
  levelSwitched(0),
  fragBuffered('main', 1, 1),
  { kind: 'audioSwitchRequested', data: { from: 0, to: 1, fromLang: 'eng', toLang: 'fra' } },
  aborted('seg_00006.m4s', 0),
  { kind: 'initSegment', data: { type: 'audio', level: 1 } },
  fragBuffered('audio', 1, 0),
  { kind: 'audioTrackSwitched', data: { id: 1 } },
  { kind: 'audioSwitchConfirmed', data: { to: 1 } },
];

test('a cancelled load during an audio switch the check asked for is tolerated (recorded)', () => {
  assert.deepEqual(replay(requestedAudioSwitch), [true]);
});

test('a cancelled load at a switch the check did not ask for fails (recorded)', () => {
  assert.deepEqual(replay(abrSwitchAtStartUp), [false]);
});

test('the audio switch window closes at AUDIO_TRACK_SWITCHED for the requested track', () => {
  const after = [...requestedAudioSwitch, aborted('seg_00007.m4s', 1)];
  assert.deepEqual(replay(after), [true, false]);
  const otherTrack = [
    { kind: 'audioSwitchRequested', data: { from: 0, to: 2 } },
    { kind: 'audioTrackSwitched', data: { id: 1 } },
    aborted('seg_00002.m4s', 0),
    { kind: 'audioTrackSwitched', data: { id: 2 } },
    aborted('seg_00003.m4s', 2),
  ];
  assert.deepEqual(replay(otherTrack), [true, false]);
});

test('a level switch is under way from the request to LEVEL_SWITCHED for the requested level', () => {
  const levelSwitch = [
    levelSwitched(0),
    aborted('360p/seg_00001.m4s', 0),
    { kind: 'switchRequested', data: { n: 1, method: 'currentLevel', from: 0, to: 2 } },
    aborted('360p/seg_00002.m4s', 0),
    levelSwitched(0),
    aborted('360p/seg_00003.m4s', 0),
    levelSwitched(2),
    aborted('1080p/seg_00004.m4s', 2),
    { kind: 'switchRequested', data: { n: 2, method: 'nextLevel', from: 2, to: 1 } },
    aborted('1080p/seg_00005.m4s', 2),
    levelSwitched(1),
    aborted('720p/seg_00006.m4s', 1),
    // a level left long ago: no longer covered
    aborted('360p/seg_00007.m4s', 0),
  ];
  assert.deepEqual(replay(levelSwitch), [false, true, true, false, true, false, false]);
});

test('during a requested switch only non-fatal aborted loads pass', () => {
  const during = (error) => replay([
    { kind: 'switchRequested', data: { n: 1, from: 0, to: 1 } },
    { kind: 'hlsError', data: error },
  ])[0];
  assert.equal(during({ type: 'networkError', details: 'aborted', fatal: false }), true);
  assert.equal(during({ type: 'networkError', details: 'aborted', fatal: true }), false);
  assert.equal(during({ type: 'networkError', details: 'fragLoadError', fatal: false }), false);
  assert.equal(during({ type: 'mediaError', details: 'bufferAppendError', fatal: false }), false);
  assert.equal(during({ type: 'mediaError', details: 'aborted', fatal: false }), false);
});

test('an audio switch with no track to switch to opens no window', () => {
  assert.deepEqual(replay([{ kind: 'audioSwitchRequested', data: { from: 0, to: -1 } }, aborted('seg_00001.m4s', 0)]),
    [false]);
});

test('the tolerated list still applies, to non-fatal errors only, switch or not', () => {
  const stall = { kind: 'hlsError', data: { type: 'mediaError', details: 'bufferStalledError', fatal: false } };
  const fatalStall = { kind: 'hlsError', data: { type: 'mediaError', details: 'bufferStalledError', fatal: true } };
  assert.deepEqual(replay([stall, fatalStall]), [true, false]);
  assert.deepEqual(replay([stall], new Set()), [false]);
});
