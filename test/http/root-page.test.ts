import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { buildLlmsTxt } from '../../shared/contract/description/llms-txt';
import { buildOpenApiDocument } from '../../shared/contract/description/openapi-document';
import { SERVICE_INFO } from '../../shared/contract/description/service-info';
import { buildToolDefinitions } from '../../shared/contract/mcp/tool-definitions';
import { publishedOperations } from '../../shared/contract/operations/registry';
import { launchChromium } from '../support/chromium';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { connectMcp } from '../support/mcp-client';
import { freePort } from '../testkit/free-port';
import { waitFor } from '../testkit/wait-for';

/** What Chromium sends for a page it navigates to. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
/** The connector's own addresses the page links, by their key in the JSON form. */
const LINKED = { openapi: '/openapi.json', llms_txt: '/llms.txt', mcp: '/mcp', healthz: '/healthz' };

function get(c: ConnectorUnderTest, path: string, accept?: string, method = 'GET'): Promise<Response> {
  return fetch(`${c.baseUrl}${path}`, { method, headers: accept === undefined ? {} : { accept } });
}

/** The `href` of every link of an HTML page, in order. */
function hrefs(html: string): string[] {
  return [...html.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]);
}

describe('GET / (the root page)', () => {
  let c: ConnectorUnderTest;
  before(async () => {
    c = await startConnector('memory');
  });
  after(async () => c?.close());

  it('a browser’s Accept gets an HTML page naming the service and linking PUBLIC_URL’s /openapi.json, /llms.txt, /mcp and /healthz', async () => {
    const res = await get(c, '/', BROWSER_ACCEPT);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(res.headers.get('vary')).to.equal('Accept');
    const html = await res.text();
    expect(html).to.match(/^<!doctype html>/);
    expect(html).to.include(`<title>${SERVICE_INFO.name}</title>`).and.include(`<h1>${SERVICE_INFO.name}</h1>`);
    expect(hrefs(html)).to.deep.equal(Object.values(LINKED).map((path) => `${c.config.publicUrl}${path}`));
    expect(html).to.include('<code>docs/getting-started.md</code>');
    // Nothing for the service's `default-src 'none'` policy to block.
    expect(html).to.not.match(/<script|<style|style=|<img|<link/i);
  });

  it('Accept: application/json gets the same addresses as JSON', async () => {
    const res = await get(c, '/', 'application/json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(res.headers.get('vary')).to.equal('Accept');
    const body = (await res.json()) as Record<string, any>;
    expect(body).to.include({ name: SERVICE_INFO.name, summary: SERVICE_INFO.summary });
    expect(body.links).to.deep.equal(
      Object.fromEntries(Object.entries(LINKED).map(([key, path]) => [key, `${c.config.publicUrl}${path}`])),
    );
    expect(body.guides).to.deep.include({ title: 'Getting started', repository_path: 'docs/getting-started.md' });
  });

  it('negotiation: no Accept or */* (a program) gets JSON, text/html alone gets HTML, an Accept naming neither form gets JSON', async () => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'application/json'],
      ['*/*', 'application/json'],
      ['text/html', 'text/html'],
      ['application/json;q=0.5, text/html', 'text/html'],
      ['text/html;q=0.5, application/json', 'application/json'],
      ['image/png', 'application/json'],
    ];
    for (const [accept, type] of cases) {
      const res = await get(c, '/', accept);
      expect(res.status, String(accept)).to.equal(200);
      expect(res.headers.get('content-type'), String(accept)).to.match(new RegExp(`^${type.replace('/', '\\/')};`));
    }
  });

  it('HEAD answers 200 with the headers of the GET of the same form and no body', async () => {
    for (const accept of [BROWSER_ACCEPT, 'application/json']) {
      const head = await get(c, '/', accept, 'HEAD');
      const full = await get(c, '/', accept);
      expect(head.status, accept).to.equal(200);
      for (const name of ['content-type', 'content-length', 'cache-control', 'vary', 'content-security-policy']) {
        expect(head.headers.get(name), `${accept}: ${name}`).to.equal(full.headers.get(name));
      }
      expect(await head.text(), accept).to.equal('');
    }
  });

  it('any other method answers 405 problem+json with Allow: GET, HEAD', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const res = await fetch(`${c.baseUrl}/`, { method });
      expect(res.status, method).to.equal(405);
      expect(res.headers.get('allow'), method).to.equal('GET, HEAD');
      expect(res.headers.get('content-type'), method).to.match(/^application\/problem\+json/);
      expect((await res.json()) as object, method).to.include({ status: 405 });
    }
  });

  it('only the exact path / is the page: // and /index.html answer 404, a query string changes nothing', async () => {
    expect((await get(c, '//')).status).to.equal(404);
    expect((await get(c, '/index.html')).status).to.equal(404);
    expect((await get(c, '/?x=1')).status).to.equal(200);
  });

  it('is not an operation: /openapi.json and /llms.txt are exactly what the registry generates, and the MCP tools are the registry’s', async () => {
    const published = publishedOperations();
    const document = await (await get(c, '/openapi.json')).text();
    expect(document).to.equal(JSON.stringify(buildOpenApiDocument(published, c.config.publicUrl)));
    expect(Object.keys(JSON.parse(document).paths)).to.not.include('/');
    const llms = await (await get(c, '/llms.txt')).text();
    expect(llms).to.equal(buildLlmsTxt(published, { publicUrl: c.config.publicUrl, dashboardUrl: c.config.dashboardUrl }));
    const client = await connectMcp(`${c.baseUrl}/mcp`, await c.link(newSubject()), '2026-07-28');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).to.deep.equal(
        buildToolDefinitions(published)
          .map((tool) => tool.name)
          .sort(),
      );
    } finally {
      await client.close();
    }
  });

  it('is counted and logged under the route /', async () => {
    const res = await get(c, '/', 'application/json');
    const requestId = res.headers.get('x-request-id');
    const access = c.logs.lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'request' && line.req_id === requestId);
    expect(access).to.include({ route: '/', status: 200, method: 'GET' });
    const metrics = await (await fetch(c.metricsUrl)).text();
    expect(metrics).to.match(/^connector_http_requests_total\{method="GET",route="\/",status="200"\} \d+$/m);
  });
});

describe('GET / under a PUBLIC_URL with a path', () => {
  const PUBLIC_URL = 'http://localhost:8787/connector';
  let c: ConnectorUnderTest;
  before(async () => {
    c = await startConnector('memory', { PUBLIC_URL });
  });
  after(async () => c?.close());

  it('answers at the prefix with and without its trailing slash and at the root, every link carrying the prefix', async () => {
    for (const path of ['/connector', '/connector/', '/']) {
      const res = await get(c, path, BROWSER_ACCEPT);
      expect(res.status, path).to.equal(200);
      expect(hrefs(await res.text()), path).to.deep.equal(Object.values(LINKED).map((linked) => `${PUBLIC_URL}${linked}`));
    }
    expect((await get(c, '/connectorx')).status).to.equal(404);
  });
});

describe('GET / in headless Chromium', function () {
  this.timeout(30_000);
  let c: ConnectorUnderTest;
  let browser: Browser;
  before(async () => {
    // PUBLIC_URL is the address the browser uses, so following a link stays on this connector.
    const port = await freePort();
    c = await startConnector('memory', { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await c?.close();
  });

  it('renders the page under the service’s content policy without a violation, and its /openapi.json link opens the document', async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const answer = await page.goto(`${c.baseUrl}/`);
    expect(answer?.status()).to.equal(200);
    expect(await answer?.headerValue('content-security-policy')).to.equal("default-src 'none';frame-ancestors 'none'");
    expect(await page.locator('h1').textContent()).to.equal(SERVICE_INFO.name);
    expect(await page.locator('a').count()).to.equal(Object.keys(LINKED).length);
    expect(violations).to.deep.equal([]);

    // The policy is in force and a violation would be seen: an inline style added now is refused, and it is
    // the only violation of the page's life (console messages arrive in order).
    await page.evaluate("document.head.append(Object.assign(document.createElement('style'), { textContent: 'h1{color:red}' }))");
    await waitFor(() => violations.length > 0, { what: 'the inline style to be refused by the content policy' });
    expect(violations).to.have.length(1);
    expect(violations[0]).to.include('style-src');

    await Promise.all([page.waitForURL(`${c.config.publicUrl}/openapi.json`), page.locator('a', { hasText: '/openapi.json' }).click()]);
    expect(JSON.parse((await page.locator('body').textContent()) ?? '')).to.have.property('openapi');
    await page.close();
  });
});
