/** Trust: the network key proofs are verified against, and pinning the genesis file's key. */
import { errorBox, fields, h, later, section } from '../ui.js';
import { pin, trusted } from '../verify.js';

export function trustPage(root: HTMLElement): void {
  const input = h('input', { type: 'text', name: 'identity', placeholder: 'identity from the genesis file (hex)', spellcheck: 'false', autocomplete: 'off' });
  const outcome = h('div');
  root.append(
    section(
      'What the verified marks trust',
      h('p', null, 'Account balances and nonces, actor records, storage entries and receipts are checked in this browser: the finalization certificate’s BLS12-381 threshold signature against the network’s group public key, the certified block header, then the Merkle proof of the value against the header’s root. Only the group key is trusted.'),
      later(async () => {
        const t = await trusted();
        return fields([
          ['Group public key', h('span', { class: 'mono wrap', 'data-testid': 'identity' }, t.identity)],
          ['Where it came from', t.source === 'genesis file' ? 'the genesis file, pinned in this browser' : 'this node’s /chain-info on first visit, pinned in this browser (pin the genesis file’s key below to trust nothing from the node)'],
          ['Genesis', h('span', { class: 'mono' }, t.genesisHash)],
          ['Warning', t.conflict ? h('span', { class: 'error' }, `This node now reports another key (${t.conflict}); the pinned key is still used.`) : 'none'],
        ]);
      }),
    ),
    section(
      'Pin the key from the genesis file',
      h('p', { class: 'muted' }, 'Paste the `identity` field of the network’s genesis file.'),
      h(
        'form',
        {
          class: 'inline',
          onsubmit: (event: Event) => {
            event.preventDefault();
            pin(input.value).then(
              () => location.reload(),
              (e) => outcome.replaceChildren(errorBox(e)),
            );
          },
        },
        input,
        h('button', { type: 'submit' }, 'Pin'),
      ),
      outcome,
    ),
  );
}
