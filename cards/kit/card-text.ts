/** How a card shows times: the host's locale and time zone when it sent them. */
export interface TimeFormat {
  locale?: string;
  timeZone?: string;
}

/** `3 credits`, `1 credit`, `free`. */
export function creditsText(credits: number): string {
  if (credits === 0) return 'free';
  return `${credits} ${credits === 1 ? 'credit' : 'credits'}`;
}

/** Cuts `text` to `length` characters, marking the cut with an ellipsis. */
export function truncate(text: string, length: number): string {
  const chars = [...text];
  return chars.length <= length ? text : `${chars.slice(0, length - 1).join('')}…`;
}

/** A timestamp as the person reads it: in the host's locale and zone, else the browser's. */
export function formatTime(iso: string, format: TimeFormat = {}): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'medium' };
  try {
    return new Intl.DateTimeFormat(format.locale, { ...options, timeZone: format.timeZone }).format(date);
  } catch {
    // A locale or zone this browser does not know: its own defaults still give a readable time.
    return new Intl.DateTimeFormat(undefined, options).format(date);
  }
}
