import type { McpHandlerRequestOptions } from '@modelcontextprotocol/server';
import { expect } from 'chai';
import { type McpErrorLog, mcpErrorLog } from '../../../../api/mcp/mcp-error-log';
import type { FetchMcpHandler } from '../../../../api/mcp/mcp-http-handler';
import { createLogger } from '../../../../shared/platform/logging/logger';
import { LogCapture } from '../../../support/log-capture';

/** What the handler under test does for one request: report errors, then answer with a status. */
type Script = (report: (message: string) => void) => Promise<number>;

/** An error log over a captured logger, and a stand-in for the SDK's handler that runs a script per request. */
function setUp(): { capture: LogCapture; log: McpErrorLog; handler: FetchMcpHandler; scripts: Map<string, Script> } {
  const capture = new LogCapture();
  const scripts = new Map<string, Script>();
  const log = mcpErrorLog(createLogger('trace', 'mcp-error-log-test', capture));
  const inner: FetchMcpHandler = {
    fetch: async (request) => {
      const script = scripts.get(request.headers.get('x-script')!)!;
      return new Response(null, { status: await script((message) => log.onerror(new Error(message))) });
    },
  };
  return { capture, log, handler: log.around(inner), scripts };
}

function send(handler: FetchMcpHandler, script: string, requestId: string): Promise<Response> {
  const options = { authInfo: { token: '', clientId: 'c', scopes: [], extra: { caller: { requestId } } } } as McpHandlerRequestOptions;
  return handler.fetch(new Request('http://localhost/mcp', { method: 'POST', headers: { 'x-script': script } }), options);
}

function lines(capture: LogCapture): Array<Record<string, any>> {
  return capture.lines.map((line) => JSON.parse(line));
}

describe('MCP error reports in the log (mcpErrorLog)', () => {
  it('a report of a request answered 4xx is one info line with the status and the reason, and no stack', async () => {
    const { capture, handler, scripts } = setUp();
    scripts.set('refuse', async (report) => {
      report('Not Acceptable: Client must accept both application/json and text/event-stream');
      return 406;
    });
    expect((await send(handler, 'refuse', 'req-1')).status).to.equal(406);
    expect(lines(capture)).to.have.length(1);
    const [line] = lines(capture);
    expect(line).to.include({ level: 30, msg: 'mcp request refused', req_id: 'req-1', status: 406 });
    expect(line.reason).to.match(/^Not Acceptable/);
    expect(line).to.not.have.property('err');
    expect(capture.text()).to.not.include('stack');
  });

  it('a report of a request answered 5xx is an error line with the error and its stack', async () => {
    const { capture, handler, scripts } = setUp();
    scripts.set('fail', async (report) => {
      report('the server could not be built');
      return 500;
    });
    expect((await send(handler, 'fail', 'req-2')).status).to.equal(500);
    const [line] = lines(capture);
    expect(line).to.include({ level: 50, msg: 'mcp request failed', req_id: 'req-2', status: 500 });
    expect(line.err).to.include({ message: 'the server could not be built' });
    expect(line.err.stack).to.match(/^Error: the server could not be built\n\s+at /);
  });

  it('reports of requests in flight together are each logged with their own request’s id and status', async () => {
    const { capture, handler, scripts } = setUp();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const reportedFirst = new Promise<void>((resolve) => (started = resolve));
    scripts.set('slow-refusal', async (report) => {
      report('first half');
      started();
      await held;
      report('second half');
      return 415;
    });
    scripts.set('fault', async (report) => {
      report('broken');
      return 503;
    });
    const slow = send(handler, 'slow-refusal', 'req-slow');
    await reportedFirst;
    await send(handler, 'fault', 'req-fault');
    release();
    await slow;
    const summary = lines(capture).map((line) => [line.req_id, line.level, line.status, line.reason ?? line.err.message]);
    expect(summary).to.deep.equal([
      ['req-fault', 50, 503, 'broken'],
      ['req-slow', 30, 415, 'first half'],
      ['req-slow', 30, 415, 'second half'],
    ]);
  });

  it('a report after the answer, or outside any request, is an error line with the stack: nothing shows it was the client’s', async () => {
    const { capture, log, handler, scripts } = setUp();
    let later!: () => void;
    const afterAnswer = new Promise<void>((resolve) => (later = resolve));
    scripts.set('late', async (report) => {
      void afterAnswer.then(() => report('close failed'));
      return 200;
    });
    expect((await send(handler, 'late', 'req-late')).status).to.equal(200);
    later();
    await afterAnswer;
    log.onerror(new Error('listener failed'));
    const found = lines(capture).map((line) => [line.req_id, line.level, line.err?.message, typeof line.err?.stack]);
    expect(found).to.deep.equal([
      ['req-late', 50, 'close failed', 'string'],
      [undefined, 50, 'listener failed', 'string'],
    ]);
  });

  it('a handler that throws: its reports are error lines with status 500 and the error passes on', async () => {
    const { capture, handler, scripts } = setUp();
    scripts.set('throw', async (report) => {
      report('about to throw');
      throw new Error('handler threw');
    });
    const thrown = await send(handler, 'throw', 'req-throw').then(
      () => undefined,
      (error: Error) => error,
    );
    expect(thrown?.message).to.equal('handler threw');
    expect(lines(capture).map((line) => [line.level, line.status, line.err?.message])).to.deep.equal([[50, 500, 'about to throw']]);
  });

  it('a refusal’s reason is cut to 300 characters', async () => {
    const { capture, handler, scripts } = setUp();
    scripts.set('long', async (report) => {
      report(`Unknown tool: ${'x'.repeat(5000)}`);
      return 400;
    });
    await send(handler, 'long', 'req-long');
    expect(lines(capture)[0].reason).to.have.length(300);
  });
});
