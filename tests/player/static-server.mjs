// The static HTTP server (with Range support) that tests/player's checks
// serve a ladder from on 127.0.0.1: play.mjs (hls.js) and play-shaka.mjs
// (Shaka Player). Files under PREFIX are the page and the player library
// (`files`: a name to an absolute path, or to generated text); everything
// else comes from the ladder's folder, never from outside it.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const MIME = {
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.mpd': 'application/dash+xml',
  '.mp4': 'video/mp4',
  '.m4s': 'video/mp4',
  '.m4v': 'video/mp4',
  '.m4a': 'audio/mp4',
  '.cmfv': 'video/mp4',
  '.cmfa': 'audio/mp4',
  '.ts': 'video/mp2t',
  '.aac': 'audio/aac',
  '.vtt': 'text/vtt',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
};

function mimeOf(p) {
  return MIME[path.extname(p).toLowerCase()] || 'application/octet-stream';
}

// Returns {start, end} (inclusive), null for "serve whole file", or 'bad' for 416.
function parseRange(header, size) {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null; // multiple ranges or other units: a 200 with the whole body is allowed
  let start;
  let end;
  if (m[1] === '' && m[2] === '') return 'bad';
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'bad';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'bad';
  return { start, end };
}

export function startServer(root, files, requests, onHttpError, prefix) {
  const server = http.createServer((req, res) => {
    const entry = { method: req.method, url: req.url, range: req.headers.range || null, status: 0, bytes: 0 };
    requests.push(entry);
    const send = (status, headers, body) => {
      entry.status = status;
      if (status >= 400) onHttpError(entry);
      res.writeHead(status, { 'Cache-Control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(405, { Allow: 'GET, HEAD' }, '');
      return;
    }
    let urlPath;
    try {
      urlPath = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      send(400, {}, 'bad url');
      return;
    }
    if (urlPath === '/favicon.ico') {
      send(204, {}, '');
      return;
    }
    let file;
    if (urlPath.startsWith(prefix)) {
      const name = urlPath.slice(prefix.length);
      if (Object.prototype.hasOwnProperty.call(files, name)) {
        const f = files[name];
        if (typeof f === 'string' && !f.startsWith('/')) {
          // generated content
          send(200, { 'Content-Type': mimeOf(name), 'Content-Length': Buffer.byteLength(f) }, f);
          return;
        }
        file = f;
      }
    } else {
      const rel = path.normalize(urlPath).replace(/^(\.\.(\/|\\|$))+/, '');
      const abs = path.join(root, rel);
      if (abs === root || abs.startsWith(root + path.sep)) file = abs;
    }
    let st = null;
    try {
      if (file) st = fs.statSync(file);
    } catch {
      st = null;
    }
    if (!st || !st.isFile()) {
      send(404, { 'Content-Type': 'text/plain' }, 'not found');
      return;
    }
    const size = st.size;
    const range = parseRange(req.headers.range, size);
    const base = { 'Content-Type': mimeOf(file), 'Accept-Ranges': 'bytes', 'Access-Control-Allow-Origin': '*' };
    if (range === 'bad') {
      send(416, { ...base, 'Content-Range': `bytes */${size}` }, '');
      return;
    }
    const { start, end } = range || { start: 0, end: size - 1 };
    const status = range ? 206 : 200;
    const headers = { ...base, 'Content-Length': Math.max(0, end - start + 1) };
    if (range) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    entry.status = status;
    res.writeHead(status, { 'Cache-Control': 'no-store', ...headers });
    if (req.method === 'HEAD' || size === 0) {
      res.end();
      return;
    }
    entry.bytes = end - start + 1;
    const stream = fs.createReadStream(file, { start, end });
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}
