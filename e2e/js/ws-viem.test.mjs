// viem against stocknode over WebSocket: the webSocket transport for calls
// and, with `poll: false`, for eth_subscribe (watchBlockNumber, watchBlocks,
// watchContractEvent, watchPendingTransactions, transport.subscribe). Runs
// against a node with the default 200 ms blocks
// (TestJavaScriptWebSocketClients).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createPublicClient, createWalletClient, defineChain, getAddress, http, numberToHex, webSocket } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { RPC, WS, CHAIN_ID, KEYS, TOKEN, ETHER, poll, probe, headNumber, collector } from "./helpers.mjs";

const chain = defineChain({
  id: CHAIN_ID,
  name: "stocknode dev",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [RPC], webSocket: [WS] } },
});

// viem's defaults but one: reconnect: false, so that closing the socket at
// the end is final. With the default, viem reopens a socket two seconds
// after close() (and again after each close), and the process never exits.
// Nothing the tests check depends on reconnecting.
const transport = webSocket(WS, { reconnect: false });
const client = createPublicClient({ chain, transport });
const account = privateKeyToAccount(KEYS[6]);
const account2 = privateKeyToAccount(KEYS[7]);
const wallet = createWalletClient({ account, chain, transport });
const wallet2 = createWalletClient({ account: account2, chain, transport });
// The HTTP endpoint, to cross-check what the socket answers.
const httpClient = createPublicClient({ chain, transport: http(RPC) });
const abi = TOKEN.abi;
const supply = 500_000n * ETHER;
let token; // address
let rpc; // the socket RPC client the transport shares

const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

// sealed waits for the receipt over the socket (waitForTransactionReceipt
// on a webSocket transport itself watches newHeads) and checks that it is
// its sealed block's (/ws answers as /: a receipt means a sealed block): the
// node's latest (read after) has reached it and the block by number has its
// hash.
async function sealed(hash) {
  const receipt = await client.waitForTransactionReceipt({ hash });
  const head = await headNumber();
  assert.ok(Number(receipt.blockNumber) <= head, `waitForTransactionReceipt returned a receipt in block ${receipt.blockNumber}, latest is ${head}`);
  const block = await probe("eth_getBlockByNumber", [numberToHex(receipt.blockNumber), false]);
  assert.equal(block.hash, receipt.blockHash, `block ${receipt.blockNumber}`);
  return receipt;
}

// liveSubs lists the eth_subscribe subscriptions the socket client holds
// (the node answered them and they are not unsubscribed), by kind.
const liveSubs = (kind) => [...rpc.subscriptions.entries()].filter(([, s]) => s.body?.params?.[0] === kind).map(([id]) => id);

const headAtLeast = (n) => poll(`head reaches ${n}`, async () => BigInt(await headNumber()) >= n);

before(async () => {
  rpc = await client.transport.getRpcClient();
  const hash = await wallet.deployContract({ abi, bytecode: TOKEN.bytecode, args: ["Stock Token", "STK", supply] });
  const receipt = await sealed(hash);
  assert.equal(receipt.status, "success");
  token = receipt.contractAddress;
  assert.ok(token, "no contractAddress in the deployment receipt");
  await poll("no subscription left over from waitForTransactionReceipt", () => rpc.subscriptions.size === 0);
});

after(async () => {
  const socket = rpc.socket;
  rpc.close();
  await poll("socket closed", () => socket.readyState === socket.CLOSED, { timeout: 5_000 });
});

test("getBalance, getBlockNumber, getChainId and raw requests over the socket", async () => {
  assert.equal(client.transport.type, "webSocket");
  assert.equal(await client.getChainId(), CHAIN_ID);
  assert.equal(await client.request({ method: "eth_chainId" }), numberToHex(CHAIN_ID));
  // viem answers getBlockNumber from its cache for the polling interval (4 s).
  const first = await client.getBlockNumber();
  await poll("getBlockNumber over the socket increases", async () => (await client.getBlockNumber()) > first, { interval: 250 });

  const at = BigInt(await headNumber());
  const addrs = [account.address, account2.address, fresh(), token];
  for (const address of addrs) {
    assert.equal(await client.getBalance({ address, blockNumber: at }), await httpClient.getBalance({ address, blockNumber: at }), `getBalance(${address}, ${at})`);
  }
  assert.ok((await client.getBalance({ address: account2.address })) > 0n);
  assert.ok((await client.getBalance({ address: account2.address, blockTag: "pending" })) > 0n);
  const read = (c) => c.readContract({ address: token, abi, functionName: "balanceOf", args: [account.address], blockNumber: at });
  assert.equal(await read(client), await read(httpClient));
  assert.deepEqual(await client.getBlock({ blockNumber: at }), await httpClient.getBlock({ blockNumber: at }));

  // Many requests in flight on the one socket: each answer reaches its caller.
  const calls = Array.from({ length: 24 }, (_, i) => {
    const address = addrs[i % addrs.length];
    if (i % 3 === 0) return Promise.all([client.getBalance({ address, blockNumber: at }), httpClient.getBalance({ address, blockNumber: at })]);
    if (i % 3 === 1) return Promise.all([client.getTransactionCount({ address, blockNumber: at }), httpClient.getTransactionCount({ address, blockNumber: at })]);
    const blockNumber = at - BigInt(i % 5);
    return Promise.all([client.getBlock({ blockNumber }).then((b) => b.hash), httpClient.getBlock({ blockNumber }).then((b) => b.hash)]);
  });
  for (const [got, want] of await Promise.all(calls)) assert.equal(got, want);

  // An error answer fails its own request only; the socket stays usable.
  await assert.rejects(client.request({ method: "eth_getBalance", params: [account.address, { blockHash: "0x" + "ab".repeat(32) }] }), /header for hash not found/);
  assert.ok(BigInt(await client.request({ method: "eth_blockNumber" })) >= at);
});

test("watchBlockNumber (poll: false): consecutive heads over eth_subscribe, in order", async () => {
  const heads = collector();
  const errors = [];
  const start = Date.now();
  const unwatch = client.watchBlockNumber({
    poll: false,
    onBlockNumber: (n, prev) => heads.push({ n, prev, at: Date.now() }),
    onError: (e) => errors.push(e),
  });
  let got;
  try {
    await poll("watchBlockNumber subscribed to newHeads", () => liveSubs("newHeads").length === 1);
    got = await heads.wait(8, "block numbers");
  } finally {
    unwatch();
  }
  await poll("unwatch() unsubscribed", () => liveSubs("newHeads").length === 0);
  assert.deepEqual(errors, []);
  const numbers = got.map((h) => h.n);
  for (let i = 0; i < got.length; i++) {
    assert.equal(typeof got[i].n, "bigint");
    if (i > 0) {
      assert.equal(got[i].n, got[i - 1].n + 1n, `block numbers ${numbers}`);
      assert.equal(got[i].prev, got[i - 1].n, `prevBlockNumber of ${got[i].n}`);
    }
  }
  const gaps = got.slice(1).map((h, i) => h.at - got[i].at);
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  console.log(`watchBlockNumber ${numbers[0]}..${numbers.at(-1)}: first after ${got[0].at - start} ms, mean gap ${mean.toFixed(0)} ms`);
  assert.ok(mean < 600, `blocks of 200 ms arrived every ${mean} ms on average`);
});

test("watchBlocks (poll: false): consecutive blocks, each the parent of the next", async () => {
  const blocks = collector();
  const errors = [];
  const unwatch = client.watchBlocks({
    poll: false,
    onBlock: (block, prev) => blocks.push({ block, prev }),
    onError: (e) => errors.push(e),
  });
  let got;
  try {
    await poll("watchBlocks subscribed to newHeads", () => liveSubs("newHeads").length === 1);
    got = await blocks.wait(6, "blocks");
  } finally {
    unwatch();
  }
  await poll("unwatch() unsubscribed", () => liveSubs("newHeads").length === 0);
  assert.deepEqual(errors, []);
  for (let i = 0; i < got.length; i++) {
    const { block, prev } = got[i];
    assert.ok(block && typeof block.number === "bigint", `onBlock ${i} got ${block}`);
    if (i > 0) {
      assert.equal(block.number, got[i - 1].block.number + 1n, `blocks ${got.map((b) => b.block?.number)}`);
      assert.equal(block.parentHash, got[i - 1].block.hash, `block ${block.number} parentHash`);
      assert.equal(prev.hash, got[i - 1].block.hash, `prevBlock of ${block.number}`);
    }
    assert.equal(block.hash, (await httpClient.getBlock({ blockNumber: block.number })).hash);
    assert.ok(block.baseFeePerGas > 0n);
  }
});

test("watchContractEvent (poll: false): every Transfer over eth_subscribe logs, in order", async () => {
  const recipients = Array.from({ length: 6 }, fresh);
  const values = recipients.map((_, i) => BigInt(i + 1) * ETHER);
  const ours = new Set(recipients);
  const logs = collector();
  const errors = [];
  const unwatch = client.watchContractEvent({
    address: token,
    abi,
    eventName: "Transfer",
    args: { from: account.address },
    poll: false,
    onLogs: (batch) => batch.filter((l) => ours.has(l.args.to)).forEach((l) => logs.push(l)),
    onError: (e) => errors.push(e),
  });
  const hashes = [];
  let got;
  try {
    // watchContractEvent subscribes asynchronously: send only once the node
    // has answered the eth_subscribe.
    await poll("watchContractEvent subscribed to logs", () => liveSubs("logs").length === 1);
    // Three transfers back to back, then three more once the first is
    // sealed, so that they span several blocks. The nonces are counted here:
    // eth_getTransactionCount(pending) asked right after
    // eth_sendRawTransaction may not count that transaction yet (the pool
    // promotes it asynchronously, as geth's does).
    const nonce = await client.getTransactionCount({ address: account.address, blockTag: "pending" });
    const write = (i) => wallet.writeContract({ address: token, abi, functionName: "transfer", args: [recipients[i], values[i]], nonce: nonce + i });
    for (let i = 0; i < 3; i++) hashes.push(await write(i));
    await client.waitForTransactionReceipt({ hash: hashes[0] });
    for (let i = 3; i < 6; i++) hashes.push(await write(i));
    got = await logs.wait(6, "Transfer logs");
  } catch (err) {
    unwatch();
    throw err;
  }
  assert.deepEqual(errors, []);
  for (let i = 0; i < got.length; i++) {
    const l = got[i];
    assert.equal(l.eventName, "Transfer");
    assert.equal(l.args.from, account.address, `log ${i} from`);
    assert.equal(l.args.to, recipients[i], `log ${i} to (logs out of order?)`);
    assert.equal(l.args.value, values[i], `log ${i} value`);
    assert.equal(l.transactionHash, hashes[i], `log ${i} transaction`);
    assert.equal(getAddress(l.address), getAddress(token));
    assert.equal(l.removed, false);
    if (i > 0) {
      const a = got[i - 1];
      assert.ok(l.blockNumber > a.blockNumber || (l.blockNumber === a.blockNumber && l.logIndex > a.logIndex), `log ${i} (block ${l.blockNumber} log ${l.logIndex}) not after log ${i - 1} (block ${a.blockNumber} log ${a.logIndex})`);
    }
  }
  console.log(`6 Transfer logs over ${new Set(got.map((l) => l.blockNumber)).size} blocks`);

  // The same logs as getContractEvents over the blocks they came from.
  const last = await sealed(hashes.at(-1));
  assert.equal(got.at(-1).blockNumber, last.blockNumber);
  const queried = (
    await httpClient.getContractEvents({ address: token, abi, eventName: "Transfer", args: { from: account.address }, fromBlock: got[0].blockNumber, toBlock: last.blockNumber })
  ).filter((l) => ours.has(l.args.to));
  const key = (l) => [l.blockNumber, l.blockHash, l.logIndex, l.transactionHash, l.transactionIndex, l.data, l.topics, l.args];
  assert.deepEqual(queried.map(key), got.map(key));

  // No duplicates arrive later; then unwatch() unsubscribes.
  await headAtLeast(last.blockNumber + 2n);
  assert.equal(logs.items.length, 6, "more Transfer logs than transfers");
  unwatch();
  await poll("unwatch() unsubscribed", () => liveSubs("logs").length === 0);
});

test("watchPendingTransactions (poll: false) over eth_subscribe newPendingTransactions", async () => {
  const seen = collector();
  const unwatch = client.watchPendingTransactions({ poll: false, onTransactions: (hashes) => hashes.forEach((h) => seen.push(h)) });
  let hash;
  try {
    await poll("watchPendingTransactions subscribed", () => liveSubs("newPendingTransactions").length === 1);
    hash = await wallet2.sendTransaction({ to: fresh(), value: 1n });
    await poll(`pending hash ${hash} announced`, () => seen.items.includes(hash), { timeout: 5_000 });
  } finally {
    unwatch();
  }
  await poll("unwatch() unsubscribed", () => liveSubs("newPendingTransactions").length === 0);
  await sealed(hash);
});

// The header fields of a block: everything eth_getBlockByNumber(n, false)
// answers except the body (transactions, uncles, withdrawals) and size.
const BODY_FIELDS = new Set(["transactions", "uncles", "withdrawals", "size", "totalDifficulty"]);

test("transport.subscribe(['newHeads']): raw notifications carry the block's header fields", async () => {
  assert.equal(typeof client.transport.subscribe, "function", "the webSocket transport has no subscribe()");
  const notes = collector();
  const errors = [];
  const { subscriptionId, unsubscribe } = await client.transport.subscribe({
    params: ["newHeads"],
    onData: (data) => notes.push(data),
    onError: (e) => errors.push(e),
  });
  let got;
  try {
    assert.match(subscriptionId, /^0x[0-9a-f]+$/);
    got = await notes.wait(5, "newHeads notifications");
  } finally {
    const res = await unsubscribe();
    assert.equal(res.result, true, `eth_unsubscribe answer ${JSON.stringify(res)}`);
  }
  assert.deepEqual(errors, []);
  let prev;
  for (const data of got) {
    assert.equal(data.subscription, subscriptionId);
    const head = data.result;
    assert.match(head.number, /^0x[0-9a-f]+$/);
    if (prev) {
      assert.equal(BigInt(head.number), BigInt(prev.number) + 1n, `newHeads ${got.map((d) => d.result.number)}`);
      assert.equal(head.parentHash, prev.hash);
    }
    prev = head;
    const block = await httpClient.request({ method: "eth_getBlockByNumber", params: [head.number, false] });
    const want = Object.fromEntries(Object.entries(block).filter(([k]) => !BODY_FIELDS.has(k)));
    assert.deepEqual(head, want, `newHeads ${head.number} differs from eth_getBlockByNumber's header fields`);
  }
});
