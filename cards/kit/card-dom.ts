// The card kit's DOM helpers: the few writes every card of a job makes, done once.
import type { JobStatusView } from './job-status';

/** The element with `data-testid="<id>"`; a page without it is a mistake in its markup, said at once. */
export function byTestId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.querySelector<T>(`[data-testid="${id}"]`);
  if (!element) throw new Error(`the card has no ${id} element`);
  return element;
}

/** Sets text only when it changed: a live region re-announces every write, even of the same words. */
export function setText(element: HTMLElement, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

/** Puts a status into the kit's status element (`.status`): its words, `data-status` and `data-tone`. */
export function drawStatus(element: HTMLElement, view: JobStatusView): void {
  setText(element, view.label);
  element.dataset.status = view.status;
  element.dataset.tone = view.tone;
}

/** Sets a `<progress>` to `percent`, or makes it indeterminate with null, and says so to assistive technology. */
export function drawProgress(progress: HTMLProgressElement, percent: number | null): void {
  if (percent === null) progress.removeAttribute('value');
  else progress.value = percent;
  progress.setAttribute('aria-valuetext', percent === null ? 'In progress' : `${percent} percent`);
}

/** Shows (or, with null, clears and hides) a message in `element`. */
export function drawMessage(element: HTMLElement, message: string | null): void {
  element.hidden = message === null;
  setText(element, message ?? '');
}
