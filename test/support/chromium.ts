import type { Browser } from 'playwright-core';
import { findProgram, isExecutableFile } from './find-program';

/** The variable that names a Chromium (or Chrome) binary other than Debian's `chromium` on PATH. */
export const CHROMIUM_PATH_VARIABLE = 'CHROMIUM_PATH';

/** The browser the tests would launch, or why there is none. */
export type ChromiumLookup = { path: string; problem?: undefined } | { path?: undefined; problem: string };

/**
 * The Chromium the tests drive: `CHROMIUM_PATH` when set (and then only that one, so that a wrong value is
 * reported rather than silently replaced), otherwise `chromium` on PATH. Browser downloads are not reachable
 * from CI, so playwright-core never brings its own.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): ChromiumLookup {
  const named = env[CHROMIUM_PATH_VARIABLE];
  if (named) {
    return isExecutableFile(named)
      ? { path: named }
      : { problem: `${CHROMIUM_PATH_VARIABLE} names ${named}, which is not an executable file` };
  }
  const onPath = findProgram('chromium', env.PATH);
  return onPath ? { path: onPath } : { problem: `not on PATH, and ${CHROMIUM_PATH_VARIABLE} is unset` };
}

/** Launches headless Chromium ({@link findChromium}) through playwright-core; every browser test starts it here. */
export async function launchChromium(): Promise<Browser> {
  const found = findChromium();
  if (found.problem !== undefined) throw new Error(`cannot launch chromium: ${found.problem}`);
  // Loaded on use: the pre-flight imports this file and must stay fast.
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: found.path, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
