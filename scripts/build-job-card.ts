import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleJobCard } from '../shared/contract/mcp/job-card/bundle-job-card';
import { JOB_CARD_FILE } from '../shared/contract/mcp/job-card/job-card';

/**
 * `npm run build`, after tsc: bundles the MCP Apps job card into one HTML file next to its compiled module
 * in dist/, where the server reads it (the image has no bundler). Run from the sources (tsx) once dist/ is
 * compiled; the sources never hold a built card, so a server run from them always bundles the current one.
 */
async function main(): Promise<void> {
  // scripts/ → the repository, whose dist/ tsc has just written.
  const distRoot = path.resolve(__dirname, '..', 'dist');
  const folder = path.join(distRoot, 'shared', 'contract', 'mcp', 'job-card');
  if (!existsSync(path.join(folder, 'job-card.js'))) throw new Error(`compile first (npm run build): no compiled card module in ${folder}`);
  const html = await bundleJobCard();
  await writeFile(path.join(folder, JOB_CARD_FILE), html);
  process.stdout.write(
    `job card: ${path.relative(process.cwd(), path.join(folder, JOB_CARD_FILE))} (${Math.round(html.length / 1024)} KiB)\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
