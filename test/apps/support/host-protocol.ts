// What the Node side of the test host and its page (browser/host-page.ts) pass each other through playwright.
// Types only, so that both the Node and the browser compilations can import it.
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/client';
import type { McpUiHostContext, McpUiResourcePermissions } from '@modelcontextprotocol/ext-apps';

/** What the Node side asks the page to mount: the card's document and what the host knows of the tool call. */
export interface MountRequest {
  html: string;
  permissions?: McpUiResourcePermissions;
  hostContext: McpUiHostContext;
  toolArguments: Record<string, unknown>;
  toolResult: CallToolResult;
}

/** What the page reports once the card has initialised: the view's own name and version. */
export interface Mounted {
  appName: string | undefined;
  appVersion: string | undefined;
}

/** The functions the page offers the Node side (`window.cardHost`). */
export interface CardHost {
  mountCard(request: MountRequest): Promise<Mounted>;
  changeHostContext(context: McpUiHostContext): Promise<void>;
}

/** The functions the Node side exposes to the page (playwright's `exposeFunction`). */
export interface NodeSide {
  /** Runs one `tools/call` against the connector and returns its result. */
  hostCallTool(params: CallToolRequest['params']): Promise<CallToolResult>;
  /** Records what the card logged through the bridge (`notifications/message`). */
  hostLog(entry: { level: string; data: unknown }): Promise<void>;
}
