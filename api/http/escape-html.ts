/**
 * Text made safe for an HTML element or a double- or single-quoted attribute: the five characters that could
 * end either are written as numeric character references.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
