// What the browser test runs inside a Chromium page (bundled by esbuild, served from another
// origin than the node's, so every call is a cross-origin request under the node's CORS policy):
// a new key funded by the faucet sends a transfer, the recipient's balance is proven and
// verified, a tampered proof is refused, and a RAS session authenticates with its signed headers.
import { DroverClient, RasSigner, VerifyError, Wallet, transferRequest, verifyAccount } from '../../src/index.js';

export interface PageReport {
  sender: string;
  status: string;
  provenBalance: string;
  balanceIsBigint: boolean;
  tampered: string;
  rasWallet: string;
}

async function run(url: string, identity: string): Promise<PageReport> {
  const client = new DroverClient(url);
  const wallet = Wallet.generate();
  const funded = await client.faucet(wallet.address);
  await client.waitForReceipt(funded.tx_hash, { timeoutMs: 30_000 });
  const to = Wallet.generate().address;
  const sent = await client.send(wallet, transferRequest(to, 777n));
  const proof = await client.proofAccount(to);
  const verified = verifyAccount(proof, identity, to);
  let tampered = 'accepted';
  try {
    verifyAccount({ ...proof, height: proof.height + 1 }, identity, to);
  } catch (e) {
    tampered = e instanceof VerifyError ? e.kind : String(e);
  }
  const me = await client.rasMe(RasSigner.issue(wallet, await client.chainId()));
  const balance = await client.balance(wallet.address);
  return {
    sender: wallet.address,
    status: sent.result.status,
    provenBalance: String(verified.account?.balance),
    balanceIsBigint: typeof balance === 'bigint',
    tampered,
    rasWallet: me.wallet,
  };
}

(globalThis as unknown as { runSdk: typeof run }).runSdk = run;
