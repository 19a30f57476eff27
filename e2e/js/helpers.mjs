// Shared setup of the ethers and viem suites: the node's URLs, the dev keys,
// the Token artifact, a raw JSON-RPC probe and polling helpers (poll with
// deadlines, never sleep for a fixed time and hope).
//
// The suites build their clients as a dapp does, with each library's
// default options: ethers answers an identical request from a 250 ms cache
// and polls for new blocks (tx.wait(), contract.on) every 4 s; viem caches
// the block number and polls every 4 s on a chain without a block time.
// What the node itself answers at a given moment (is the transaction in
// pending yet, is the receipt's block sealed) is read with probe(), plain
// JSON-RPC through no client library, so that a cache cannot hide it.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const RPC = process.env.STOCKNODE_RPC;
if (!RPC) {
  throw new Error("STOCKNODE_RPC is not set: run through `go test ./e2e/ -run JavaScript`, or start `stocknode --dev` and set it to its URL");
}

// The WebSocket endpoint (GET /ws on the JSON-RPC port); go test sets
// STOCKNODE_WS from the node's "WebSocket listening" log line.
export const WS = process.env.STOCKNODE_WS || RPC.replace(/^http/, "ws").replace(/\/*$/, "") + "/ws";

export const CHAIN_ID = 84538453;

// The standard development accounts (anvil, hardhat). The ethers suite uses
// keys 0 and 1, the viem suite keys 2 and 3, the ethers WebSocket suite keys
// 4 and 5, the viem WebSocket suite keys 6 and 7 and the B20 lifecycle keys
// 8 and 9, so that the files can run at the same time against one node
// without nonce races; the dapp flow (js/dapp-ethers) uses key 4, which is
// free on the HTTP suites' node (the WebSocket suites have a node of their
// own). The Flashblocks suites (js/flashblocks-*: ethers key 0, viem key 2)
// and the replica suites (js/replica-*: replica-ethers key 0,
// replica-defaults key 1) have nodes of their own.
export const KEYS = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
  "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
  "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
  "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
  "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
];

const here = dirname(fileURLToPath(import.meta.url));
export const TOKEN = JSON.parse(readFileSync(join(here, "..", "contracts", "Token.json"), "utf8"));

// artifact reads one of the protocol's committed artifacts (contracts/artifacts).
export function artifact(name) {
  return JSON.parse(readFileSync(join(here, "..", "..", "contracts", "artifacts", name + ".json"), "utf8"));
}

export const GWEI = 10n ** 9n;
export const ETHER = 10n ** 18n;

// probe sends one JSON-RPC request to url (default: STOCKNODE_RPC) and
// returns its result; an error answer throws. No client library is in the
// way: the answer is what the node says now.
export async function probe(method, params = [], url = RPC) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  if (res.status !== 200) throw new Error(`${method} at ${url}: HTTP ${res.status} ${await res.text()}`);
  const body = await res.json();
  if (body.error) throw new Error(`${method}${JSON.stringify(params)} at ${url}: ${body.error.code} ${body.error.message}`);
  return body.result;
}

// headNumber is eth_blockNumber at url, as a number.
export const headNumber = async (url = RPC) => Number(await probe("eth_blockNumber", [], url));

// poll calls f every `interval` ms until it returns a value other than
// undefined/false, and returns that value; it throws after `timeout` ms.
export async function poll(what, f, { timeout = 15_000, interval = 20 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = await f();
    if (v !== undefined && v !== false && v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms: ${what}`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

// pendingBeforeLatest runs send() (which returns {label}) and then polls
// shows(pending) - pending, latest, pending again - until latest shows the
// effect. It returns {window, inPending} in ms and throws if latest ever
// showed the effect while pending (read after it) did not. shows must read
// the node, not a client's cache (probe), or "read after" means nothing.
// With the default 200 ms blocks and eager pre-confirmation a transaction
// is in pending within milliseconds and in latest at the next seal, so
// there is nearly always a window; a send that lands right at a seal gets
// retried (up to three attempts).
export async function pendingBeforeLatest(send, shows) {
  for (let attempt = 0; attempt < 3; attempt++) {
    const ctx = await send();
    const sent = Date.now();
    let inPending = 0;
    let lastPendingOnly = 0;
    for (;;) {
      const p1 = await shows(ctx, true);
      const l = await shows(ctx, false);
      const p2 = await shows(ctx, true);
      if (l && !p2) throw new Error(`${ctx.label}: latest shows it but pending, read after, does not: pending is behind latest`);
      if (p1 && !l) {
        if (!inPending) inPending = Date.now() - sent;
        lastPendingOnly = Date.now() - sent;
      }
      if (l) break;
      if (Date.now() - sent > 10_000) throw new Error(`${ctx.label}: not in latest 10 s after sending (pending: ${p1})`);
      await new Promise((r) => setTimeout(r, 10));
    }
    if (inPending) return { inPending, window: lastPendingOnly - inPending };
  }
  throw new Error("no moment in three attempts where pending showed the transaction and latest did not");
}

// collector returns {items, push, wait}: push is called from an event
// listener; wait(n, what) resolves with the first n items once
// there are n, and rejects after `timeout` ms saying how many arrived.
export function collector({ timeout = 10_000 } = {}) {
  const items = [];
  const waiters = [];
  return {
    items,
    push(item) {
      items.push(item);
      for (const w of waiters.splice(0)) {
        if (items.length >= w.n) w.resolve(items.slice(0, w.n));
        else waiters.push(w);
      }
    },
    wait(n, what) {
      if (items.length >= n) return Promise.resolve(items.slice(0, n));
      return new Promise((resolve, reject) => {
        const w = { n, resolve: (v) => { clearTimeout(timer); resolve(v); } };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`timed out after ${timeout} ms waiting for ${n} ${what}: got ${items.length}`));
        }, timeout);
        waiters.push(w);
      });
    },
  };
}

// The Flashblocks suites (js/flashblocks-*) run against a node's /preconf
// (RPC) and compare it with the same node's / (STANDARD).
export const STANDARD = process.env.STOCKNODE_RPC_STANDARD || (RPC || "").replace(/\/preconf\/?$/, "");

// sealedOnStandard polls / until it has the transaction's receipt (only a
// sealed block's) and returns it, raw.
export const sealedOnStandard = (hash) =>
  poll(`transaction ${hash} sealed`, () => probe("eth_getTransactionReceipt", [hash], STANDARD));

// freshBlock waits until a block has just been sealed on /, so that the
// block being built has nearly all its time ahead.
export async function freshBlock() {
  const head = await headNumber(STANDARD);
  await poll(`a block after ${head}`, async () => (await headNumber(STANDARD)) > head, { interval: 10 });
}

// preconfirmed polls the pending block at url until it holds the
// transaction and returns that block, raw.
export function preconfirmed(hash, url = RPC) {
  return poll(`transaction ${hash} in the pending block`, async () => {
    const block = await probe("eth_getBlockByNumber", ["pending", false], url);
    return block.transactions.includes(hash) ? block : undefined;
  });
}
