/** The mark a page shows beside a checked value: verified (with the block) or not, and why. */
import type { Check } from './verify.js';
import { h, link } from './ui.js';

/** A pending mark that becomes the outcome of `check`. */
export function verifiedMark(check: Promise<Check>, what: string): HTMLElement {
  const mark = h('span', { class: 'verify verify-pending', 'data-testid': 'verify', 'data-state': 'pending' }, `Verifying ${what}…`);
  check.then(
    (outcome) => show(mark, outcome, what),
    (e) => show(mark, { ok: false, reason: String(e) }, what),
  );
  return mark;
}

/** Sets `mark` to `outcome`. */
export function show(mark: HTMLElement, outcome: Check, what: string): void {
  if (outcome.ok) {
    mark.className = 'verify verify-ok';
    mark.dataset.state = 'verified';
    mark.replaceChildren(`✔ Verified: ${what} proven at block `, link(`/block/${outcome.height}`, String(outcome.height)), ' against the network key (', link('/trust', 'trust'), ')');
  } else {
    mark.className = 'verify verify-failed';
    mark.dataset.state = 'not-verified';
    mark.replaceChildren(`✘ Not verified: ${what}. ${outcome.reason}`);
  }
}
