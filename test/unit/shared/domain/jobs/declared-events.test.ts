import { expect } from 'chai';
import * as z from 'zod';
import {
  checkEmission,
  declaredEventsProblem,
  EventDeclarationError,
  MAX_EVENT_DATA_BYTES,
} from '../../../../../shared/domain/jobs/declared-events';

const READY = { description: 'A report was written.', data: z.strictObject({ topic: z.string().max(20_000), sections: z.int().min(1) }) };

describe('declared events (a paid job’s own webhook event types)', () => {
  it('well-named types with a description and object data have no problem; none declared has none', () => {
    expect(declaredEventsProblem({ 'report.ready': READY, 'report.page_written': READY })).to.equal(undefined);
    expect(declaredEventsProblem(undefined)).to.equal(undefined);
  });

  it('a type that is not lower-case dotted words, or takes a built-in prefix, is named with the rule', () => {
    expect(declaredEventsProblem({ Ready: READY })).to.match(/^the event type "Ready" is not lower-case dotted words/);
    expect(declaredEventsProblem({ ready: READY })).to.match(/"ready" is not lower-case dotted words/);
    expect(declaredEventsProblem({ [`a.${'b'.repeat(64)}`]: READY })).to.match(/at most 64 characters/);
    expect(declaredEventsProblem({ 'job.ready': READY })).to.equal(
      'the event type "job.ready" takes a prefix of the connector\'s own events (job., connection., credits.)',
    );
  });

  it('data that is not a zod object, declares a field every event carries, or an empty description is refused', () => {
    expect(declaredEventsProblem({ 'a.b': { description: 'x', data: z.string() as never } })).to.equal(
      'the event type "a.b" declares data that is not a zod object',
    );
    expect(declaredEventsProblem({ 'a.b': { description: 'x', data: z.object({ subject: z.string(), job_id: z.string() }) } })).to.equal(
      'the event type "a.b" declares job_id, subject, which every event\'s data carries already',
    );
    expect(declaredEventsProblem({ 'a.b': { ...READY, description: '' } })).to.match(/needs a description of 1 to 300 characters/);
  });

  it('an emission of a declared type with valid data answers the data as its schema read it', () => {
    expect(checkEmission('createReport', { 'report.ready': READY }, 'report.ready', { topic: 't', sections: 2 })).to.deep.equal({
      type: 'report.ready',
      data: { topic: 't', sections: 2 },
    });
  });

  it('an undeclared type, data outside the schema or over 16 KiB throws an EventDeclarationError naming the operation and type, never the values', () => {
    const events = { 'report.ready': READY };
    expect(() => checkEmission('createReport', events, 'report.done', {})).to.throw(
      EventDeclarationError,
      'createReport emitted the event type "report.done", which its job does not declare (report.ready)',
    );
    expect(() => checkEmission('countWords', undefined, 'x.y', {})).to.throw(EventDeclarationError, '(it declares none)');
    expect(() => checkEmission('createReport', events, 'toString', {})).to.throw(EventDeclarationError, 'does not declare');
    const thrown = (() => {
      try {
        checkEmission('createReport', events, 'report.ready', { topic: 'secret text', sections: 0 });
      } catch (error) {
        return error as Error;
      }
      return undefined;
    })();
    expect(thrown).to.be.instanceOf(EventDeclarationError);
    expect(thrown?.message).to.match(/^createReport emitted "report.ready" with data outside its schema: sections: /);
    expect(thrown?.message).to.not.include('secret text');
    expect(() => checkEmission('createReport', events, 'report.ready', { topic: 'x'.repeat(MAX_EVENT_DATA_BYTES), sections: 1 })).to.throw(
      EventDeclarationError,
      `(at most ${MAX_EVENT_DATA_BYTES})`,
    );
  });
});
