import path from 'node:path';
import type { McpUiTheme } from '@modelcontextprotocol/ext-apps';
import { ROOT } from '../../support/spawn-process';

/** Where docs/connecting-assistants.md links the card's screenshots from, relative to docs/. */
export const SCREENSHOT_LINKS: Record<McpUiTheme, string> = {
  light: 'images/job-card-light.png',
  dark: 'images/job-card-dark.png',
};

/** The file the browser test writes for `theme`, and the documentation shows. */
export function screenshotFile(theme: McpUiTheme): string {
  return path.join(ROOT, 'docs', SCREENSHOT_LINKS[theme]);
}
