import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { launchChromium } from '../../support/chromium';
import type { Mounted, MountRequest, CardHost as PageCardHost } from './host-protocol';
import { COLUMN_WIDTH, type HostServer, startHostServer } from './host-server';

/** The page's globals, as functions that playwright runs in the page see them (they cannot close over Node's). */
type PageGlobals = { cardHost: PageCardHost };

/** Levels of the card's log messages (`notifications/message`) that count as a problem. */
const SEVERE_LEVELS = new Set(['error', 'critical', 'alert', 'emergency']);

/** Pixels per CSS pixel in the screenshots: sharp on high-density screens. */
export const SCREENSHOT_SCALE = 2;

/** What a test asks the host to show: a tool's call and result, and the card's document read from the connector. */
export interface CardRequest extends MountRequest {
  /** The MCP client, connected to the connector, that the card's tool calls go through. */
  client: Client;
}

/** One card mounted in its own browser context, with everything the host saw it do. */
export interface OpenCard {
  readonly page: Page;
  /** The card's own document (the sandboxed iframe). */
  readonly frame: Frame;
  readonly mounted: Mounted;
  /** Each `tools/call` the card made through the host, in order. */
  readonly toolCalls: Array<{ name: string; arguments: Record<string, unknown> | undefined }>;
  /** What the card logged through the bridge. */
  readonly logs: Array<{ level: string; data: unknown }>;
  /** Requests that left the harness's origin or came from the card, page errors and console errors. */
  readonly problems: string[];
  /** Sends the card a new host context (theme, style variables) and repaints the host page with it. */
  changeHostContext(context: McpUiHostContext): Promise<void>;
  close(): Promise<void>;
}

/**
 * A host for MCP Apps views: headless Chromium showing the harness's page (browser/host-page.ts, the official
 * AppBridge) with the card in a sandboxed iframe in a {@link COLUMN_WIDTH}-pixel column. The card's tool calls
 * reach the connector through the test's MCP client on the Node side, so the browser itself never needs to
 * leave the harness's origin: every request is routed, and one to anywhere else is refused and recorded.
 */
export class CardHost {
  private constructor(
    private readonly browser: Browser,
    private readonly server: HostServer,
  ) {}

  static async start(): Promise<CardHost> {
    const server = await startHostServer();
    try {
      return new CardHost(await launchChromium(), server);
    } catch (error) {
      await server.close();
      throw error;
    }
  }

  /** The harness's own origin, the only one the browser may reach. */
  get origin(): string {
    return this.server.origin;
  }

  /** Opens the host page in a fresh context and mounts the card; resolves once the card has initialised. */
  async open({ client, ...request }: CardRequest): Promise<OpenCard> {
    const context = await this.browser.newContext({
      viewport: { width: COLUMN_WIDTH + 40, height: 720 },
      deviceScaleFactor: SCREENSHOT_SCALE,
      locale: 'en-US',
      timezoneId: 'UTC',
      // The system preference stays light: a dark card can only come from the host's theme.
      colorScheme: 'light',
    });
    // Well inside a test's timeout, so a card that never gets there fails with what was awaited.
    context.setDefaultTimeout(15_000);
    try {
      return await this.mount(context, client, request);
    } catch (error) {
      await context.close();
      throw error;
    }
  }

  private async mount(context: BrowserContext, client: Client, request: MountRequest): Promise<OpenCard> {
    const problems: string[] = [];
    const toolCalls: OpenCard['toolCalls'] = [];
    const logs: OpenCard['logs'] = [];
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === this.server.origin) return route.continue();
      problems.push(`request outside the harness: ${route.request().method()} ${url}`);
      return route.abort('blockedbyclient');
    });
    await context.exposeFunction('hostCallTool', async (params: { name: string; arguments?: Record<string, unknown> }) => {
      toolCalls.push({ name: params.name, arguments: params.arguments });
      return (await client.callTool(params)) as CallToolResult;
    });
    await context.exposeFunction('hostLog', (entry: { level: string; data: unknown }) => {
      logs.push(entry);
      if (SEVERE_LEVELS.has(entry.level)) problems.push(`card logged ${entry.level}: ${JSON.stringify(entry.data)}`);
    });
    const page = await context.newPage();
    page.on('request', (req) => {
      if (req.frame() !== page.mainFrame()) problems.push(`request from the card: ${req.method()} ${req.url()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    await page.goto(`${this.server.origin}/`);
    // Typed loosely on the way in: playwright's serialisable-argument type cannot follow the SDK's result types.
    const mounted: Mounted = await page.evaluate(
      (mountRequest: unknown) => (globalThis as unknown as PageGlobals).cardHost.mountCard(mountRequest as MountRequest),
      request as unknown,
    );
    const frame = await (await page.waitForSelector('iframe#card')).contentFrame();
    if (!frame) throw new Error('the card iframe has no document');
    return {
      page,
      frame,
      mounted,
      toolCalls,
      logs,
      problems,
      changeHostContext: (hostContext) =>
        page.evaluate(
          (changed: unknown) => (globalThis as unknown as PageGlobals).cardHost.changeHostContext(changed as McpUiHostContext),
          hostContext as unknown,
        ),
      close: () => context.close(),
    };
  }

  async close(): Promise<void> {
    await this.browser.close();
    await this.server.close();
  }
}
