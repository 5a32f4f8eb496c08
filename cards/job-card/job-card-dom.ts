import type { Job } from '../../shared/domain/jobs/job';
import { byTestId, drawMessage, drawProgress, drawStatus, setText } from '../kit/card-dom';
import type { TimeFormat } from '../kit/card-text';
import { jobStatusView } from '../kit/job-status';
import { jobCardView, type ResultField, summariseInput } from './job-card-view';

/** The card's elements, found once by their fixed test ids (listed at the top of `job-card.html`). */
export interface CardElements {
  main: HTMLElement;
  status: HTMLElement;
  progress: HTMLProgressElement;
  progressMessage: HTMLElement;
  operation: HTMLElement;
  input: HTMLElement;
  cost: HTMLElement;
  refund: HTMLElement;
  refundRow: HTMLElement;
  kept: HTMLElement;
  keptRow: HTMLElement;
  created: HTMLTimeElement;
  finished: HTMLTimeElement;
  result: HTMLElement;
  resultFields: HTMLElement;
  partial: HTMLElement;
  partialFields: HTMLElement;
  error: HTMLElement;
  notice: HTMLElement;
  cancel: HTMLButtonElement;
}

/** Finds the card's elements in the document. */
export function cardElements(): CardElements {
  const refund = byTestId('refund');
  const kept = byTestId('kept');
  const result = byTestId('result');
  const partial = byTestId('partial');
  return {
    main: document.querySelector('main')!,
    status: byTestId('status'),
    progress: byTestId<HTMLProgressElement>('progress'),
    progressMessage: byTestId('progress-message'),
    operation: byTestId('operation'),
    input: byTestId('input'),
    cost: byTestId('cost'),
    refund,
    refundRow: refund.parentElement!,
    kept,
    keptRow: kept.parentElement!,
    created: byTestId<HTMLTimeElement>('created'),
    finished: byTestId<HTMLTimeElement>('finished'),
    result,
    resultFields: result.querySelector('dl')!,
    partial,
    partialFields: partial.querySelector('dl')!,
    error: byTestId('error'),
    notice: byTestId('notice'),
    cancel: byTestId<HTMLButtonElement>('cancel'),
  };
}

function setTime(element: HTMLTimeElement, iso: string | null, text: string | null): void {
  if (iso) element.dateTime = iso;
  else element.removeAttribute('datetime');
  setText(element, text ?? '');
}

/** Shows `job` in the card. `cancelling` keeps Cancel disabled while its call is on its way. */
export function renderJob(elements: CardElements, job: Job, format: TimeFormat, cancelling: boolean): void {
  const view = jobCardView(job, format);
  elements.main.dataset.state = view.final ? 'final' : 'live';
  elements.main.dataset.jobId = view.id;
  drawStatus(elements.status, jobStatusView(job));
  drawProgress(elements.progress, view.percent);
  setText(elements.progressMessage, view.progressMessage);
  setText(elements.operation, view.operation);
  setText(elements.input, view.inputSummary);
  setText(elements.cost, view.costText);
  elements.refundRow.hidden = view.refundText === null;
  setText(elements.refund, view.refundText ?? '');
  elements.keptRow.hidden = view.keptText === null;
  setText(elements.kept, view.keptText ?? '');
  setTime(elements.created, job.created_at, view.createdText);
  setTime(elements.finished, job.finished_at, view.finishedText);
  showFields(elements.result, elements.resultFields, view.resultFields);
  showFields(elements.partial, elements.partialFields, view.partialFields);
  elements.error.hidden = view.errorText === null;
  setText(elements.error, view.errorText ?? '');
  elements.cancel.hidden = view.final;
  elements.cancel.disabled = cancelling || !view.canCancel;
}

/** Lists `fields` in `list` (as text only), its section hidden when there are none. */
function showFields(section: HTMLElement, list: HTMLElement, fields: readonly ResultField[]): void {
  section.hidden = fields.length === 0;
  list.replaceChildren(
    ...fields.flatMap((field) => {
      const name = document.createElement('dt');
      name.textContent = field.name;
      const value = document.createElement('dd');
      value.textContent = field.value;
      return [name, value];
    }),
  );
}

/**
 * Shows what was asked while its answer is on its way (the host sends a call's arguments first): the input of
 * a paid call, or that a job is being read.
 */
export function renderPending(elements: CardElements, args: Record<string, unknown>): void {
  const input = args.input;
  if (typeof input === 'object' && input !== null) {
    setText(elements.status, 'Starting…');
    setText(elements.input, summariseInput(input as Record<string, unknown>));
  } else if (typeof args.id === 'string') {
    setText(elements.status, 'Loading the job…');
  }
}

/** Shows (or, with null, clears) a message about a call through the host that did not work. */
export function renderNotice(elements: CardElements, message: string | null): void {
  drawMessage(elements.notice, message);
}
