import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppCard } from './app-card';

/**
 * A card built from a page in the repository: an HTML shell (`<name>.html`) beside its style sheet
 * (`<name>.css`) and its script (`<name>-page.ts`). `npm run build` bundles each one the tools name into one
 * self-contained document (scripts/build-cards.ts); the server reads that document, never the sources.
 */
export interface PageCard extends AppCard {
  /** The page's HTML shell, relative to the repository root (`cards/job-card/job-card.html`). */
  page: string;
}

/** Turns a page card into its whole HTML document. */
export type CardPageLoader = (card: PageCard) => Promise<string>;

/** The folder under dist/ the build writes bundled cards to, each under its URI without `ui://`. */
export const BUILT_CARDS_DIR = 'app-cards';

/** This module's compiled form is in dist/shared/contract/cards/: three folders down from dist/. */
const DIST_ROOT = path.resolve(__dirname, '..', '..', '..');

/** Where the build writes `card`'s document, relative to dist/ (`app-cards/connector/job-card.html`). */
export function builtCardFile(card: Pick<AppCard, 'uri'>): string {
  return path.join(BUILT_CARDS_DIR, ...card.uri.slice('ui://'.length).split('/'));
}

/** The production loader, the default: the document `npm run build` wrote into dist/. */
export async function readBuiltCard(card: PageCard): Promise<string> {
  try {
    return await readFile(path.join(DIST_ROOT, builtCardFile(card)), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new Error(`the card ${card.uri} is not built: run npm run build (npm run dev bundles it from ${card.page})`);
  }
}

let loader: CardPageLoader = readBuiltCard;
const loaded = new Map<string, Promise<string>>();

/**
 * Makes every page card load with `custom` from now on, and returns the loader it replaces: a process run
 * from the sources (`npm run dev`, the tests) hands in the bundler, which the build keeps out of dist/.
 * Documents already read are forgotten when the loader changes.
 */
export function loadCardPagesWith(custom: CardPageLoader): CardPageLoader {
  const previous = loader;
  if (custom !== previous) loaded.clear();
  loader = custom;
  return previous;
}

/** True when `card` is built from a page in the repository. */
export function isPageCard(card: AppCard): card is PageCard {
  return typeof (card as Partial<PageCard>).page === 'string';
}

/** A card served from its bundled page, read once and kept (a failed read is not kept: the next one tries again). */
export function pageCard(spec: Omit<PageCard, 'html'>): PageCard {
  const card: PageCard = {
    ...spec,
    html: () => {
      let loading = loaded.get(card.uri);
      if (!loading) {
        loading = loader(card);
        loaded.set(card.uri, loading);
        loading.catch(() => {
          if (loaded.get(card.uri) === loading) loaded.delete(card.uri);
        });
      }
      return loading;
    },
  };
  return card;
}
