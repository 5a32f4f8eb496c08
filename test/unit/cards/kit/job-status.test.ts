import { expect } from 'chai';
import { jobStatusView } from '../../../../cards/kit/job-status';
import { JOB_STATUSES } from '../../../../shared/domain/jobs/job';

describe('the card kit’s status of a job', () => {
  it('each status has its words and tone; only a job that is not final and not asked to stop may be canceled', () => {
    const views = JOB_STATUSES.map((status) => jobStatusView({ status, cancel_requested_at: null }));
    expect(views.map(({ label, tone, final, canCancel }) => [label, tone, final, canCancel])).to.deep.equal([
      ['Queued', 'waiting', false, true],
      ['Running', 'working', false, true],
      ['Succeeded', 'success', true, false],
      ['Failed', 'danger', true, false],
      ['Canceled', 'muted', true, false],
    ]);
  });

  it('a running job asked to stop reads "Stopping…" and offers no Cancel; a canceled one reads Canceled', () => {
    const asked = '2026-11-25T10:00:03.000Z';
    expect(jobStatusView({ status: 'running', cancel_requested_at: asked })).to.include({
      label: 'Stopping…',
      canCancel: false,
      final: false,
    });
    expect(jobStatusView({ status: 'canceled', cancel_requested_at: asked })).to.include({ label: 'Canceled', final: true });
  });
});
