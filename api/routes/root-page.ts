import { SERVICE_INFO } from '../../shared/contract/description/service-info';
import { escapeHtml } from '../http/escape-html';

/** One of the connector's own addresses the root page points at. */
interface Address {
  /** The key of its URL in the JSON form. */
  key: string;
  path: string;
  /** What a person finds there. */
  what: string;
}

/** The guides, in the connector's repository: the service does not serve them. */
export const ROOT_PAGE_GUIDES: ReadonlyArray<{ title: string; path: string }> = [
  { title: 'Getting started', path: 'docs/getting-started.md' },
  { title: 'Connecting assistants', path: 'docs/connecting-assistants.md' },
  { title: 'How the API behaves', path: 'docs/behaviour.md' },
  { title: 'Operating', path: 'docs/operating.md' },
];

const ADDRESSES: readonly Address[] = [
  { key: 'openapi', path: '/openapi.json', what: 'the OpenAPI document, for GPT Actions and other OpenAPI clients' },
  { key: 'llms_txt', path: '/llms.txt', what: 'the same operations described for a language model' },
  { key: 'mcp', path: '/mcp', what: 'the MCP endpoint (POST with a bearer token): the address to give an MCP client' },
  { key: 'healthz', path: '/healthz', what: 'the liveness probe' },
];

/** The root page in both of its forms, rendered once at start. */
export interface RootPage {
  html: string;
  json: string;
}

/**
 * The page at `/`: the service's name and summary, its public addresses and where the guides are. Links are
 * absolute, built on `PUBLIC_URL`, so they stay right whether an ingress kept its path prefix or stripped it,
 * and whether or not the browser's address ended in a slash. Nothing here comes from a request; the name and
 * `PUBLIC_URL` are escaped all the same. No style or script: the page renders under the service's
 * `default-src 'none'` content policy as plain HTML.
 */
export function renderRootPage(publicUrl: string): RootPage {
  const links = ADDRESSES.map((address) => ({ ...address, href: `${publicUrl}${address.path}` }));
  const json = {
    name: SERVICE_INFO.name,
    summary: SERVICE_INFO.summary,
    links: Object.fromEntries(links.map(({ key, href }) => [key, href])),
    guides: ROOT_PAGE_GUIDES.map(({ title, path }) => ({ title, repository_path: path })),
  };
  const name = escapeHtml(SERVICE_INFO.name);
  const items = links.map(({ href, what }) => `<li><a href="${escapeHtml(href)}">${escapeHtml(href)}</a>: ${escapeHtml(what)}</li>`);
  const guides = ROOT_PAGE_GUIDES.map(({ title, path }) => `<li>${escapeHtml(title)}: <code>${escapeHtml(path)}</code></li>`);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${name}</title></head>
<body>
<h1>${name}</h1>
<p>${escapeHtml(SERVICE_INFO.summary)}</p>
<h2>Addresses</h2>
<ul>
${items.join('\n')}
</ul>
<h2>Guides</h2>
<p>In the connector's repository:</p>
<ul>
${guides.join('\n')}
</ul>
</body></html>
`;
  return { html, json: JSON.stringify(json) };
}
