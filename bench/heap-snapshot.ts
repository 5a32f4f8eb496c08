import { readFileSync } from 'node:fs';

/** Live objects of one kind in a V8 heap snapshot: how many, and their own (shallow) bytes. */
export interface HeapGroup {
  name: string;
  count: number;
  selfBytes: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/**
 * Groups the nodes of a `.heapsnapshot` file (written by `--heapsnapshot-signal` or `v8.writeHeapSnapshot`, each
 * after a full collection, so only live objects) by type and constructor name: `object:Foo`, `closure:bar`,
 * `string`, `array`, `code`, … Strings and code are grouped by type alone.
 */
export function summariseHeapSnapshot(file: string): Map<string, HeapGroup> {
  const data = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = data.snapshot.meta.node_fields;
  const types = data.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = [fields.indexOf('type'), fields.indexOf('name'), fields.indexOf('self_size')];
  const groups = new Map<string, HeapGroup>();
  for (let i = 0; i < data.nodes.length; i += width) {
    const type = types[data.nodes[i + typeAt]];
    const named = type === 'object' || type === 'closure' || type === 'native';
    const name = named ? `${type}:${data.strings[data.nodes[i + nameAt]]}` : type;
    const group = groups.get(name) ?? { name, count: 0, selfBytes: 0 };
    group.count += 1;
    group.selfBytes += data.nodes[i + sizeAt];
    groups.set(name, group);
  }
  return groups;
}

/** The groups that grew most between two snapshots, by bytes, with their change in count. */
export function heapGrowth(
  before: Map<string, HeapGroup>,
  after: Map<string, HeapGroup>,
  top = 15,
): Array<{ name: string; countChange: number; bytesChange: number }> {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names]
    .map((name) => ({
      name,
      countChange: (after.get(name)?.count ?? 0) - (before.get(name)?.count ?? 0),
      bytesChange: (after.get(name)?.selfBytes ?? 0) - (before.get(name)?.selfBytes ?? 0),
    }))
    .filter((group) => group.bytesChange !== 0 || group.countChange !== 0)
    .sort((a, b) => b.bytesChange - a.bytesChange)
    .slice(0, top);
}

/** Total live bytes in a summary. */
export function heapTotal(groups: Map<string, HeapGroup>): number {
  return [...groups.values()].reduce((sum, group) => sum + group.selfBytes, 0);
}
