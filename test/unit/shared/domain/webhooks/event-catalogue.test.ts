import { expect } from 'chai';
import * as z from 'zod';
import { paidJob } from '../../../../../shared/domain/jobs/processor';
import { assertKnownEventTypes, eventCatalogue, unknownEventTypes } from '../../../../../shared/domain/webhooks/event-catalogue';
import { EVENT_TYPES } from '../../../../../shared/domain/webhooks/webhook-event';
import { translateJob } from '../../../../support/extra-operations';

const noted = (operationId: string) =>
  paidJob({
    operationId,
    input: z.strictObject({ n: z.int() }),
    events: { 'note.taken': { description: 'A note was taken.', data: z.strictObject({ n: z.int() }) } },
    processor: () => async () => ({}),
  });

describe('the event catalogue', () => {
  it('lists the connector’s own types first, each with a description and an object data schema', () => {
    const catalogue = eventCatalogue([]);
    expect(catalogue.map((entry) => entry.type)).to.deep.equal([...EVENT_TYPES]);
    for (const entry of catalogue) {
      expect(entry.source).to.equal('connector');
      expect(entry.description).to.match(/\.$/);
      expect(entry.data_schema.type, entry.type).to.equal('object');
      expect(entry.data_schema).to.not.have.property('$schema');
    }
    expect(catalogue.find((e) => e.type === 'credits.low')?.data_schema.required).to.deep.equal(['subject', 'balance', 'threshold']);
  });

  it('then a job’s declared types, with its operation and its data schema plus job_id, operation and subject', () => {
    const entry = eventCatalogue([translateJob]).at(-1)!;
    expect(entry).to.deep.include({ type: 'translation.chunked', source: 'translateDocument' });
    expect(entry.data_schema.required).to.deep.equal(['chunk', 'chunks', 'target_language', 'job_id', 'operation', 'subject']);
    expect(entry.data_schema.additionalProperties).to.equal(false);
  });

  it('one type declared by two jobs is refused, naming both', () => {
    expect(() => eventCatalogue([noted('a'), noted('b')])).to.throw('the event type "note.taken" is declared by both a and b');
  });

  it('unknown names are the ones no entry has; a WEBHOOK_EVENT_TYPES naming one refuses with the variable and the names', () => {
    const catalogue = eventCatalogue([translateJob]);
    expect(unknownEventTypes(['job.failed', 'translation.chunked', 'report.redy'], catalogue)).to.deep.equal(['report.redy']);
    expect(() => assertKnownEventTypes({ eventTypes: ['job.failed', 'translation.chunked'] }, [translateJob])).to.not.throw();
    expect(() => assertKnownEventTypes(undefined, [])).to.not.throw();
    expect(() => assertKnownEventTypes({ eventTypes: ['translation.chunked'] }, [])).to.throw(
      'invalid configuration: WEBHOOK_EVENT_TYPES names event types the connector does not send: translation.chunked',
    );
  });
});
