import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { escapeHtml } from '../../../../api/http/escape-html';
import { ROOT_PAGE_GUIDES, renderRootPage } from '../../../../api/routes/root-page';
import { publicUrl } from '../../../../shared/platform/config/validators';
import { ROOT } from '../../../support/spawn-process';

/** PUBLIC_URL as the configuration hands it on: validated and normalised. */
function configured(value: string): string {
  return publicUrl()._parse(value);
}

describe('the root page (renderRootPage)', () => {
  it('a PUBLIC_URL with quote and ampersand in its path is escaped in every link of the HTML and kept as is in the JSON', () => {
    const url = configured("https://example.com/a'b&c");
    expect(url).to.equal("https://example.com/a'b&c");
    const { html, json } = renderRootPage(url);
    expect(html).to.not.include("a'b&c");
    expect(html).to.include('href="https://example.com/a&#39;b&#38;c/openapi.json"');
    expect(JSON.parse(json).links.openapi).to.equal("https://example.com/a'b&c/openapi.json");
  });

  it('for any path PUBLIC_URL may have, the HTML holds it only escaped and the JSON holds it as is', () => {
    fc.assert(
      // The characters that matter in markup, and some that URL parsing changes.
      fc.property(
        fc.string({ unit: fc.constantFrom("'", '"', '<', '>', '&', '`', '/', '%', ' ', '\\', 'a', 'é'), maxLength: 40 }),
        (segment) => {
          let url: string;
          try {
            url = configured(`https://example.com/${segment}`);
          } catch {
            return;
          }
          const { html, json } = renderRootPage(url);
          expect(html).to.include(`href="${escapeHtml(url)}/openapi.json"`);
          if (escapeHtml(url) !== url) expect(html).to.not.include(`${url}/openapi.json`);
          expect(JSON.parse(json).links.openapi).to.equal(`${url}/openapi.json`);
        },
      ),
    );
  });

  it('escapeHtml turns each of & < > " \' into a character reference and leaves other text alone', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).to.equal('&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;');
    expect(escapeHtml('plain text, ünïcode')).to.equal('plain text, ünïcode');
  });

  it('every guide the page names is a file of the repository', () => {
    expect(ROOT_PAGE_GUIDES.length).to.be.greaterThan(0);
    for (const guide of ROOT_PAGE_GUIDES) expect(existsSync(path.join(ROOT, guide.path)), guide.path).to.equal(true);
  });
});
