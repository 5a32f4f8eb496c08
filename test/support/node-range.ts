/**
 * Whether a package.json `engines.node` range admits a full version. Only the two clause forms the project
 * writes are understood, `^X.Y.Z` and `>=X.Y.Z`, joined by `||`; any other form throws, so a range this
 * reader cannot judge fails a test loudly instead of being judged wrongly.
 */
export function admits(range: string, version: string): boolean {
  const wanted = parse(version);
  return range.split('||').some((raw) => {
    const clause = raw.trim();
    const match = /^(\^|>=)(\d+\.\d+\.\d+)$/.exec(clause);
    if (!match) throw new Error(`engines clause '${clause}' is neither ^X.Y.Z nor >=X.Y.Z`);
    const floor = parse(match[2]!);
    if (compare(wanted, floor) < 0) return false;
    // A caret range on a major above 0 stays within that major.
    return match[1] === '>=' || wanted[0] === floor[0];
  });
}

function parse(version: string): [number, number, number] {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`'${version}' is not a full X.Y.Z version`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i += 1) {
    if (a[i]! !== b[i]!) return a[i]! - b[i]!;
  }
  return 0;
}
