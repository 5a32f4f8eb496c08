import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { toolName } from '../shared/contract/mcp/tool-definitions';
import type { Operation } from '../shared/contract/operations/operation';
import { paidJobsOf } from '../shared/contract/operations/paid-jobs';
import { OPERATIONS, publishedOperations } from '../shared/contract/operations/registry';
import { eventCatalogue } from '../shared/domain/webhooks/event-catalogue';

/*
 * The lists of shipped things the guides print live between marker comments (`<!-- tools:start -->` …
 * `<!-- tools:end -->`); this script writes them from the registry, and test/docs/tool-lists.test.ts checks
 * that what the guides hold is what it would write. After adding an operation: `npx tsx scripts/doc-lists.ts`.
 */

/** A marked block of a guide: its name, the file that holds it, and its content from a registry. */
export interface DocList {
  readonly name: string;
  readonly file: string;
  content(operations: readonly Operation[]): string;
}

/** The MCP tools, one per published operation, in registry order, as inline code separated by commas. */
export const TOOLS_LIST: DocList = {
  name: 'tools',
  file: 'docs/connecting-assistants.md',
  content: (operations) =>
    publishedOperations(operations)
      .map((operation) => `\`${toolName(operation.operationId)}\``)
      .join(', '),
};

/**
 * The event types the operations declare (`PaidJob.events`), each with its operation, when it is sent and the
 * JSON Schema of its `data` (the job's id, operation and subject added), as `GET /v1/link/event-types` answers them.
 */
export const EVENT_TYPES_LIST: DocList = {
  name: 'event-types',
  file: 'docs/webhooks.md',
  content: (operations) => {
    const declared = eventCatalogue(paidJobsOf(operations)).filter((entry) => entry.source !== 'connector');
    if (declared.length === 0) return '\n\nNo operation of this connector declares events of its own yet.\n\n';
    const rows = declared.map((entry) => `| \`${entry.type}\` | \`${entry.source}\` | ${entry.description} |`);
    const schemas = declared.map((entry) => `\`${entry.type}\` data:\n\n\`\`\`json\n${JSON.stringify(entry.data_schema)}\n\`\`\``);
    return `\n\n| type | operation | sent when |\n|---|---|---|\n${rows.join('\n')}\n\n${schemas.join('\n\n')}\n\n`;
  },
};

/** Every list the guides print, each a marked block. */
export const DOC_LISTS: readonly DocList[] = [TOOLS_LIST, EVENT_TYPES_LIST];

const markers = (name: string) => [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`] as const;

/** The text between the markers of block `name` in `text`; undefined when `text` has no such block. */
export function blockContent(text: string, name: string): string | undefined {
  const [start, end] = markers(name);
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  return from === -1 || to === -1 ? undefined : text.slice(from + start.length, to);
}

/** `text` with block `name` holding `content`; throws when the text has no such block. */
export function withBlock(text: string, name: string, content: string): string {
  const [start, end] = markers(name);
  if (blockContent(text, name) === undefined) throw new Error(`no ${start} … ${end} block`);
  const from = text.indexOf(start) + start.length;
  return text.slice(0, from) + content + text.slice(text.indexOf(end, from));
}

/** Rewrites every marked list of the guides under `root` from `operations`; answers the files it changed. */
export function writeDocLists(root: string, operations: readonly Operation[] = OPERATIONS): string[] {
  return DOC_LISTS.flatMap((list) => {
    const file = path.join(root, list.file);
    const before = readFileSync(file, 'utf8');
    const after = withBlock(before, list.name, list.content(operations));
    if (after === before) return [];
    writeFileSync(file, after);
    return [list.file];
  });
}

if (require.main === module) {
  const changed = writeDocLists(path.resolve(__dirname, '..'));
  process.stdout.write(changed.length === 0 ? 'the guides list the registry already\n' : `rewrote ${changed.join(', ')}\n`);
}
