import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cardsOf } from '../api/mcp/app-cards';
import { builtCardFile, isPageCard, type PageCard } from '../shared/contract/cards/page-card';
import { buildToolDefinitions } from '../shared/contract/mcp/tool-definitions';
import { publishedOperations } from '../shared/contract/operations/registry';
import { bundleCard } from './bundle-card';

/** One card the build wrote: its URI, its file and its size. */
export interface BuiltCard {
  uri: string;
  file: string;
  bytes: number;
}

/** The cards built from a page among those the server's tools name: the server lists the same ones. */
export function pageCardsOf(operations = publishedOperations()): PageCard[] {
  return cardsOf(buildToolDefinitions(operations)).filter(isPageCard);
}

/**
 * `npm run build`, after tsc: bundles every page card the tools name into one HTML document under dist/,
 * where the server reads it (the image has no bundler, and dist/ holds none of this script). The list comes
 * from the registry, so an operation's own card is built with no step of its own. The sources never hold a
 * built card, so a process run from them bundles the current pages. Tests name another folder and registry.
 */
export async function buildCards(dist = path.resolve(__dirname, '..', 'dist'), operations = publishedOperations()): Promise<BuiltCard[]> {
  const built: BuiltCard[] = [];
  for (const card of pageCardsOf(operations)) {
    const html = await bundleCard(card.page);
    const file = path.join(dist, builtCardFile(card));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, html);
    built.push({ uri: card.uri, file, bytes: Buffer.byteLength(html) });
  }
  return built;
}

if (require.main === module) {
  // scripts/ → the repository, whose dist/ tsc has just written; a folder named on the command line instead.
  buildCards(process.argv[2] === undefined ? undefined : path.resolve(process.argv[2])).then(
    (built) => {
      for (const card of built)
        process.stdout.write(`card ${card.uri}: ${path.relative(process.cwd(), card.file)} (${Math.round(card.bytes / 1024)} KiB)\n`);
    },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
