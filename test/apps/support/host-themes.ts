import type { Tool } from '@modelcontextprotocol/client';
import type { McpUiHostContext, McpUiStyles, McpUiTheme } from '@modelcontextprotocol/ext-apps';
import { COLUMN_WIDTH } from './host-server';

/** The themes the card is shown in. */
export const THEMES: readonly McpUiTheme[] = ['light', 'dark'];

/**
 * A host's style variables per theme, a subset of the extension's names. Written as `rgb()` so that a computed
 * style can be compared with them as they are; each differs from the card's own fallbacks, so a card that
 * shows them follows the host and not itself.
 */
export const HOST_VARIABLES: Record<McpUiTheme, Partial<McpUiStyles>> = {
  light: {
    '--color-background-primary': 'rgb(250, 249, 245)',
    '--color-background-secondary': 'rgb(240, 238, 230)',
    '--color-text-primary': 'rgb(20, 20, 19)',
    '--color-text-secondary': 'rgb(94, 93, 89)',
    '--color-border-primary': 'rgb(222, 220, 209)',
    '--font-sans': 'system-ui, sans-serif',
    '--border-radius-md': '8px',
  },
  dark: {
    '--color-background-primary': 'rgb(38, 38, 36)',
    '--color-background-secondary': 'rgb(31, 30, 29)',
    '--color-text-primary': 'rgb(250, 249, 245)',
    '--color-text-secondary': 'rgb(194, 192, 182)',
    '--color-border-primary': 'rgb(62, 62, 56)',
    '--font-sans': 'system-ui, sans-serif',
    '--border-radius-md': '8px',
  },
};

/** The host context a chat host sends a card shown inline in a {@link COLUMN_WIDTH}-pixel column. */
export function hostContext(theme: McpUiTheme, tool: Tool): McpUiHostContext {
  return {
    toolInfo: { tool },
    theme,
    styles: { variables: HOST_VARIABLES[theme] as McpUiStyles },
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    containerDimensions: { width: COLUMN_WIDTH, maxHeight: 800 },
    locale: 'en-US',
    timeZone: 'UTC',
    platform: 'web',
    deviceCapabilities: { touch: false, hover: true },
  };
}

/** Only what changes when the person switches the host's theme. */
export function themeChange(theme: McpUiTheme): McpUiHostContext {
  return { theme, styles: { variables: HOST_VARIABLES[theme] as McpUiStyles } };
}
