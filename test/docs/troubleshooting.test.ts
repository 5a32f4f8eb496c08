import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { readMarkdown } from '../support/markdown';
import { ROOT } from '../support/spawn-process';
import { producedBy, sourceMessagePatterns } from './support/source-messages';

/** The folders whose code prints or answers the messages: the processes, the library and the doctor. */
const SOURCE_DIRS = ['api', 'shared', 'worker', 'scripts', 'doctor'];

function sourceFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...SOURCE_DIRS], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return out
    .split('\n')
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(ROOT, f));
}

/** The first code span of every blockquote line: how the page quotes a message. */
function quotedMessages(file: string): Array<{ line: number; message: string }> {
  const quoted: Array<{ line: number; message: string }> = [];
  readMarkdown(file).prose.forEach((line, index) => {
    const match = /^>\s*`([^`]+)`/.exec(line);
    if (match) quoted.push({ line: index + 1, message: match[1] });
  });
  return quoted;
}

describe('docs/troubleshooting.md', () => {
  it('every message it quotes is one the code can print or answer (a literal, or a template with values filled in)', () => {
    const patterns = sourceMessagePatterns(sourceFiles());
    const quoted = quotedMessages(path.join(ROOT, 'docs', 'troubleshooting.md'));
    expect(quoted.length, 'quoted messages').to.be.greaterThan(40);
    expect(quoted.filter(({ message }) => !producedBy(patterns, message))).to.deep.equal([]);
  });

  it('the matcher accepts literals, filled templates and + chains line by line, and refuses changed or partial wording', () => {
    const source = [
      "const a = 'The body is not valid JSON.';",
      'const b = `Too many requests. Retry after ${seconds} seconds.`;',
      "const c = 'This job would exceed ' + `the budget of ${limit} credit${s}. ` + 'Nothing was charged.';",
      'const d = `connector ${role}: refusing to start:\\n${lines}\\n`;',
    ].join('\n');
    const patterns = sourceMessagePatterns(['/virtual.ts'], () => source);
    expect(producedBy(patterns, 'The body is not valid JSON.')).to.equal(true);
    expect(producedBy(patterns, 'Too many requests. Retry after 42 seconds.')).to.equal(true);
    expect(producedBy(patterns, 'This job would exceed the budget of 1 credit. Nothing was charged.')).to.equal(true);
    expect(producedBy(patterns, 'connector api: refusing to start:')).to.equal(true);
    expect(producedBy(patterns, 'The body is not valid YAML.')).to.equal(false);
    expect(producedBy(patterns, 'Too many requests.')).to.equal(false);
    expect(producedBy(patterns, 'Retry after 42 minutes.')).to.equal(false);
    // A value next to a short fixed word is not evidence of a message.
    expect(
      producedBy(
        sourceMessagePatterns(['/short.ts'], () => 'const e = `${name}worker`;'),
        'is required by the worker',
      ),
    ).to.equal(false);
  });
});
