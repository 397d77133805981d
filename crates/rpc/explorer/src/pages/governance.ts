/** Governance: the chain parameters in force, the proposals, and one proposal with its votes. */
import { get, getOrNull } from '../api.js';
import { offsetList } from '../paged.js';
import { addressLink, badge, blockLink, count, drv, fields, h, later, link, section, table } from '../ui.js';

export function governancePage(root: HTMLElement): void {
  root.append(
    section(
      'Parameters',
      later(async () => {
        const p = await get('/governance/params');
        return [
          h('p', { class: 'muted' }, `In force for the block after ${p.height}; ${drv(p.total_locked)} locked for voting.`),
          table(['Name', 'Value', 'Default', 'Range', 'Meaning'], p.params.map((x: { name: string; value: string; default: string; min: string; max: string; description: string }) => [h('span', { class: 'mono' }, x.name), count(x.value), count(x.default), `${count(x.min)}–${count(x.max)}`, x.description])),
        ];
      }),
    ),
    section(
      'Proposals',
      offsetList(
        '/governance/proposals',
        'proposals',
        ['Id', 'Status', 'Proposer', 'For', 'Against', 'Votes', 'Voting ends', 'Description'],
        (items) => items.map((x) => [link(`/proposal/${x.id}`, `#${x.id}`), badge(x.status), addressLink(x.proposer), drv(x.votes_for), drv(x.votes_against), String(x.votes_count), blockLink(x.voting_ends_height), x.description]),
        'No proposals.',
      ),
    ),
  );
}

export function proposalPage(root: HTMLElement, [id]: string[]): void {
  root.append(
    later(async () => {
      const p = await getOrNull(`/governance/proposal/${encodeURIComponent(id!)}?limit=100`);
      if (!p) return section('Proposal not found', h('p', null, `No proposal ${id}.`));
      return [
        section(
          `Proposal #${p.id}`,
          fields([
            ['Status', badge(p.status)],
            ['Proposer', addressLink(p.proposer, true)],
            ['Description', p.description],
            ['Changes', table(['Parameter', 'New value'], Object.entries(p.changes ?? {}).map(([k, v]) => [h('span', { class: 'mono' }, k), count(v)]))],
            ['Deposit', drv(p.deposit)],
            ['Votes', `${drv(p.votes_for)} for, ${drv(p.votes_against)} against (${p.votes_count} votes; quorum ${drv(p.quorum_weight)}, approval ${p.approval_percent} %)`],
            ['Created at', blockLink(p.created_height)],
            ['Voting ends', blockLink(p.voting_ends_height)],
            ['Executable from', blockLink(p.executable_height)],
            ['Expires', blockLink(p.expires_height)],
          ]),
        ),
        section('Timeline', table(['Block', 'Event'], p.timeline.map((t: { height: number; event: string }) => [blockLink(t.height), t.event]))),
        section('Votes', table(['Voter', 'Support', 'Weight', 'Block'], p.votes.map((v: { voter: string; support: boolean; weight: number | bigint; height: number }) => [addressLink(v.voter), v.support ? 'for' : 'against', drv(v.weight), blockLink(v.height)]), 'No votes.')),
      ];
    }),
  );
}
