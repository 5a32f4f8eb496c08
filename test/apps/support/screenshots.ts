import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { McpUiTheme } from '@modelcontextprotocol/ext-apps';
import { ROOT } from '../../support/spawn-process';

/** Where docs/connecting-assistants.md links the card's screenshots from, relative to docs/. */
export const SCREENSHOT_LINKS: Record<McpUiTheme, string> = {
  light: 'images/job-card-light.png',
  dark: 'images/job-card-dark.png',
};

/** The committed screenshot of `theme` that the documentation shows. */
export function screenshotFile(theme: McpUiTheme): string {
  return path.join(ROOT, 'docs', SCREENSHOT_LINKS[theme]);
}

let scratch: string | undefined;

/**
 * Where the browser test writes its screenshot of `theme`: over the documentation's own with
 * `UPDATE_SCREENSHOTS=1`, otherwise into a temporary directory, because every run's picture differs (times,
 * progress) and a plain `npm test` must leave the working tree as it found it.
 */
export function screenshotTarget(theme: McpUiTheme): string {
  if (process.env.UPDATE_SCREENSHOTS === '1') return screenshotFile(theme);
  scratch ??= mkdtempSync(path.join(os.tmpdir(), 'job-card-screenshots-'));
  return path.join(scratch, path.basename(SCREENSHOT_LINKS[theme]));
}
