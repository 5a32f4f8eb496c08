import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { isExternal, linkTargets, readMarkdown } from '../support/markdown';
import { ROOT } from '../support/spawn-process';
import { SCREENSHOT_SCALE } from './support/card-host';
import { COLUMN_WIDTH } from './support/host-server';
import { THEMES } from './support/host-themes';
import { SCREENSHOT_LINKS, screenshotFile } from './support/screenshots';

const GUIDE = path.join(ROOT, 'docs', 'connecting-assistants.md');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('the job card screenshots in docs/connecting-assistants.md', () => {
  it('the guide shows exactly the screenshots the browser test writes, one per theme', () => {
    const images = linkTargets(readMarkdown(GUIDE))
      .map(({ target }) => target)
      .filter((target) => !isExternal(target) && target.endsWith('.png'));
    expect([...images].sort()).to.deep.equal(THEMES.map((theme) => SCREENSHOT_LINKS[theme]).sort());
  });

  for (const theme of THEMES) {
    it(`the ${theme} screenshot exists and is a PNG of the ${COLUMN_WIDTH}-pixel column at ${SCREENSHOT_SCALE}x`, () => {
      const file = screenshotFile(theme);
      expect(existsSync(file), path.relative(ROOT, file)).to.equal(true);
      const png = readFileSync(file);
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE), 'PNG signature').to.equal(true);
      // The IHDR chunk comes first: its width is the big-endian word at byte 16.
      expect(png.readUInt32BE(16), 'width in pixels').to.equal(COLUMN_WIDTH * SCREENSHOT_SCALE);
    });
  }
});
