// ethers v6 against stocknode over HTTP: JsonRpcProvider + Wallet, with
// ethers' default options (a 250 ms request cache, polling every 4 s),
// against / (the Standard view, the default: a receipt means a sealed
// block).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { ContractFactory, Contract, Interface, JsonRpcProvider, Wallet, isError, toQuantity } from "ethers";
import { RPC, CHAIN_ID, KEYS, TOKEN, GWEI, ETHER, poll, probe, headNumber, pendingBeforeLatest } from "./helpers.mjs";

const provider = new JsonRpcProvider(RPC);
const wallet = new Wallet(KEYS[0], provider);
const other = new Wallet(KEYS[1], provider);
// Bare Wallets, as dapps have: each send asks eth_getTransactionCount
// (pending), which ethers answers from its 250 ms cache when it asked the
// same within that time; the node holds a sender's own transaction as
// pooled for 300 ms after its send (--rpc.receipt-hold), so no tx.wait()
// returns before that cache has expired.
const sender = wallet;
const otherSender = other;
const supply = 1_000_000n * ETHER;
const iface = new Interface(TOKEN.abi);
let token; // the deployed Contract, connected to sender

// sealed checks that a receipt tx.wait() returned is its sealed block's:
// the node's latest (read after) has reached it and the block by number has
// its hash. It returns the receipt.
async function sealed(receipt) {
  const head = await headNumber();
  assert.ok(receipt.blockNumber <= head, `tx.wait() returned a receipt in block ${receipt.blockNumber}, latest is ${head}`);
  const block = await probe("eth_getBlockByNumber", [toQuantity(receipt.blockNumber), false]);
  assert.equal(block.hash, receipt.blockHash, `block ${receipt.blockNumber}`);
  return receipt;
}

// balanceOfNow reads the token balance at tag through the node (probe).
async function balanceOfNow(to, tag) {
  return BigInt(await probe("eth_call", [{ to: await token.getAddress(), data: iface.encodeFunctionData("balanceOf", [to]) }, tag]));
}

function fresh() {
  return Wallet.createRandom().address;
}

before(async () => {
  const factory = new ContractFactory(TOKEN.abi, TOKEN.bytecode, sender);
  const deployed = await factory.deploy("Stock Token", "STK", supply);
  await sealed(await deployed.deploymentTransaction().wait());
  token = new Contract(await deployed.getAddress(), TOKEN.abi, sender);
});

after(() => provider.destroy());

test("network, block number and getBalance at latest and pending", async () => {
  const net = await provider.getNetwork();
  assert.equal(net.chainId, BigInt(CHAIN_ID));
  assert.equal(await provider.send("eth_chainId", []), "0x" + CHAIN_ID.toString(16));
  const first = await provider.getBlockNumber();
  await poll("block number increases", async () => (await provider.getBlockNumber()) > first);
  const latest = await provider.getBalance(other.address, "latest");
  const pending = await provider.getBalance(other.address, "pending");
  assert.ok(latest > 0n && pending > 0n, `balances ${latest} / ${pending}`);
  const block = await provider.getBlock("latest");
  assert.ok(block.baseFeePerGas >= GWEI, `baseFeePerGas ${block.baseFeePerGas}`);
  assert.equal(block.hash, (await provider.getBlock(block.number)).hash);
});

test("ETH transfer shows in pending before latest, then tx.wait()", async () => {
  const value = 3n * ETHER;
  let tx;
  const { inPending, window } = await pendingBeforeLatest(
    async () => {
      const to = fresh();
      tx = await otherSender.sendTransaction({ to, value });
      return { to, label: tx.hash };
    },
    async ({ to }, pending) => {
      const bal = BigInt(await probe("eth_getBalance", [to, pending ? "pending" : "latest"]));
      assert.ok(bal === 0n || bal === value, `balance ${bal}`);
      return bal === value;
    },
  );
  assert.ok(inPending < 2000, `in pending only after ${inPending} ms`);
  const receipt = await sealed(await tx.wait());
  assert.equal(receipt.status, 1);
  assert.equal(receipt.from, other.address);
  assert.equal(receipt.gasUsed, 21000n);
  const got = await provider.getTransaction(tx.hash);
  assert.equal(got.blockHash, receipt.blockHash);
  assert.equal(got.value, value);
  console.log(`ETH transfer: in pending after ${inPending} ms, latest ${window} ms later`);
});

test("Token deployed by ContractFactory: views at latest and pending", async () => {
  assert.equal(await token.name(), "Stock Token");
  assert.equal(await token.symbol(), "STK");
  assert.equal(await token.decimals(), 18n);
  assert.equal(await token.totalSupply(), supply);
  assert.ok((await token.balanceOf(wallet.address)) <= supply);
  assert.ok((await token.balanceOf(wallet.address, { blockTag: "pending" })) <= supply);
  const code = await provider.getCode(await token.getAddress());
  assert.ok(code.length > 2);
});

test("token transfer shows in balanceOf pending before latest", async () => {
  const value = 250n * ETHER;
  let tx;
  const { window } = await pendingBeforeLatest(
    async () => {
      const to = fresh();
      tx = await token.transfer(to, value);
      return { to, label: tx.hash };
    },
    async ({ to }, pending) => {
      const bal = await balanceOfNow(to, pending ? "pending" : "latest");
      assert.ok(bal === 0n || bal === value, `balanceOf ${bal}`);
      return bal === value;
    },
  );
  const receipt = await sealed(await tx.wait());
  assert.equal(receipt.status, 1);
  assert.equal(receipt.logs.length, 1);
  const parsed = token.interface.parseLog(receipt.logs[0]);
  assert.equal(parsed.name, "Transfer");
  assert.equal(parsed.args.from, wallet.address);
  assert.equal(parsed.args.value, value);
  console.log(`token transfer: pending-only window ${window} ms`);
});

test("Transfer events via queryFilter and contract.on (eth_newFilter polling)", async () => {
  const to = fresh();
  const value = 42n * ETHER;
  // contract.on installs its eth_newFilter asynchronously: watch the wire
  // and send the transfer only once the node has answered it.
  const filterIDs = new Set();
  let installed = false;
  const onDebug = (info) => {
    const list = (x) => (Array.isArray(x) ? x : [x]);
    if (info.action === "sendRpcPayload") {
      for (const p of list(info.payload)) if (p.method === "eth_newFilter") filterIDs.add(p.id);
    } else if (info.action === "receiveRpcResult") {
      for (const r of list(info.result)) if (filterIDs.has(r.id) && r.result) installed = true;
    }
  };
  provider.on("debug", onDebug);
  let timer;
  const seen = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error("contract.on('Transfer') did not fire within 15 s")), 15_000);
    // By event name ethers decodes the arguments (with a filter object such
    // as filters.Transfer(from, to) it passes only the payload).
    token.on("Transfer", (from, dest, amount, event) => {
      if (dest !== to) return;
      clearTimeout(timer);
      resolve({ from, dest, amount, event });
    });
  });
  seen.catch(() => {}); // awaited below; keep an early timeout from being unhandled
  try {
    await poll("contract.on installed its filter (eth_newFilter answered)", () => installed);
  } finally {
    provider.off("debug", onDebug);
  }
  const start = await provider.getBlockNumber();
  const tx = await token.transfer(to, value);
  const receipt = await sealed(await tx.wait());
  try {
    const ev = await seen;
    assert.equal(ev.from, wallet.address);
    assert.equal(ev.dest, to);
    assert.equal(ev.amount, value);
    assert.equal(ev.event.log.transactionHash, tx.hash);
  } finally {
    await token.removeAllListeners();
  }

  const logs = await token.queryFilter(token.filters.Transfer(null, to), start, receipt.blockNumber);
  assert.equal(logs.length, 1);
  assert.equal(logs[0].eventName, "Transfer");
  assert.equal(logs[0].args.to, to);
  assert.equal(logs[0].args.value, value);
  assert.equal(logs[0].transactionHash, tx.hash);
  assert.equal(logs[0].blockHash, receipt.blockHash);
  const none = await token.queryFilter(token.filters.Transfer(null, fresh()), start, receipt.blockNumber);
  assert.equal(none.length, 0);
});

test("revert reasons: Error(string), custom error, estimateGas", async () => {
  await assert.rejects(token.fail(), (err) => {
    assert.ok(isError(err, "CALL_EXCEPTION"), `${err.code}: ${err.message}`);
    assert.equal(err.reason, "nope");
    assert.match(err.shortMessage, /execution reverted.*nope/);
    assert.equal(err.revert?.name, "Error");
    return true;
  });
  await assert.rejects(token.failCustom(), (err) => {
    assert.ok(isError(err, "CALL_EXCEPTION"), `${err.code}: ${err.message}`);
    assert.equal(err.revert?.name, "Unauthorized");
    assert.equal(err.revert.args[0], wallet.address);
    assert.equal(err.revert.args[1], 42n);
    return true;
  });
  // Sending a transfer the sender cannot pay: the estimate reverts first.
  await assert.rejects(token.connect(other).transfer(wallet.address, 1n), (err) => {
    assert.ok(isError(err, "CALL_EXCEPTION"), `${err.code}: ${err.message}`);
    assert.equal(err.reason, "insufficient balance");
    return true;
  });
  await assert.rejects(token.transfer.estimateGas(fresh(), supply * 2n), (err) => err.reason === "insufficient balance");
});

test("getFeeData and estimateGas", async () => {
  const fees = await provider.getFeeData();
  assert.ok(fees.gasPrice >= GWEI, `gasPrice ${fees.gasPrice}`);
  assert.ok(fees.maxPriorityFeePerGas >= 0n);
  const block = await provider.getBlock("latest");
  assert.ok(fees.maxFeePerGas >= block.baseFeePerGas + fees.maxPriorityFeePerGas, `maxFeePerGas ${fees.maxFeePerGas}`);
  assert.equal(await provider.estimateGas({ from: wallet.address, to: fresh(), value: 1n }), 21000n);
  const gas = await token.transfer.estimateGas(fresh(), 1n);
  assert.ok(gas > 21000n && gas < 100000n, `token transfer estimate ${gas}`);
});

test("JSON-RPC batching: default provider and batchMaxCount", async () => {
  const payloads = [];
  const onDebug = (info) => info.action === "sendRpcPayload" && payloads.push(info.payload);
  provider.on("debug", onDebug);
  try {
    const addrs = [wallet.address, other.address, fresh(), fresh()];
    const [number, ...balances] = await Promise.all([provider.getBlockNumber(), ...addrs.map((a) => provider.getBalance(a))]);
    assert.ok(number > 0);
    assert.ok(balances[0] > 0n && balances[1] > 0n);
    assert.equal(balances[2], 0n);
    assert.ok(payloads.some((p) => Array.isArray(p) && p.length >= 5), `no batch of 5 sent: ${JSON.stringify(payloads).slice(0, 300)}`);
  } finally {
    provider.off("debug", onDebug);
  }

  // One bad element fails alone.
  const results = await Promise.allSettled([
    provider.getBalance(wallet.address),
    provider.send("eth_getBalance", [wallet.address, { blockHash: "0x" + "ab".repeat(32) }]),
    provider.getBlockNumber(),
  ]);
  assert.equal(results[0].status, "fulfilled");
  assert.equal(results[1].status, "rejected");
  assert.match(results[1].reason.message, /header for hash not found/);
  assert.equal(results[2].status, "fulfilled");

  // batchMaxCount caps a batch. Seven different requests (ethers answers
  // identical ones from its cache with one request); ethers may add
  // eth_chainId to check the network, so only the eth_getBalance calls
  // are counted.
  for (const batchMaxCount of [1, 3]) {
    const p = new JsonRpcProvider(RPC, undefined, { batchMaxCount });
    const sent = [];
    p.on("debug", (info) => info.action === "sendRpcPayload" && sent.push(info.payload));
    try {
      const addrs = Array.from({ length: 7 }, (_, i) => (i === 0 ? wallet.address : fresh()));
      const got = await Promise.all(addrs.map((a) => p.getBalance(a)));
      assert.equal(got.length, 7);
      assert.ok(got[0] > 0n && got.slice(1).every((b) => b === 0n), `balances ${got}`);
      const balances = sent.map((x) => [x].flat().filter((m) => m.method === "eth_getBalance").length).filter((n) => n > 0);
      assert.equal(balances.reduce((a, b) => a + b, 0), 7, `eth_getBalance calls per payload: ${balances}`);
      const sizes = sent.map((x) => (Array.isArray(x) ? x.length : 1));
      assert.ok(Math.max(...sizes) <= batchMaxCount, `batchMaxCount ${batchMaxCount}: sent ${sizes}`);
      if (batchMaxCount === 1) assert.ok(sent.every((x) => !Array.isArray(x)), "batchMaxCount 1 still sent arrays");
    } finally {
      p.destroy();
    }
  }
});

// ethers' tx.wait() resolves on the first receipt the node serves, and the
// application then reads `latest` (waitForDeployment is exactly this). On
// / a receipt must therefore be that of a sealed block: its block exists by
// hash and latest includes it (execution-apis; geth answers null until
// mined). Probed every 10 ms through the transaction's life, the node must
// never serve a receipt ahead of latest; then, as a dapp does, tx.wait()
// and a read of latest with the default tag show the transfer.
test("receipts are those of sealed blocks (what tx.wait() relies on)", async () => {
  const tx = await otherSender.sendTransaction({ to: fresh(), value: 1n });
  const problems = [];
  await poll(
    `transaction ${tx.hash} sealed`,
    async () => {
      const r = await probe("eth_getTransactionReceipt", [tx.hash]);
      const head = await headNumber(); // read after: a sealed receipt's block is <= head
      if (!r) return false;
      if (Number(r.blockNumber) > head) {
        if (problems.length === 0) {
          const block = await probe("eth_getBlockByHash", [r.blockHash, false]);
          problems.push(`receipt in block ${Number(r.blockNumber)} (${r.blockHash}) while eth_blockNumber is ${head}; eth_getBlockByHash(receipt.blockHash) = ${JSON.stringify(block)}`);
        }
        return false;
      }
      return true;
    },
    { interval: 10 },
  );
  assert.deepEqual(problems, [], "eth_getTransactionReceipt served a receipt of an unsealed block");

  const to = fresh();
  const next = await otherSender.sendTransaction({ to, value: 7n });
  const receipt = await next.wait();
  assert.equal(await provider.getBalance(to), 7n, `getBalance(to) right after tx.wait() (receipt in block ${receipt.blockNumber})`);
  assert.equal((await receipt.getBlock()).hash, receipt.blockHash);
});
