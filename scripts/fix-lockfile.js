#!/usr/bin/env node
// Adds lock entries for optional platform packages that the lock names but does not list.
//
// Why: the registry this project installs from lacks some other platforms' builds (for example
// @msgpackr-extract/msgpackr-extract-darwin-arm64, pulled in by bullmq through msgpackr). `npm install`
// then leaves them out of package-lock.json, and `npm ci` refuses the lock as out of sync. An entry with
// the package's version, os and cpu is what npm needs: it skips the package on other platforms and
// resolves it from the registry where it applies. Run it after `npm install` changed the lock:
//   node scripts/fix-lockfile.js [bench/package-lock.json]
// biome-ignore lint/suspicious/noRedundantUseStrict: a CommonJS script, not a module, so strict mode is not implied
'use strict';
const fs = require('node:fs');
const path = require('node:path');

// The repository's lock, or the one named (the bench package has its own).
const lockPath = path.resolve(process.argv[2] ?? path.join(__dirname, '..', 'package-lock.json'));

/** Optional dependencies named in the lock without an entry of their own: [key, version, os, cpu]. */
function missingOptional(lock) {
  const missing = [];
  for (const [key, entry] of Object.entries(lock.packages)) {
    for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
      const nested = `${key}/node_modules/${name}`;
      const hoisted = `node_modules/${name}`;
      if (lock.packages[nested] || lock.packages[hoisted]) continue;
      // Platform packages name their platform at the end: <name>-<os>-<cpu>.
      const match = /-(darwin|linux|win32|freebsd|android|openbsd|sunos|aix)-([a-z0-9]+)$/.exec(name);
      missing.push([hoisted, String(version).replace(/^[\^~]/, ''), match?.[1], match?.[2]]);
    }
  }
  return missing;
}

function fix() {
  const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
  const missing = missingOptional(lock);
  for (const [key, version, os, cpu] of missing) {
    const entry = { version, optional: true };
    if (os) entry.os = [os];
    if (cpu) entry.cpu = [cpu];
    lock.packages[key] = entry;
  }
  const [root, ...rest] = Object.entries(lock.packages);
  lock.packages = Object.fromEntries([root, ...rest.sort(([a], [b]) => a.localeCompare(b))]);
  fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  return missing.map(([key]) => key);
}

if (require.main === module) {
  const added = fix();
  process.stdout.write(added.length ? `added ${added.join(', ')}\n` : `${lockPath} already lists every optional package\n`);
}
module.exports = { missingOptional };
