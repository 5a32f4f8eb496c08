// The translation card's script (the template trial's card of its own): the card kit does the host bridge,
// theme, refresh and Cancel; this page only draws a translation job.
import { byTestId, drawMessage, drawProgress, drawStatus, setText } from '../../../cards/kit/card-dom';
import { creditsText } from '../../../cards/kit/card-text';
import { startJobCard } from '../../../cards/kit/job-card-kit';
import { jobStatusView } from '../../../cards/kit/job-status';
import type { Job } from '../../../shared/domain/jobs/job';

const main = document.querySelector('main')!;
const cancel = byTestId<HTMLButtonElement>('cancel');
const translated = byTestId('translated');

/** The chosen language from the job's input (or the call's arguments while the job is not there yet). */
function languageOf(input: unknown): string {
  const language = (input as { target_language?: unknown } | null)?.target_language;
  return typeof language === 'string' ? language : '…';
}

function drawJob(job: Job, cancelling: boolean): void {
  const status = jobStatusView(job);
  main.dataset.state = status.final ? 'final' : 'live';
  drawStatus(byTestId('status'), status);
  setText(byTestId('language'), languageOf(job.input));
  drawProgress(byTestId<HTMLProgressElement>('progress'), job.status === 'succeeded' ? 100 : (job.progress?.percent ?? null));
  setText(byTestId('progress-message'), job.progress?.message ?? '');
  setText(byTestId('cost'), creditsText(job.cost));
  drawMessage(byTestId('refund'), job.refunded_credits > 0 ? `(${creditsText(job.refunded_credits)} refunded)` : null);
  const result = job.status === 'succeeded' ? (job.result as { translated?: string; chunks?: number } | null) : null;
  translated.hidden = result === null;
  setText(byTestId('translated-text'), result?.translated ?? '');
  setText(byTestId('chunks'), result?.chunks === 1 ? '1 chunk' : `${result?.chunks ?? 0} chunks`);
  drawMessage(byTestId('error'), job.status === 'failed' ? (job.error?.message ?? 'The translation failed.') : null);
  cancel.hidden = status.final;
  cancel.disabled = cancelling || !status.canCancel;
}

startJobCard({
  name: 'connector-translation-card',
  cancelButton: cancel,
  drawing: {
    job: (job, state) => drawJob(job, state.cancelling),
    notice: (message) => drawMessage(byTestId('notice'), message),
    pending: (args) => setText(byTestId('language'), languageOf(args.input)),
  },
});
