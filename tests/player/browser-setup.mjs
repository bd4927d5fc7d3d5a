// What both player checks (play.mjs: hls.js, play-shaka.mjs: Shaka Player)
// need before they can start: a recent enough Node.js, the system Chromium
// (or LADDER_CHROMIUM), playwright-core and the player library from
// node_modules. Returns { chromium, executablePath, libraryFile } or
// { error } with the "setup: ..." reason (exit code 2).
import fs from 'node:fs';
import { createRequire } from 'node:module';

export async function browserSetup(libraryPath) {
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  if (nodeMajor < 18)
    return { error: `setup: Node.js ${process.versions.node} is too old (playwright-core 1.61 needs >= 18)` };
  const executablePath = process.env.LADDER_CHROMIUM || '/usr/bin/chromium';
  if (!fs.existsSync(executablePath))
    return { error: `setup: ${executablePath} not found (apt-get install chromium, or set LADDER_CHROMIUM)` };
  try {
    const { chromium } = await import('playwright-core');
    const libraryFile = createRequire(import.meta.url).resolve(libraryPath);
    return { chromium, executablePath, libraryFile };
  } catch (e) {
    return { error: `setup: node modules missing (run: npm ci --prefix tests/player): ${e.message}` };
  }
}
