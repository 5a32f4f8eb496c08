// The job card's script, run in the host's sandboxed iframe. Markup and its fixed test ids: job-card.html.
import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import type { Job } from '../../shared/domain/jobs/job';
import { cardElements, renderJob, renderNotice, renderPending } from './job-card-dom';
import { newerJob, nextPollMs, readToolResult, type TimeFormat, type ToolResultLike } from './job-card-view';

const elements = cardElements();
const app = new App({ name: 'connector-job-card', version: '1.0.0' }, {}, { autoResize: true });

let job: Job | undefined;
let format: TimeFormat = {};
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let failuresInRow = 0;
let cancelling = false;
let tornDown = false;

function show(incoming: Job): void {
  job = newerJob(job, incoming);
  renderJob(elements, job, format, cancelling);
  scheduleRefresh();
}

/** Applies what the host said about itself: theme, style variables, locale and zone. Fonts stay local. */
function applyHostContext(context: McpUiHostContext | undefined): void {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  format = { locale: context.locale, timeZone: context.timeZone };
  if (job) renderJob(elements, job, format, cancelling);
}

/** Calls one of the connector's job tools through the host; a failure comes back as a message. */
async function callJobTool(name: 'get_job' | 'cancel_job', id: string): Promise<{ job: Job } | { message: string }> {
  try {
    const outcome = readToolResult((await app.callServerTool({ name, arguments: { id } })) as ToolResultLike);
    return outcome ?? { message: 'The connector answered something this card cannot show.' };
  } catch {
    return { message: 'The host could not reach the connector.' };
  }
}

function scheduleRefresh(): void {
  clearTimeout(refreshTimer);
  refreshTimer = undefined;
  const wait = job && !tornDown ? nextPollMs(job, failuresInRow) : null;
  if (wait !== null) refreshTimer = setTimeout(refresh, wait);
}

async function refresh(): Promise<void> {
  if (!job || tornDown) return;
  const outcome = await callJobTool('get_job', job.id);
  if (tornDown) return;
  if ('job' in outcome) {
    failuresInRow = 0;
    renderNotice(elements, null);
    show(outcome.job);
  } else {
    failuresInRow += 1;
    renderNotice(elements, `Could not refresh: ${outcome.message}`);
    scheduleRefresh();
  }
}

async function cancel(): Promise<void> {
  if (!job || cancelling) return;
  cancelling = true;
  renderJob(elements, job, format, cancelling);
  const outcome = await callJobTool('cancel_job', job.id);
  cancelling = false;
  if (tornDown) return;
  if ('job' in outcome) {
    renderNotice(elements, null);
    show(outcome.job);
  } else {
    renderNotice(elements, outcome.message);
    renderJob(elements, job, format, cancelling);
    // A refused cancel usually means the job just finished: show how it ended.
    void refresh();
  }
}

elements.cancel.addEventListener('click', () => void cancel());

// Handlers are set before connecting, so that nothing the host sends during the handshake is missed.
app.ontoolinput = ({ arguments: args }) => {
  if (!job) renderPending(elements, args ?? {});
};
app.ontoolresult = (result) => {
  const outcome = readToolResult(result as ToolResultLike);
  if (outcome && 'job' in outcome) show(outcome.job);
  else if (outcome) renderNotice(elements, outcome.message);
};
app.ontoolcancelled = () => {
  if (!job) renderNotice(elements, 'The call was cancelled before it answered.');
};
app.onhostcontextchanged = () => applyHostContext(app.getHostContext());
app.onteardown = async () => {
  tornDown = true;
  clearTimeout(refreshTimer);
  return {};
};

void app.connect().then(
  () => applyHostContext(app.getHostContext()),
  () => renderNotice(elements, 'This card needs a host that speaks MCP Apps.'),
);
