// Shared setup of the ethers and viem suites: the node's URLs, the dev keys,
// the Token artifact and polling helpers (poll with deadlines, never sleep
// for a fixed time and hope).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const RPC = process.env.STOCKNODE_RPC;
if (!RPC) {
  throw new Error("STOCKNODE_RPC is not set: run through `go test ./e2e/ -run JavaScript`, or start `stocknode --dev --block-time 1s --preconf-interval 100ms` (plain `stocknode --dev` for js/ws-*) and set it to its URL");
}

// The WebSocket endpoint (GET /ws on the JSON-RPC port); go test sets
// STOCKNODE_WS from the node's "WebSocket listening" log line.
export const WS = process.env.STOCKNODE_WS || RPC.replace(/^http/, "ws").replace(/\/*$/, "") + "/ws";

export const CHAIN_ID = 84538453;

// The standard development accounts (anvil, hardhat). The ethers suite uses
// keys 0 and 1, the viem suite keys 2 and 3, the ethers WebSocket suite keys
// 4 and 5, the viem WebSocket suite keys 6 and 7 and the B20 lifecycle keys
// 8 and 9, so that the files can run at the same time against one node
// without nonce races. The replica suites (js/replica-*) have nodes of
// their own: replica-ethers uses key 0, replica-defaults key 1.
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
// showed the effect while pending (read after it) did not. With 1 s blocks
// and 100 ms pre-confirmations there is nearly always a window; a send that
// lands right at a seal gets retried (up to three attempts).
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
