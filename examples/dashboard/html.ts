/** Markup that is already safe to send: only {@link html} makes one, so every other value gets escaped. */
export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an element's content or a double-quoted attribute value. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/**
 * A template tag that escapes every interpolated value (a client name, a subject, anything the connector or an
 * app chose) unless it is itself the output of `html`; arrays are joined. Escaping is the default, so a
 * forgotten call cannot open a hole.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  const part = (value: unknown): string =>
    value instanceof SafeHtml ? value.text : Array.isArray(value) ? value.map(part).join('') : escapeHtml(value ?? '');
  return new SafeHtml(strings.reduce((out, text, i) => out + text + (i < values.length ? part(values[i]) : ''), ''));
}

/** A whole page. */
export function page(title: string, body: SafeHtml): string {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}button{font-size:1rem}td{padding:.2rem .6rem}code{word-break:break-all}</style>
</head><body>${body}</body></html>`.text;
}
