// The job card's script, run in the host's sandboxed iframe. Markup and its fixed test ids: job-card.html.
// Everything but the drawing (the host bridge, theme, refresh and Cancel) is the card kit's (cards/kit/).
import { startJobCard } from '../kit/job-card-kit';
import { cardElements, renderJob, renderNotice, renderPending } from './job-card-dom';

const elements = cardElements();

startJobCard({
  name: 'connector-job-card',
  cancelButton: elements.cancel,
  drawing: {
    job: (job, state) => renderJob(elements, job, state.format, state.cancelling),
    notice: (message) => renderNotice(elements, message),
    pending: (args) => renderPending(elements, args),
  },
});
