// Which non-fatal hls.js 'aborted' errors the hls.js check (play.mjs)
// tolerates: only those that come while a switch the check itself asked for
// is under way.
//
// hls.js cancels a fragment load in flight when it changes level or audio
// track (by design: the fragment is of the old rendition), and reports the
// cancel as a non-fatal networkError with details 'aborted'. When the
// check asked for that switch, the cancel is what a player should do;
// anywhere else it is a sign of a switch nobody asked for, or of a real
// problem, and fails the check. A switch is under way from the check's
// request (the page reports 'switchRequested' / 'audioSwitchRequested'
// before it sets hls.currentLevel, hls.nextLevel or hls.audioTrack) to
// hls.js's event that the switch happened (LEVEL_SWITCHED for the requested
// level, AUDIO_TRACK_SWITCHED for the requested track). The page reports
// events in the order hls.js fires them, so the decision depends on that
// order only, never on time.
//
// Pure logic with no browser, so tests/player/switch-aborts.test.mjs can
// replay recorded event sequences through it.

// The error an hls.js fragment loader raises when its load is cancelled.
export function isAbortedLoad(error) {
  return !!error && !error.fatal && error.type === 'networkError' && error.details === 'aborted';
}

export class SwitchWindows {
  constructor() {
    // Switches requested and not yet done: { kind: 'level' | 'audio', to }.
    this.open = [];
  }

  // Every report of the page (player-page.js), in the order it came:
  // { kind, data }. Reports that do not open or close a switch are ignored.
  observe(msg) {
    const d = (msg && msg.data) || {};
    switch (msg && msg.kind) {
      case 'switchRequested':
        this.open.push({ kind: 'level', to: d.to });
        break;
      case 'levelSwitched':
        this.close('level', d.level);
        break;
      case 'audioSwitchRequested':
        // to < 0: no track of another language, nothing is switched.
        if (d.to >= 0) this.open.push({ kind: 'audio', to: d.to });
        break;
      case 'audioTrackSwitched':
        this.close('audio', d.id);
        break;
      default:
        break;
    }
  }

  close(kind, to) {
    this.open = this.open.filter((w) => !(w.kind === kind && w.to === to));
  }

  // Whether a switch the check requested is under way now.
  switching() {
    return this.open.length > 0;
  }

  // Whether this error is a cancelled load during a requested switch.
  toleratesAbort(error) {
    return isAbortedLoad(error) && this.switching();
  }
}

// The check's verdict on one hls.js error: fatal errors never pass; a
// non-fatal one passes when its details are in `toleratedDetails` (e.g.
// bufferStalledError) or when it is a load cancelled by a switch under way.
export function isTolerated(error, toleratedDetails, windows) {
  if (!error || error.fatal) return false;
  return toleratedDetails.has(error.details) || windows.toleratesAbort(error);
}
