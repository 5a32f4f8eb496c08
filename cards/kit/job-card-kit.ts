// The card kit: what every card of a job does in the host's sandboxed iframe, whatever it shows. The job card
// (cards/job-card/) and an operation's own card both start with it and only say how to draw a job.
import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import type { Job } from '../../shared/domain/jobs/job';
import type { TimeFormat } from './card-text';
import { newerJob, nextPollMs, readToolResult, type ToolResultLike } from './job-updates';

/** What a card is told besides the job: the host's locale and zone, and whether Cancel's call is on its way. */
export interface CardState {
  format: TimeFormat;
  cancelling: boolean;
}

/** How one card draws: the kit calls these, and the card puts what they are given into its DOM. */
export interface JobCardDrawing {
  /** Shows `job` (the newest snapshot the card has); called again on every refresh and host change. */
  job(job: Job, state: CardState): void;
  /** Shows (or, with null, clears) a message about a call through the host that did not work. */
  notice(message: string | null): void;
  /** Shows what was asked while its answer is on its way (the host sends a call's arguments first). */
  pending?(args: Record<string, unknown>): void;
}

/** A card to start: its name to the host, how it draws, and the button that cancels its job. */
export interface JobCardOptions {
  /** The name the view introduces itself with (`connector-report-card`). */
  name: string;
  drawing: JobCardDrawing;
  /** Pressed, it calls `cancel_job` through the host; the drawing shows or hides it. */
  cancelButton?: HTMLButtonElement;
}

/** Calls one of the connector's job tools through the host; a failure comes back as a message. */
async function callJobTool(app: App, name: 'get_job' | 'cancel_job', id: string): Promise<{ job: Job } | { message: string }> {
  try {
    const outcome = readToolResult((await app.callServerTool({ name, arguments: { id } })) as ToolResultLike);
    return outcome ?? { message: 'The connector answered something this card cannot show.' };
  } catch {
    return { message: 'The host could not reach the connector.' };
  }
}

/** One card's job and the loop that keeps it fresh: refresh at the job's poll hint, Cancel, host changes. */
class JobCardSession {
  private shown: Job | undefined;
  private readonly state: CardState = { format: {}, cancelling: false };
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private failuresInRow = 0;
  private tornDown = false;

  constructor(
    private readonly app: App,
    private readonly drawing: JobCardDrawing,
  ) {}

  /** True once a job is shown. */
  get hasJob(): boolean {
    return this.shown !== undefined;
  }

  show(incoming: Job): void {
    this.shown = newerJob(this.shown, incoming);
    this.redraw();
    this.scheduleRefresh();
  }

  /** Applies what the host said about itself: theme, style variables, locale and zone. Fonts stay local. */
  applyHostContext(context: McpUiHostContext | undefined): void {
    if (!context) return;
    if (context.theme) applyDocumentTheme(context.theme);
    if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
    this.state.format = { locale: context.locale, timeZone: context.timeZone };
    this.redraw();
  }

  async cancel(): Promise<void> {
    const job = this.shown;
    if (!job || this.state.cancelling) return;
    this.state.cancelling = true;
    this.redraw();
    const outcome = await callJobTool(this.app, 'cancel_job', job.id);
    this.state.cancelling = false;
    if (this.tornDown) return;
    if ('job' in outcome) {
      this.drawing.notice(null);
      this.show(outcome.job);
    } else {
      this.drawing.notice(outcome.message);
      this.redraw();
      // A refused cancel usually means the job just finished: show how it ended.
      void this.refresh();
    }
  }

  tearDown(): void {
    this.tornDown = true;
    clearTimeout(this.refreshTimer);
  }

  private redraw(): void {
    if (this.shown) this.drawing.job(this.shown, { ...this.state });
  }

  private scheduleRefresh(): void {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    const wait = this.shown && !this.tornDown ? nextPollMs(this.shown, this.failuresInRow) : null;
    if (wait !== null) this.refreshTimer = setTimeout(() => void this.refresh(), wait);
  }

  private async refresh(): Promise<void> {
    if (!this.shown || this.tornDown) return;
    const outcome = await callJobTool(this.app, 'get_job', this.shown.id);
    if (this.tornDown) return;
    if ('job' in outcome) {
      this.failuresInRow = 0;
      this.drawing.notice(null);
      this.show(outcome.job);
    } else {
      this.failuresInRow += 1;
      this.drawing.notice(`Could not refresh: ${outcome.message}`);
      this.scheduleRefresh();
    }
  }
}

/**
 * Starts a card of a job in the host: connects through the official MCP Apps `App`, takes the job from the
 * tool result, follows the host's theme, style variables, locale and zone, refreshes the job through `get_job`
 * at its poll hint while it runs, and cancels it through `cancel_job` when `cancelButton` is pressed.
 */
export function startJobCard(options: JobCardOptions): App {
  const { drawing } = options;
  const app = new App({ name: options.name, version: '1.0.0' }, {}, { autoResize: true });
  const session = new JobCardSession(app, drawing);
  options.cancelButton?.addEventListener('click', () => void session.cancel());

  // Handlers are set before connecting, so that nothing the host sends during the handshake is missed.
  app.ontoolinput = ({ arguments: args }) => {
    if (!session.hasJob) drawing.pending?.(args ?? {});
  };
  app.ontoolresult = (result) => {
    const outcome = readToolResult(result as ToolResultLike);
    if (outcome && 'job' in outcome) session.show(outcome.job);
    else if (outcome) drawing.notice(outcome.message);
  };
  app.ontoolcancelled = () => {
    if (!session.hasJob) drawing.notice('The call was cancelled before it answered.');
  };
  app.onhostcontextchanged = () => session.applyHostContext(app.getHostContext());
  app.onteardown = async () => {
    session.tearDown();
    return {};
  };
  void app.connect().then(
    () => session.applyHostContext(app.getHostContext()),
    () => drawing.notice('This card needs a host that speaks MCP Apps.'),
  );
  return app;
}
