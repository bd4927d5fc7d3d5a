// Shared by the three player pages (player-page.js for hls.js,
// shaka-page.js, dashjs-page.js): when has the element played to its end?
// window.__ladderWatchEnd(video, onEnd) calls onEnd(endedBy) once, with
// endedBy 'ended-event', 'ended-state' or 'paused-at-duration'.
//  - The 'ended' event counts whatever the attribute says.
//  - The element fires 'ended' only when it reaches the end while playing;
//    paused there first (the player stalled on the last segment and then
//    found nothing more), it has ended playback without the event.
//  - The element paused with its playhead on the duration has played to the
//    end even when 'ended' reads false: seen with dash.js after an audio
//    switch on Debian 13 CI (playhead 8 of 8, paused, all of it buffered,
//    no 'ended').
//  - It can also come to its end paused with no event at all (the player
//    stalled at the last segment, then ended the stream: seen with dash.js,
//    'ended' true in the final state and never reported), so the state is
//    read again four times a second, whatever events came.
// A stall short of the end never calls onEnd: the harness times out.
'use strict';
window.__ladderWatchEnd = function watchEnd(video, onEnd) {
  function pausedAtItsDuration() {
    return video.paused && Number.isFinite(video.duration) && video.duration > 0 &&
           video.currentTime >= video.duration;
  }
  let reported = false;
  function check(fromEvent) {
    if (reported || !(fromEvent || video.ended || pausedAtItsDuration())) return;
    reported = true;
    onEnd(fromEvent ? 'ended-event' : video.ended ? 'ended-state' : 'paused-at-duration');
  }
  video.addEventListener('ended', () => check(true));
  video.addEventListener('pause', () => check(false));
  video.addEventListener('timeupdate', () => { if (video.paused) check(false); });
  setInterval(() => check(false), 250);
};
