/** The MCP Apps extension's identifier, under which client and server declare it (`capabilities.extensions`). */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

/** The mime type of an MCP Apps view: an HTML5 document the host renders in a sandboxed iframe. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The flat tool `_meta` key older hosts read; the extension's helpers still write it next to `ui.resourceUri`. */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/**
 * What the host may let a view reach, as the extension's resource metadata says it (`_meta.ui.csp`). Empty
 * lists mean nothing: the host's most restrictive policy, no connection and no outside resource.
 */
export interface AppCardCsp {
  connectDomains: string[];
  resourceDomains: string[];
  frameDomains: string[];
  baseUriDomains: string[];
}

/**
 * A `ui://` resource that hosts speaking MCP Apps render for the tools naming it. An operation names the card
 * its tool's results are shown in (`Operation.card`); the MCP server lists every card its tools name and serves
 * each one's HTML on `resources/read`.
 */
export interface AppCard {
  /** The resource's URI, `ui://…`; tools name it in `_meta.ui.resourceUri`. */
  uri: `ui://${string}`;
  /** A short human name for the resource list. */
  name: string;
  description: string;
  /** The whole self-contained HTML document (inline script and style): read once, then kept. */
  html(): Promise<string>;
  /** Outside origins the view needs; default none at all. */
  csp?: Partial<AppCardCsp>;
  /** Browser permissions the view asks for (camera, microphone, geolocation, clipboardWrite); default none. */
  permissions?: Record<string, Record<string, never>>;
  /** Whether the view asks the host for a visible border and background; default true. */
  prefersBorder?: boolean;
}

/** The `_meta.ui` a card's resource carries in `resources/list` and `resources/read`: empty where nothing is needed. */
export function cardResourceMeta(card: AppCard): Record<string, unknown> {
  return {
    ui: {
      csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [], ...card.csp },
      permissions: { ...card.permissions },
      prefersBorder: card.prefersBorder ?? true,
    },
  };
}

/** The tool `_meta` that names a card, in the current form and the deprecated flat one older hosts read. */
export function cardToolMeta(card: AppCard): Record<string, unknown> {
  return { ui: { resourceUri: card.uri }, [LEGACY_RESOURCE_URI_KEY]: card.uri };
}
