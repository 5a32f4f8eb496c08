import { expect } from 'chai';
import { inputSummary, MAX_SUMMARY_LENGTH } from '../../../../api/mcp/input-summary';

describe('inputSummary (a tool call input, as a confirmation shows it)', () => {
  it('each argument by name: strings quoted, numbers and booleans as written, arrays counted', () => {
    expect(inputSummary({ name: 'Lamp', count: 3, urgent: false, tags: ['a', 'b'], one: [1] })).to.equal(
      'name: "Lamp", count: 3, urgent: false, tags: 2 items, one: 1 item',
    );
  });

  it('anything named like a secret or a key is left out, whatever its case', () => {
    expect(inputSummary({ idempotency_key: 'k', apiToken: 't', PASSWORD: 'p', credentials: 'c', secretNote: 's', title: 'x' })).to.equal(
      'title: "x"',
    );
  });

  it('an object: its members one level deep, deeper ones shown as {…}', () => {
    expect(inputSummary({ options: { size: 'L', deep: { a: 1 }, token: 'hidden' } })).to.equal('options: {size: "L", deep: {…}}');
  });

  it('a long string: cut to 80 characters with an ellipsis', () => {
    const summary = inputSummary({ text: 'x'.repeat(200) });
    expect(summary).to.equal(`text: "${'x'.repeat(79)}…"`);
  });

  it('a long summary: bounded to the maximum, without splitting a surrogate pair', () => {
    const args = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field${i}`, '😀'.repeat(20)]));
    const summary = inputSummary(args);
    expect([...summary]).to.have.length(MAX_SUMMARY_LENGTH);
    expect(summary.endsWith('…')).to.equal(true);
    expect(summary).to.not.match(/[\uD800-\uDBFF]…$/);
  });
});
