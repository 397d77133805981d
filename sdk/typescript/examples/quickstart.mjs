// @ts-check
// Five minutes with the Drover SDK: a new key, funds from the faucet, a transfer watched until it
// is final, and the recipient's balance verified against the network's genesis key. Needs a
// `drover dev` node (http://127.0.0.1:4000, its genesis in .drover-dev/; DROVER_URL and
// DROVER_GENESIS point elsewhere).
import { readFileSync } from 'node:fs';
import { DroverClient, Wallet, formatDrv, genesisIdentity, parseDrv, transferRequest, verifyAccount } from '@drover/sdk';

const client = new DroverClient(process.env.DROVER_URL ?? 'http://127.0.0.1:4000');
// The one thing a light client trusts: the group key in the network's genesis file.
const identity = genesisIdentity(readFileSync(process.env.DROVER_GENESIS ?? '.drover-dev/genesis.yaml', 'utf8'));

// 1. A key. `Wallet.fromSecret('0x…')` imports one (an Ethereum private key gives the same address).
const me = Wallet.generate();

// 2. Funds from the development faucet.
const funded = await client.faucet(me.address);
await client.waitForReceipt(funded.tx_hash);
console.log(`${me.address} got ${formatDrv(funded.amount)}`);

// 3. A transfer: chain id, nonce and fees come from the node; it is signed here and submitted.
const friend = Wallet.generate().address;
const sent = await client.send(me, transferRequest(friend, parseDrv('1.5drv')), { wait: false });

// 4. Watch it finalize.
const receipt = await client.waitForReceipt(sent.hash);
console.log(`${sent.hash}: ${receipt.status} in block ${receipt.block_height}, fee ${formatDrv(receipt.fee)}`);

// 5. Verify the balance: the node's proof is checked against the finalization certificate, and
//    to be the proof of the account asked about (a node cannot answer with another's).
const proven = verifyAccount(await client.proofAccount(friend), identity, friend);
console.log(`${friend} holds ${formatDrv(proven.account?.balance ?? 0n)} (verified at height ${proven.block.height})`);
