// ethers v6 against stocknode over WebSocket: WebSocketProvider for calls
// and for eth_subscribe (provider.on('block'), contract.on(event),
// provider.on('pending')), as a dapp uses it, with ethers' default options.
// Runs against a node in the default configuration, on /ws
// (TestJavaScriptWebSocketClients).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Contract, ContractFactory, JsonRpcProvider, NonceManager, Wallet, WebSocketProvider, toQuantity } from "ethers";
import { RPC, WS, CHAIN_ID, KEYS, TOKEN, ETHER, poll, probe, headNumber, collector } from "./helpers.mjs";

const provider = new WebSocketProvider(WS);
// The HTTP endpoint, to cross-check what the socket answers.
const http = new JsonRpcProvider(RPC);
const wallet = new Wallet(KEYS[4], provider);
const other = new Wallet(KEYS[5], provider);
const supply = 1_000_000n * ETHER;
let token; // the deployed Contract, connected to wallet (over the socket)

const fresh = () => Wallet.createRandom().address;

// sealed checks that a receipt tx.wait() returned over the socket is its
// sealed block's (/ws answers as /: a receipt means a sealed block): the
// node's latest (read after) has reached it and the block by number has its
// hash. It returns the receipt.
async function sealed(receipt) {
  const head = await headNumber();
  assert.ok(receipt.blockNumber <= head, `tx.wait() returned a receipt in block ${receipt.blockNumber}, latest is ${head}`);
  const block = await probe("eth_getBlockByNumber", [toQuantity(receipt.blockNumber), false]);
  assert.equal(block.hash, receipt.blockHash, `block ${receipt.blockNumber}`);
  return receipt;
}

// rpcWatch records, from the provider's debug events, the answers to the
// requests of `method` sent over the socket: {params, result, error}.
function rpcWatch(method) {
  const sent = new Map(); // id -> params
  const answers = [];
  const onDebug = (info) => {
    if (info.action === "sendRpcPayload") {
      for (const p of [info.payload].flat()) if (p.method === method) sent.set(p.id, p.params);
    } else if (info.action === "receiveRpcResult") {
      for (const r of [info.result].flat()) {
        if (sent.has(r.id)) answers.push({ params: sent.get(r.id), result: r.result, error: r.error });
      }
    }
  };
  provider.on("debug", onDebug);
  return { answers, stop: () => provider.off("debug", onDebug) };
}

// headAtLeast polls the node (over HTTP) until latest is at least n.
const headAtLeast = (n) => poll(`head reaches ${n}`, async () => (await headNumber()) >= n);

before(async () => {
  // Deployed through the socket: getTransactionCount, fee data, estimateGas,
  // eth_sendRawTransaction and tx.wait() (which listens for 'block').
  const factory = new ContractFactory(TOKEN.abi, TOKEN.bytecode, wallet);
  const deployed = await factory.deploy("Stock Token", "STK", supply);
  const receipt = await sealed(await deployed.deploymentTransaction().wait());
  assert.equal(receipt.status, 1);
  token = new Contract(await deployed.getAddress(), TOKEN.abi, wallet);
});

after(async () => {
  await provider.destroy();
  http.destroy();
});

test("ordinary calls over the socket: getBlockNumber, getBalance, send, concurrent requests", async () => {
  assert.equal((await provider.getNetwork()).chainId, BigInt(CHAIN_ID));
  assert.equal(await provider.send("eth_chainId", []), toQuantity(CHAIN_ID));
  const first = await provider.getBlockNumber();
  await poll("eth_blockNumber over the socket increases", async () => (await provider.getBlockNumber()) > first);

  // At a fixed block the socket and HTTP answer the same.
  const at = await http.getBlockNumber();
  assert.ok((await provider.getBlockNumber()) >= at);
  const addrs = [wallet.address, other.address, fresh(), await token.getAddress()];
  for (const a of addrs) {
    assert.equal(await provider.getBalance(a, at), await http.getBalance(a, at), `getBalance(${a}, ${at})`);
  }
  assert.ok((await provider.getBalance(other.address)) > 0n);
  assert.deepEqual(
    await provider.send("eth_getBlockByNumber", [toQuantity(at), false]),
    await http.send("eth_getBlockByNumber", [toQuantity(at), false]),
  );
  assert.equal(await token.balanceOf(wallet.address, { blockTag: at }), await token.connect(http).balanceOf(wallet.address, { blockTag: at }));

  // Many requests in flight on the one socket: each answer reaches its caller.
  const calls = [];
  for (let i = 0; i < 24; i++) {
    const a = addrs[i % addrs.length];
    calls.push(
      i % 3 === 0
        ? provider.getBalance(a, at).then(async (v) => [v, await http.getBalance(a, at)])
        : i % 3 === 1
          ? provider.getTransactionCount(a, at).then(async (v) => [v, await http.getTransactionCount(a, at)])
          : provider.getBlock(at - (i % 5)).then(async (b) => [b.hash, (await http.getBlock(at - (i % 5))).hash]),
    );
  }
  for (const [got, want] of await Promise.all(calls)) assert.equal(got, want);

  // An error answer fails its own request only; the socket stays usable.
  await assert.rejects(provider.send("eth_getBalance", [wallet.address, { blockHash: "0x" + "ab".repeat(32) }]), /header for hash not found/);
  await assert.rejects(provider.send("eth_noSuchMethod", []), /does not exist|not available|not found/i);
  assert.ok((await provider.getBlockNumber()) >= at);
});

test("provider.on('block') over eth_subscribe newHeads: consecutive numbers, in order", async () => {
  const subs = rpcWatch("eth_subscribe");
  const unsubs = rpcWatch("eth_unsubscribe");
  const blocks = collector();
  const onBlock = (n) => blocks.push({ n, at: Date.now() });
  const start = Date.now();
  let got;
  try {
    await provider.on("block", onBlock);
    got = await blocks.wait(8, "'block' events");
  } finally {
    await provider.off("block", onBlock);
    subs.stop();
  }
  const heads = subs.answers.filter((a) => a.params[0] === "newHeads");
  assert.equal(heads.length, 1, `eth_subscribe("newHeads") answers: ${JSON.stringify(subs.answers)}`);
  assert.match(heads[0].result ?? "", /^0x[0-9a-f]+$/, `subscription id ${JSON.stringify(heads[0])}`);

  const numbers = got.map((b) => b.n);
  for (let i = 1; i < numbers.length; i++) {
    assert.equal(numbers[i], numbers[i - 1] + 1, `'block' events ${numbers}`);
  }
  // Every announced block is a sealed block of the chain, each the parent of the next.
  let prev;
  for (const n of numbers) {
    const b = await http.getBlock(n);
    assert.ok(b, `block ${n} announced but not served over HTTP`);
    if (prev) assert.equal(b.parentHash, prev.hash, `block ${n}`);
    prev = b;
  }
  const gaps = got.slice(1).map((b, i) => b.at - got[i].at);
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  console.log(`'block' events ${numbers[0]}..${numbers.at(-1)}: first after ${got[0].at - start} ms, mean gap ${mean.toFixed(0)} ms (max ${Math.max(...gaps)})`);
  assert.ok(mean < 600, `blocks of 200 ms arrived every ${mean} ms on average`);

  // off() unsubscribed on the node.
  try {
    await poll("eth_unsubscribe answered", () => unsubs.answers.length > 0);
  } finally {
    unsubs.stop();
  }
  assert.equal(unsubs.answers[0].params[0], heads[0].result);
  assert.equal(unsubs.answers[0].result, true, `eth_unsubscribe answer ${JSON.stringify(unsubs.answers[0])}`);
});

test("token.on('Transfer') over eth_subscribe logs: every transfer, in order, with its arguments", async () => {
  const recipients = Array.from({ length: 6 }, fresh);
  const values = recipients.map((_, i) => BigInt(i + 1) * ETHER);
  const ours = new Set(recipients);
  const subs = rpcWatch("eth_subscribe");
  const events = collector();
  const onTransfer = (from, to, value, event) => {
    if (ours.has(to)) events.push({ from, to, value, event });
  };
  const txs = [];
  let got;
  try {
    await token.on("Transfer", onTransfer);
    // contract.on subscribes asynchronously: send only once the node has
    // answered the eth_subscribe.
    const answer = await poll("eth_subscribe('logs') answered", () => subs.answers.find((a) => a.params[0] === "logs"));
    assert.match(answer.result ?? "", /^0x[0-9a-f]+$/, `eth_subscribe('logs') answer ${JSON.stringify(answer)}`);
    assert.deepEqual([answer.params[1].address].flat().map((a) => a.toLowerCase()), [(await token.getAddress()).toLowerCase()]);

    // Three transfers back to back, then three more once the first is sealed,
    // so that they span several blocks. A NonceManager counts the nonces:
    // eth_getTransactionCount(pending) asked right after
    // eth_sendRawTransaction may not count that transaction yet (the pool
    // promotes it asynchronously, as geth's does).
    const sender = token.connect(new NonceManager(wallet));
    for (let i = 0; i < 3; i++) txs.push(await sender.transfer(recipients[i], values[i]));
    await txs[0].wait();
    for (let i = 3; i < 6; i++) txs.push(await sender.transfer(recipients[i], values[i]));
    got = await events.wait(6, "Transfer events");
  } catch (err) {
    await token.off("Transfer", onTransfer);
    throw err;
  } finally {
    subs.stop();
  }
  for (let i = 0; i < got.length; i++) {
    const { from, to, value, event } = got[i];
    assert.equal(from, wallet.address, `event ${i} from`);
    assert.equal(to, recipients[i], `event ${i} to (events out of order?)`);
    assert.equal(value, values[i], `event ${i} value`);
    assert.equal(event.eventName, "Transfer");
    assert.equal(event.log.transactionHash, txs[i].hash, `event ${i} transaction`);
    assert.equal(event.log.removed, false);
    if (i > 0) {
      const a = got[i - 1].event.log;
      const b = event.log;
      assert.ok(b.blockNumber > a.blockNumber || (b.blockNumber === a.blockNumber && b.index > a.index), `event ${i} (block ${b.blockNumber} log ${b.index}) not after event ${i - 1} (block ${a.blockNumber} log ${a.index})`);
    }
  }
  const blocks = new Set(got.map((e) => e.event.log.blockNumber));
  console.log(`6 Transfer events over ${blocks.size} blocks (${[...blocks]})`);

  // The same logs as queryFilter over the blocks they came from.
  const last = await sealed(await txs.at(-1).wait());
  const firstBlock = got[0].event.log.blockNumber;
  assert.equal(got.at(-1).event.log.blockNumber, last.blockNumber);
  const queried = (await token.queryFilter(token.filters.Transfer(wallet.address), firstBlock, last.blockNumber)).filter((l) => ours.has(l.args.to));
  assert.deepEqual(
    queried.map((l) => [l.blockNumber, l.blockHash, l.index, l.transactionHash, l.transactionIndex, l.args.to, l.args.value]),
    got.map(({ event: { log: l } }) => [l.blockNumber, l.blockHash, l.index, l.transactionHash, l.transactionIndex, l.args.to, l.args.value]),
  );

  // No duplicates arrive later; then off() unsubscribes.
  await headAtLeast(last.blockNumber + 2);
  assert.equal(events.items.length, 6, "more Transfer events than transfers");
  const unsubs = rpcWatch("eth_unsubscribe");
  try {
    await token.off("Transfer", onTransfer);
    await poll("eth_unsubscribe answered", () => unsubs.answers.length > 0);
  } finally {
    unsubs.stop();
  }
  assert.equal(unsubs.answers[0].result, true, `eth_unsubscribe answer ${JSON.stringify(unsubs.answers[0])}`);
});

test("provider.on('pending') over eth_subscribe newPendingTransactions", async () => {
  const subs = rpcWatch("eth_subscribe");
  const hashes = collector();
  const onPending = (hash) => hashes.push(hash);
  let tx;
  try {
    await provider.on("pending", onPending);
    await poll("eth_subscribe('newPendingTransactions') answered", () => subs.answers.find((a) => a.params[0] === "newPendingTransactions"));
    tx = await other.sendTransaction({ to: fresh(), value: 1n });
    await poll(`pending hash ${tx.hash} announced`, () => hashes.items.includes(tx.hash), { timeout: 5_000 });
  } finally {
    await provider.off("pending", onPending);
    subs.stop();
  }
  assert.ok(hashes.items.every((h) => /^0x[0-9a-f]{64}$/.test(h)), `pending notifications ${hashes.items}`);
  await sealed(await tx.wait());
});

test("provider.destroy() closes the socket and stops its subscriptions", async () => {
  const p = new WebSocketProvider(WS);
  const blocks = collector();
  await p.on("block", (n) => blocks.push(n));
  await blocks.wait(2, "'block' events on a second provider");
  const socket = p.websocket;
  const closed = new Promise((resolve) => socket.on("close", (code) => resolve(code)));
  await p.destroy();
  let timer;
  const code = await Promise.race([closed, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("socket not closed 5 s after destroy()")), 5_000)))]);
  clearTimeout(timer);
  assert.equal(socket.readyState, socket.CLOSED);
  assert.ok(p.destroyed);
  assert.throws(() => p.websocket, /websocket closed/);
  await assert.rejects(p.getBlockNumber(), /destroyed/);
  // No event after destroy, while the chain goes on.
  const count = blocks.items.length;
  await headAtLeast(blocks.items.at(-1) + 3);
  assert.equal(blocks.items.length, count, "'block' events after destroy()");
  console.log(`socket closed with code ${code}`);
});
