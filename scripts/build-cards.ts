import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cardsOf } from '../api/mcp/app-cards';
import { builtCardFile, isPageCard, type PageCard } from '../shared/contract/cards/page-card';
import { buildToolDefinitions } from '../shared/contract/mcp/tool-definitions';
import { publishedOperations } from '../shared/contract/operations/registry';
import { bundleCard } from './bundle-card';

/** The cards built from a page among those the server's tools name: the server lists the same ones. */
export function pageCardsOf(operations = publishedOperations()): PageCard[] {
  return cardsOf(buildToolDefinitions(operations)).filter(isPageCard);
}

/**
 * `npm run build`, after tsc: bundles every page card the tools name into one HTML document under dist/,
 * where the server reads it (the image has no bundler, and dist/ holds none of this script). The sources
 * never hold a built card, so a process run from them bundles the current pages.
 */
async function main(): Promise<void> {
  // scripts/ → the repository, whose dist/ tsc has just written.
  const dist = path.resolve(__dirname, '..', 'dist');
  for (const card of pageCardsOf()) {
    const html = await bundleCard(card.page);
    const file = path.join(dist, builtCardFile(card));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, html);
    process.stdout.write(`card ${card.uri}: ${path.relative(process.cwd(), file)} (${Math.round(html.length / 1024)} KiB)\n`);
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
