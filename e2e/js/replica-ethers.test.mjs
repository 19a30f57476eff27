// ethers v6 against a read replica (stocknode --follow): reads come from
// the replica's replay of the sequencer's log, transactions and faucet
// drips are relayed to the sequencer over NATS. What the sequencer itself
// answers (STOCKNODE_SEQUENCER_RPC) is what the replica must answer.
// TestJavaScriptAgainstReplica starts both nodes; without
// STOCKNODE_SEQUENCER_RPC (npm test over js/) the tests skip.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Contract, ContractFactory, JsonRpcProvider, Wallet, WebSocketProvider, isError, toQuantity } from "ethers";
import { RPC, WS, CHAIN_ID, KEYS, TOKEN, ETHER, poll, collector } from "./helpers.mjs";

const SEQUENCER = process.env.STOCKNODE_SEQUENCER_RPC;
const skip = SEQUENCER ? false : "needs STOCKNODE_SEQUENCER_RPC, the sequencer the replica at STOCKNODE_RPC follows: go test ./e2e -run TestJavaScriptAgainstReplica";

// ethers' default options; where the test compares the replica's answers
// with the sequencer's it sends raw requests (provider.send), which ethers
// does not cache.
let replica; // JsonRpcProvider on the replica
let sequencer; // JsonRpcProvider on the sequencer
let ws; // WebSocketProvider on the replica
let wallet; // KEYS[0] on the replica: every transaction of this file goes through it
let token; // Token deployed through the replica, connected to wallet

const fresh = () => Wallet.createRandom().address;

// sealedOn waits until p's latest block holds the transaction and returns
// its receipt.
async function sealedOn(p, hash) {
  const name = p === replica ? "replica" : "sequencer";
  return poll(`transaction ${hash} sealed on the ${name}`, async () => {
    const r = await p.getTransactionReceipt(hash);
    return r && r.blockNumber <= (await p.getBlockNumber()) ? r : undefined;
  });
}

// both sends one request to the replica and to the sequencer.
const both = (method, params) => Promise.all([replica.send(method, params), sequencer.send(method, params)]);

// rpcError is the JSON-RPC error object behind an ethers error.
const rpcError = (err) => err.info?.error ?? err.error;

async function rejection(promise) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail("the request succeeded");
}

// watchSubscribe watches the replica's answers to eth_subscribe: ethers
// subscribes asynchronously, and a transaction sent before the answer may
// come before the subscription.
function watchSubscribe() {
  const sent = new Map();
  const answers = [];
  const onDebug = (info) => {
    if (info.action === "sendRpcPayload") {
      for (const p of [info.payload].flat()) if (p.method === "eth_subscribe") sent.set(p.id, p.params);
    } else if (info.action === "receiveRpcResult") {
      for (const r of [info.result].flat()) if (sent.has(r.id)) answers.push({ params: sent.get(r.id), result: r.result, error: r.error });
    }
  };
  ws.on("debug", onDebug);
  return {
    subscribed: (kind) => poll(`eth_subscribe('${kind}') answered by the replica`, () => answers.find((a) => a.params[0] === kind)),
    stop: () => ws.off("debug", onDebug),
  };
}

before(async () => {
  if (skip) return;
  replica = new JsonRpcProvider(RPC);
  sequencer = new JsonRpcProvider(SEQUENCER);
  ws = new WebSocketProvider(WS);
  wallet = new Wallet(KEYS[0], replica);
  // A --dev replica starts from genesis: let it catch up first.
  const head = await sequencer.getBlockNumber();
  await poll(`the replica reaches the sequencer's block ${head}`, async () => (await replica.getBlockNumber()) >= head);
  // A contract creation relayed, its receipt read on the replica.
  const factory = new ContractFactory(TOKEN.abi, TOKEN.bytecode, wallet);
  const deployed = await factory.deploy("Stock Token", "STK", 1_000_000n * ETHER);
  const receipt = await sealedOn(replica, (await deployed.deploymentTransaction().wait()).hash);
  assert.equal(receipt.status, 1);
  token = new Contract(receipt.contractAddress, TOKEN.abi, wallet);
});

after(async () => {
  if (skip) return;
  await ws.destroy();
  replica.destroy();
  sequencer.destroy();
});

test("the replica serves the sequencer's blocks, transactions and receipts", { skip }, async () => {
  assert.equal(await replica.send("eth_chainId", []), toQuantity(CHAIN_ID));
  const head = await sequencer.getBlockNumber();
  await poll(`the replica reaches block ${head}`, async () => (await replica.getBlockNumber()) >= head);
  let txs = 0;
  for (let n = 1; n <= head; n++) {
    const [r, s] = await both("eth_getBlockByNumber", [toQuantity(n), true]);
    assert.deepEqual(r, s, `block ${n}`);
    for (const tx of s.transactions) {
      const [rr, sr] = await both("eth_getTransactionReceipt", [tx.hash]);
      assert.deepEqual(rr, sr, `receipt of ${tx.hash} in block ${n}`);
      txs++;
    }
  }
  assert.ok(txs > 0, `no transactions in blocks 1..${head}: the token's deployment is in one`);
  console.log(`blocks 1..${head} and ${txs} receipts identical on the replica and the sequencer`);
});

test("a transfer through the replica: pre-confirmed, tx.wait(), receipt and balances as on the sequencer", { skip }, async () => {
  const to = fresh();
  const value = 3n * ETHER;
  const tx = await wallet.sendTransaction({ to, value });
  // Relayed before the replica answered: the sequencer holds it already.
  assert.ok(await sequencer.getTransaction(tx.hash), "the sequencer does not know the transaction the replica accepted");
  await poll("the transfer in the replica's pending state", async () => (await replica.getBalance(to, "pending")) === value);
  const waited = await tx.wait();
  assert.equal(waited.status, 1);
  assert.equal(waited.hash, tx.hash);

  const receipt = await sealedOn(replica, tx.hash);
  await sealedOn(sequencer, tx.hash);
  const [rr, sr] = await both("eth_getTransactionReceipt", [tx.hash]);
  assert.deepEqual(rr, sr, "receipt");
  const [rt, st] = await both("eth_getTransactionByHash", [tx.hash]);
  assert.deepEqual(rt, st, "transaction");
  assert.equal(receipt.gasUsed, 21000n);
  for (const addr of [to, wallet.address]) {
    const [r, s] = await both("eth_getBalance", [addr, toQuantity(receipt.blockNumber)]);
    assert.equal(r, s, `balance of ${addr} at block ${receipt.blockNumber}`);
  }
  assert.equal(await replica.getBalance(to, receipt.blockNumber), value);
  assert.equal(await replica.getTransactionCount(wallet.address, receipt.blockNumber), await sequencer.getTransactionCount(wallet.address, receipt.blockNumber));
});

test("newHeads on the replica's WebSocket: consecutive blocks, each the sequencer's", { skip }, async () => {
  const watch = watchSubscribe();
  const blocks = collector();
  const onBlock = (n) => blocks.push(n);
  let got;
  try {
    await ws.on("block", onBlock);
    await watch.subscribed("newHeads");
    got = await blocks.wait(3, "'block' events");
  } finally {
    watch.stop();
    await ws.off("block", onBlock);
  }
  for (let i = 1; i < got.length; i++) assert.equal(got[i], got[i - 1] + 1, `'block' events ${got}`);
  for (const n of got) {
    const [r, s] = await Promise.all([ws.getBlock(n), sequencer.getBlock(n)]);
    assert.ok(r && s, `block ${n} announced by the replica: replica ${r?.hash}, sequencer ${s?.hash}`);
    assert.equal(r.hash, s.hash, `block ${n}`);
  }
});

test("a token transfer through the replica: its Transfer log on the replica's WebSocket, as the sequencer logged it", { skip }, async () => {
  const to = fresh();
  const value = 250n * ETHER;
  const address = await token.getAddress();
  const wsToken = new Contract(address, TOKEN.abi, ws);
  const watch = watchSubscribe();
  const events = collector();
  const onTransfer = (from, dest, amount, event) => {
    if (dest === to) events.push({ from, amount, event });
  };
  let tx;
  let got;
  try {
    await wsToken.on("Transfer", onTransfer);
    await watch.subscribed("logs");
    tx = await token.transfer(to, value);
    [got] = await events.wait(1, "Transfer events");
  } finally {
    watch.stop();
    await wsToken.off("Transfer", onTransfer);
  }
  assert.equal(got.from, wallet.address);
  assert.equal(got.amount, value);
  const log = got.event.log;
  assert.equal(log.transactionHash, tx.hash);

  const receipt = await sealedOn(sequencer, tx.hash);
  assert.equal(receipt.logs.length, 1);
  const sealed = receipt.logs[0];
  assert.deepEqual(
    [log.blockNumber, log.transactionIndex, log.index, log.address, log.data, log.topics],
    [sealed.blockNumber, sealed.transactionIndex, sealed.index, sealed.address, sealed.data, sealed.topics],
  );
  assert.equal(await token.balanceOf(to, { blockTag: receipt.blockNumber }), value);
});

test("a nonce too low through the replica is refused in the sequencer's words", { skip }, async () => {
  assert.ok((await replica.getTransactionCount(wallet.address, "latest")) > 0, "wallet has sent nothing yet");
  const fee = await replica.getFeeData();
  const signed = await wallet.signTransaction({
    type: 2, chainId: CHAIN_ID, nonce: 0, to: fresh(), value: 1n, gasLimit: 21000n,
    maxFeePerGas: fee.maxFeePerGas, maxPriorityFeePerGas: fee.maxPriorityFeePerGas,
  });
  const viaReplica = await rejection(replica.send("eth_sendRawTransaction", [signed]));
  const viaSequencer = await rejection(sequencer.send("eth_sendRawTransaction", [signed]));
  assert.ok(isError(viaReplica, "NONCE_EXPIRED"), `${viaReplica}`);
  assert.match(rpcError(viaReplica)?.message ?? "", /nonce too low/);
  assert.deepEqual(rpcError(viaReplica), rpcError(viaSequencer));

  // A sender without funds: the sequencer's pool says so, through the replica.
  const broke = Wallet.createRandom();
  const unfunded = await broke.signTransaction({
    type: 2, chainId: CHAIN_ID, nonce: 0, to: fresh(), value: 1n, gasLimit: 21000n,
    maxFeePerGas: fee.maxFeePerGas, maxPriorityFeePerGas: fee.maxPriorityFeePerGas,
  });
  const [r, s] = [await rejection(replica.send("eth_sendRawTransaction", [unfunded])), await rejection(sequencer.send("eth_sendRawTransaction", [unfunded]))];
  assert.ok(isError(r, "INSUFFICIENT_FUNDS"), `${r}`);
  assert.deepEqual(rpcError(r), rpcError(s));

  // And as a wallet sees it.
  await assert.rejects(wallet.sendTransaction({ to: fresh(), value: 1n, nonce: 0 }), (err) => isError(err, "NONCE_EXPIRED"));
});

test("a faucet drip on the replica is the sequencer's faucet's", { skip }, async () => {
  const to = fresh();
  const drip = (base) =>
    fetch(base.replace(/\/*$/, "") + "/api/preview/faucet/drip", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ address: to }),
    });
  const res = await drip(RPC);
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.to, to);
  const receipt = await sealedOn(replica, body.tx_hash);
  assert.equal(receipt.status, 1);
  assert.equal(await replica.getBalance(to, receipt.blockNumber), BigInt(body.amount_wei));
  // One cooldown for the sequencer and its replicas.
  const again = await drip(SEQUENCER);
  assert.equal(again.status, 429, JSON.stringify(await again.json()));
});
