/** Runners and jobs: the healthy runners, one runner with its assigned jobs, and one job. */
import { type Json, get, getOrNull } from '../api.js';
import { offsetList } from '../paged.js';
import { addressLink, badge, blockLink, bytesText, count, drv, fields, h, later, link, mono, section, table, txLink } from '../ui.js';

const jobLink = (id: string) => link(`/job/${id}`, mono(id));

function rateCard(card: Json): string {
  if (!card || typeof card !== 'object') return '—';
  return Object.entries(card)
    .map(([k, v]) => `${k.replace(/_/g, ' ')} ${count(v)}`)
    .join(', ');
}

export function runnerList(root: HTMLElement): void {
  root.append(
    section(
      'Active runners',
      offsetList(
        '/runners/active',
        'runners',
        ['Runner', 'Health', 'Stake', 'Delegated', 'Reputation', 'Jobs', 'Runs'],
        (items) => items.map((r) => [link(`/runner/${r.address}`, mono(r.address)), badge(r.health), drv(r.stake), drv(r.delegated_stake), String(r.reputation), String(r.active_jobs), (r.capabilities?.job_types ?? []).join(', ')]),
        'No healthy runners.',
      ),
    ),
    section('Find a job', h('p', { class: 'muted' }, 'Jobs are looked up by id: paste a job id (0x and 64 hex digits) in the search box, or follow one from a runner.')),
  );
}

export function runnerPage(root: HTMLElement, [address]: string[]): void {
  root.append(
    later(async () => {
      const r = await getOrNull(`/runner/${encodeURIComponent(address!)}`);
      if (!r) return section('Runner not found', h('p', null, `No runner registered at ${address}.`), h('p', null, link(`/address/${address}`, 'Its account')));
      return [
        section(
          'Runner',
          fields([
            ['Address', addressLink(r.address, true)],
            ['Health', badge(r.health)],
            ['Stake', drv(r.stake)],
            ['Delegated stake', drv(r.delegated_stake)],
            ['Reputation', String(r.reputation)],
            ['Registered at', blockLink(r.registered_height)],
            ['Last heartbeat', blockLink(r.last_heartbeat_height)],
            ['Job types', (r.capabilities?.job_types ?? []).join(', ') || '—'],
            ['Most jobs at once', String(r.capabilities?.max_concurrent_jobs ?? '—')],
            ['Rate card', rateCard(r.rate_card)],
            ['Active jobs', String(r.active_jobs)],
            ['Unbonding', String(r.unbonding?.length ?? 0)],
          ]),
        ),
        section(
          'Assigned jobs',
          offsetList(`/runner/${r.address}/jobs`, 'jobs', ['Job', 'Type', 'Status', 'Max price', 'Deadline'], (items) => items.map((j) => [jobLink(j.job_id), j.job_type, badge(j.status), drv(j.max_price), blockLink(j.deadline_height)]), 'No unanswered jobs.'),
        ),
      ];
    }),
  );
}

export function jobPage(root: HTMLElement, [id]: string[]): void {
  root.append(
    later(async () => {
      const jobId = encodeURIComponent(id!);
      const j = await getOrNull(`/job/${jobId}`);
      if (!j) return section('Job not found', h('p', null, `No job ${id}.`));
      const verified = await getOrNull(`/job/${jobId}/verified`);
      const results = await get(`/job/${jobId}/results?limit=50`);
      return [
        section(
          'Job',
          fields([
            ['Job id', mono(j.job_id)],
            ['Status', badge(j.status)],
            ['Type', j.job_type],
            ['Submitter', addressLink(j.submitter, true)],
            ['Input', h('span', { class: 'wrap' }, bytesText(j.input))],
            ['Runners', `${j.runners} (assigned: ${j.assigned_runners.length})`],
            ['Verification', JSON.stringify(j.verification)],
            ['Max price', drv(j.max_price)],
            ['Escrow', drv(j.escrow)],
            ['Submitted at', blockLink(j.submitted_height)],
            ['Deadline', blockLink(j.deadline_height)],
            ['Finished at', j.finished_height === null ? '—' : blockLink(j.finished_height)],
          ]),
          h('h3', null, 'Assigned runners'),
          table(['Runner'], j.assigned_runners.map((a: string) => [link(`/runner/${a}`, mono(a))]), 'None yet.'),
        ),
        section(
          'Results',
          verified ? fields([['Verified result', h('span', { class: 'wrap' }, bytesText(verified.result))], ['Agreement', `${verified.consensus_count} of ${verified.total_runners} runners`], ['At', blockLink(verified.height)]]) : h('p', { class: 'muted' }, 'No verified result yet.'),
          table(['Runner', 'Result', 'Block', 'Transaction'], results.results.map((r: Json) => [addressLink(r.runner), h('span', { class: 'wrap' }, bytesText(r.result)), blockLink(r.height), r.tx_hash ? txLink(r.tx_hash) : '—']), 'No results submitted.'),
        ),
      ];
    }),
  );
}
