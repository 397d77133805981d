/**
 * The explorer's entry point: the layout (header with search and navigation), and a router over
 * the location's hash (`#/tx/0x…`), so the node serves one page and every route works offline
 * and on reload. Each page renders into `main` and may return a stop function (its timers and
 * block subscriptions), called when the route changes.
 */
import { h, link } from './ui.js';
import { home } from './pages/home.js';
import { blockList, blockPage } from './pages/blocks.js';
import { txPage } from './pages/tx.js';
import { addressPage } from './pages/address.js';
import { tokenList, tokenPage } from './pages/tokens.js';
import { jobPage, runnerList, runnerPage } from './pages/runners.js';
import { governancePage, proposalPage } from './pages/governance.js';
import { storagePage } from './pages/storage.js';
import { searchPage, searchTarget } from './pages/search.js';
import { trustPage } from './pages/trust.js';

/** A page: renders into `root` from the route's parameters; may return its stop function. */
export type Page = (root: HTMLElement, params: string[], query: URLSearchParams) => void | (() => void);

const ROUTES: [RegExp, Page][] = [
  [/^\/?$/, home],
  [/^\/blocks$/, blockList],
  [/^\/block\/([^/]+)$/, blockPage],
  [/^\/tx\/([^/]+)$/, txPage],
  [/^\/address\/([^/]+)$/, addressPage],
  [/^\/tokens$/, tokenList],
  [/^\/token\/([^/]+)$/, tokenPage],
  [/^\/runners$/, runnerList],
  [/^\/runner\/([^/]+)$/, runnerPage],
  [/^\/job\/([^/]+)$/, jobPage],
  [/^\/governance$/, governancePage],
  [/^\/proposal\/([^/]+)$/, proposalPage],
  [/^\/storage$/, storagePage],
  [/^\/search\/(.*)$/, searchPage],
  [/^\/trust$/, trustPage],
];

const NAV: [string, string][] = [
  ['/', 'Home'],
  ['/blocks', 'Blocks'],
  ['/tokens', 'Tokens'],
  ['/runners', 'Runners & jobs'],
  ['/governance', 'Governance'],
  ['/storage', 'Storage'],
  ['/trust', 'Trust'],
];

let stop: (() => void) | null = null;

function render(main: HTMLElement): void {
  stop?.();
  stop = null;
  const hash = decodeURIComponent(location.hash.replace(/^#/, '')) || '/';
  const [path, queryText] = hash.split('?', 2) as [string, string | undefined];
  const query = new URLSearchParams(queryText ?? '');
  main.replaceChildren();
  for (const nav of document.querySelectorAll('nav a')) {
    nav.classList.toggle('active', nav.getAttribute('href') === `#${path}`);
  }
  for (const [pattern, page] of ROUTES) {
    const match = pattern.exec(path);
    if (match) {
      stop = page(main, match.slice(1), query) ?? null;
      window.scrollTo(0, 0);
      return;
    }
  }
  main.appendChild(h('section', { class: 'card' }, h('h1', null, 'Not found'), h('p', null, 'No page here. ', link('/', 'Home'))));
}

function layout(): HTMLElement {
  const input = h('input', {
    type: 'search',
    name: 'q',
    placeholder: 'Address, transaction or block hash, height, job id…',
    'aria-label': 'Search',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const form = h(
    'form',
    {
      class: 'search',
      role: 'search',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const target = searchTarget(input.value);
        if (target) location.hash = target;
        input.value = '';
      },
    },
    input,
    h('button', { type: 'submit' }, 'Search'),
  );
  const main = h('main', { id: 'main' });
  document.body.replaceChildren(
    h(
      'header',
      null,
      h('div', { class: 'brand' }, link('/', 'Drover explorer')),
      form,
      h('nav', null, NAV.map(([route, label]) => link(route, label))),
    ),
    main,
    h(
      'footer',
      { class: 'muted' },
      'Served by this node; reads its public API. Account and actor-storage values are verified in this browser. ',
      h('a', { href: 'THIRD-PARTY-LICENSES.txt' }, 'Third-party licences'),
    ),
  );
  return main;
}

const main = layout();
window.addEventListener('hashchange', () => render(main));
render(main);
