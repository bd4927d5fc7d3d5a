// What the DASH player checks (play-shaka.mjs, play-dashjs.mjs) read from
// a manifest themselves, to hold the player to it. ladder writes one video
// AdaptationSet and one AdaptationSet per audio or text track
// (mux/dash_manifest.cpp), so a regular expression over its MPD suffices.

function adaptationSets(mpd, contentType) {
  const re = new RegExp(`<AdaptationSet[^>]*contentType="${contentType}"[^>]*>[\\s\\S]*?</AdaptationSet>`, 'g');
  return mpd.match(re) || [];
}

// The video Representations: the videos a player must list.
export function videoRepresentationCount(mpd) {
  return adaptationSets(mpd, 'video').reduce((n, set) => n + (set.match(/<Representation\b/g) || []).length, 0);
}

// The lang of the first text AdaptationSet, or null.
export function firstTextLanguage(mpd) {
  const first = adaptationSets(mpd, 'text')[0];
  const m = first ? /\blang="([^"]+)"/.exec(first) : null;
  return m ? m[1] : null;
}
