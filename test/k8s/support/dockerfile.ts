/** A minimal Dockerfile reader: enough to check stages, their base, and their instructions. */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

export interface Stage {
  readonly name: string | undefined;
  readonly from: string;
  readonly instructions: Instruction[];
}

/** Joins continuation lines, drops comments and blank lines, and splits the instructions into stages. */
export function dockerfileStages(text: string): Stage[] {
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (current === '' && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    logical.push((current + line).trim());
    current = '';
  }
  if (current.trim() !== '') logical.push(current.trim());

  const stages: Stage[] = [];
  for (const line of logical) {
    const match = /^(\S+)\s*(.*)$/.exec(line);
    if (!match) continue;
    const keyword = match[1]!.toUpperCase();
    const args = match[2]!.replace(/\s+/g, ' ').trim();
    if (keyword === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`cannot read FROM ${args}`);
      stages.push({ name: from[2], from: from[1]!, instructions: [] });
      continue;
    }
    const stage = stages[stages.length - 1];
    if (!stage) {
      if (keyword === 'ARG') continue; // global ARG before the first FROM
      throw new Error(`${keyword} before any FROM`);
    }
    stage.instructions.push({ keyword, args });
  }
  return stages;
}

/** The global ARG defaults (before the first FROM). */
export function globalArgs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (/^FROM\s/i.test(trimmed)) break;
    const match = /^ARG\s+([A-Za-z_][A-Za-z0-9_]*)(?:=(\S*))?$/i.exec(trimmed);
    if (match) out[match[1]!] = match[2] ?? '';
  }
  return out;
}

/** The stage chain from a stage to its root, following `FROM <stage>`. */
export function lineage(stages: Stage[], name: string): Stage[] {
  const chain: Stage[] = [];
  let stage = stages.find((s) => s.name === name);
  while (stage) {
    chain.push(stage);
    const parent = stage.from;
    stage = stages.find((s) => s.name === parent);
  }
  return chain;
}

/** The effective value of the last instruction of a kind along a stage's lineage (USER, CMD, ENTRYPOINT). */
export function effective(stages: Stage[], name: string, keyword: string): string | undefined {
  for (const stage of lineage(stages, name)) {
    const found = [...stage.instructions].reverse().find((i) => i.keyword === keyword);
    if (found) return found.args;
  }
  return undefined;
}
