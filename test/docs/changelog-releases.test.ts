import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../support/spawn-process';

const CHANGELOG = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
/** `## [0.7.0] - 2026-11-26`: the released versions, newest first. */
const RELEASES = [...CHANGELOG.matchAll(/^## \[(\d+\.\d+\.\d+)\]/gm)].map((match) => match[1]);
/** `| 0.7.0 | 2026-11-26 | `1ad1809` | ... |`: the version table's commit per version. */
const TABLE = new Map(
  [...CHANGELOG.matchAll(/^\| (\d+\.\d+\.\d+) \| [^|]+ \| `([0-9a-f]{7,40})` \|/gm)].map((match) => [match[1], match[2]]),
);

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
const commitOf = (name: string) => {
  try {
    return git('rev-parse', '-q', '--verify', `${name}^{commit}`);
  } catch {
    return undefined;
  }
};

describe('the changelog and the release tags', () => {
  it('every release heading of CHANGELOG.md has a row in the version table, and the table no other', () => {
    expect(RELEASES.length, 'releases found').to.be.greaterThan(0);
    expect([...TABLE.keys()]).to.deep.equal(RELEASES);
  });

  it('each release row names a commit of the history behind HEAD, and a v<version> tag, where present, names that commit', () => {
    for (const [version, commit] of TABLE) {
      const full = commitOf(commit);
      expect(full, `${version}: ${commit} is not a commit of this clone`).to.be.a('string');
      expect(git('merge-base', '--is-ancestor', full!, 'HEAD') === '', `${version}: ${commit} is behind HEAD`).to.equal(true);
      const tagged = commitOf(`refs/tags/v${version}`);
      if (tagged !== undefined) expect(tagged, `tag v${version}`).to.equal(full);
    }
  });
});
