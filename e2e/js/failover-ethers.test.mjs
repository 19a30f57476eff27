// A plain ethers v6 script against a read replica while the sequencer
// fails over under it: TestEthersAcrossAFailover kills the leading
// candidate with -9 (twice, while these tests run) and the standby takes
// over. Every option is ethers' default. Two wallets send a transfer and
// wait() for it, again and again; a third sends every 300 ms and waits at
// the end; a reader polls the head and the senders' nonces. Nothing here knows when the kills come: a send
// made in the gap waits for the new leader (the replica's relay), and the
// script must not be able to tell, but for the wait. Sends and wait()s
// are all answered, nonces follow each other, a balance read right after
// wait() shows the transfer, and no read ever goes backwards.
// Without STOCKNODE_FAILOVER_MS (npm test over js/) the tests skip.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { JsonRpcProvider, Wallet } from "ethers";
import { KEYS, probe, headNumber } from "./helpers.mjs";

const RUN_MS = Number(process.env.STOCKNODE_FAILOVER_MS);
const skip = RUN_MS ? false : "needs a replica whose sequencer fails over meanwhile: go test ./e2e -run TestEthersAcrossAFailover";

let provider; // JsonRpcProvider on the replica, default options

before(() => {
  if (skip) return;
  provider = new JsonRpcProvider(process.env.STOCKNODE_RPC);
});

after(() => provider?.destroy());

// sendUntil sends 1 gwei transfers from key to one fresh recipient, each
// after the last one's wait(), until the deadline, and checks each.
async function sendUntil(key, deadline) {
  const wallet = new Wallet(key, provider);
  const to = Wallet.createRandom().address;
  let nonce = await provider.getTransactionCount(wallet.address);
  let sent = 0n;
  while (Date.now() < deadline) {
    const tx = await wallet.sendTransaction({ to, value: 1_000_000_000n });
    assert.equal(tx.nonce, nonce, "the next send takes the next nonce");
    const receipt = await tx.wait();
    assert.equal(receipt.status, 1);
    sent += 1_000_000_000n;
    nonce++;
    assert.equal(await provider.getBalance(to), sent, `the recipient's balance at latest right after wait() of nonce ${tx.nonce}`);
  }
  return { to, sent, transfers: Number(sent / 1_000_000_000n) };
}

// sendEvery sends a 1 gwei transfer from key every `gap` ms until the
// deadline without waiting for any (ethers takes each nonce from pending;
// its request cache answers a repeat within 250 ms, so the gap is longer),
// then wait()s for them all: some sends fall in a failover's gap.
async function sendEvery(key, gap, deadline) {
  const wallet = new Wallet(key, provider);
  const to = Wallet.createRandom().address;
  const txs = [];
  while (Date.now() < deadline) {
    const tx = await wallet.sendTransaction({ to, value: 1_000_000_000n });
    if (txs.length) assert.equal(tx.nonce, txs.at(-1).nonce + 1, "a send without wait() takes the next nonce from pending");
    txs.push(tx);
    await new Promise((r) => setTimeout(r, gap));
  }
  for (const tx of txs) assert.equal((await tx.wait()).status, 1);
  assert.equal(await provider.getBalance(to), BigInt(txs.length) * 1_000_000_000n, "the recipient's balance at latest after the last wait()");
  return txs.length;
}

// readUntil reads the head and the nonces of the addresses in watch,
// without a client's cache, until the deadline, and fails at the first
// read that goes backwards.
async function readUntil(deadline, watch) {
  let head = 0;
  const seen = new Map();
  let reads = 0;
  while (Date.now() < deadline) {
    const h = await headNumber();
    assert.ok(h >= head, `the head went back from ${head} to ${h}`);
    head = h;
    for (const address of watch) {
      const n = Number(await probe("eth_getTransactionCount", [address, "latest"]));
      assert.ok(n >= (seen.get(address) ?? 0), `the nonce of ${address} went back from ${seen.get(address)} to ${n}`);
      seen.set(address, n);
    }
    reads++;
    await new Promise((r) => setTimeout(r, 50));
  }
  return reads;
}

test("sends, wait()s and reads across failovers", { skip, timeout: RUN_MS + 60_000 }, async () => {
  const deadline = Date.now() + RUN_MS;
  const senders = [KEYS[2], KEYS[3], KEYS[4]].map((k) => new Wallet(k).address);
  const [a, b, c, reads] = await Promise.all([
    sendUntil(KEYS[2], deadline),
    sendUntil(KEYS[3], deadline),
    sendEvery(KEYS[4], 300, deadline),
    readUntil(deadline, senders),
  ]);
  assert.ok(a.transfers + b.transfers >= 4, `only ${a.transfers + b.transfers} transfers with wait() in ${RUN_MS} ms`);
  assert.ok(c >= RUN_MS / 1000, `only ${c} transfers without wait() in ${RUN_MS} ms`);
  assert.ok(reads > 0);
});
