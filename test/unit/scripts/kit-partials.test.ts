import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { withKitPartials } from '../../../scripts/kit-partials';

/** A partial with a note for developers, a slot for an attribute and one for the content. */
const HEAD = '<!-- a note -->\n<header>\n  <h1>{{content}}</h1>\n  <p>{{waiting}}</p>\n</header>\n';

describe('the card kit partials a page shell uses (scripts/kit-partials.ts)', () => {
  let dir: string;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'kit-partials-'));
    writeFileSync(path.join(dir, 'head.html'), HEAD);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function refusal(shell: string): Promise<string> {
    const error = await withKitPartials(shell, dir).catch((caught: unknown) => caught);
    expect(error, 'refused').to.be.instanceOf(Error);
    return (error as Error).message;
  }

  it('puts each use in its place, slots filled, the note dropped and every line indented as the use is', async () => {
    const shell = '<main>\n  <kit-head waiting="Waiting &amp; more">Job <b>x</b></kit-head>\n  <p>after</p>\n</main>';
    expect(await withKitPartials(shell, dir)).to.equal(
      '<main>\n  <header>\n    <h1>Job <b>x</b></h1>\n    <p>Waiting &amp; more</p>\n  </header>\n  <p>after</p>\n</main>',
    );
  });

  it('leaves a shell without a use as it is', async () => {
    expect(await withKitPartials('<main><p>plain</p></main>', dir)).to.equal('<main><p>plain</p></main>');
  });

  it('refuses a use without a value for a slot, or with an attribute no slot takes', async () => {
    expect(await refusal('<kit-head>Job</kit-head>')).to.contain('needs a waiting attribute');
    expect(await refusal('<kit-head waiting="w"></kit-head>')).to.contain('needs content');
    expect(await refusal('<kit-head waiting="w" tone="x">Job</kit-head>')).to.contain('takes no tone');
  });

  it('refuses a partial the kit does not have, and a use left unclosed', async () => {
    expect(await refusal('<kit-tail waiting="w">Job</kit-tail>')).to.contain('has no partial tail');
    expect(await refusal('<kit-head waiting="w">Job')).to.contain('<kit-head waiting="w">');
  });
});
