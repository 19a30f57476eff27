// viem against stocknode over HTTP: public and wallet clients with the http
// transport and a custom chain, with viem's default options (on a chain
// that declares no block time: polling every 4 s, the block number cached
// as long), against / (the Standard view, the default: a receipt means a
// sealed block).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  numberToHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { RPC, CHAIN_ID, KEYS, TOKEN, GWEI, ETHER, poll, probe, headNumber, pendingBeforeLatest } from "./helpers.mjs";

const chain = defineChain({
  id: CHAIN_ID,
  name: "stocknode dev",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [RPC] } },
});

const publicClient = createPublicClient({ chain, transport: http(RPC) });
const account = privateKeyToAccount(KEYS[2]);
const account2 = privateKeyToAccount(KEYS[3]);
const wallet = createWalletClient({ account, chain, transport: http(RPC) });
const wallet2 = createWalletClient({ account: account2, chain, transport: http(RPC) });
const abi = TOKEN.abi;
const supply = 500_000n * ETHER;
let token; // address

const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

// sealed waits for the transaction's receipt as a dapp does
// (waitForTransactionReceipt, default options) and checks that it is its
// sealed block's: the node's latest (read after) has reached it and the
// block by number has its hash. See the last test.
async function sealed(hash) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  const head = await headNumber();
  assert.ok(Number(receipt.blockNumber) <= head, `waitForTransactionReceipt returned a receipt in block ${receipt.blockNumber}, latest is ${head}`);
  const block = await probe("eth_getBlockByNumber", [numberToHex(receipt.blockNumber), false]);
  assert.equal(block.hash, receipt.blockHash, `block ${receipt.blockNumber}`);
  return receipt;
}

before(async () => {
  const hash = await wallet.deployContract({ abi, bytecode: TOKEN.bytecode, args: ["Stock Token", "STK", supply] });
  const receipt = await sealed(hash);
  assert.equal(receipt.status, "success");
  token = receipt.contractAddress;
  assert.ok(token, "no contractAddress in the deployment receipt");
});

test("chain id, block number, getBalance at latest and pending", async () => {
  assert.equal(await publicClient.getChainId(), CHAIN_ID);
  const first = await publicClient.getBlockNumber();
  // viem answers getBlockNumber from its cache for the polling interval (4 s).
  await poll("block number increases", async () => (await publicClient.getBlockNumber()) > first, { timeout: 15_000, interval: 250 });
  const latest = await publicClient.getBalance({ address: account2.address });
  const pending = await publicClient.getBalance({ address: account2.address, blockTag: "pending" });
  assert.ok(latest > 0n && pending > 0n);
  const block = await publicClient.getBlock({ blockTag: "latest" });
  assert.ok(block.baseFeePerGas >= GWEI);
  const byHash = await publicClient.getBlock({ blockHash: block.hash });
  assert.equal(byHash.number, block.number);
  const pendingBlock = await publicClient.getBlock({ blockTag: "pending" });
  assert.ok(pendingBlock.number > block.number, `pending block ${pendingBlock.number}, latest ${block.number}`);
  assert.equal(pendingBlock.hash, null);
});

test("sendTransaction: pending before latest, waitForTransactionReceipt", async () => {
  const value = 2n * ETHER;
  let hash;
  const { inPending, window } = await pendingBeforeLatest(
    async () => {
      const to = fresh();
      hash = await wallet2.sendTransaction({ to, value });
      return { to, label: hash };
    },
    async ({ to }, pending) => {
      const bal = await publicClient.getBalance({ address: to, blockTag: pending ? "pending" : "latest" });
      assert.ok(bal === 0n || bal === value, `balance ${bal}`);
      return bal === value;
    },
  );
  const receipt = await sealed(hash);
  assert.equal(receipt.status, "success");
  assert.equal(receipt.gasUsed, 21000n);
  assert.equal(getAddress(receipt.from), account2.address);
  const tx = await publicClient.getTransaction({ hash });
  assert.equal(tx.blockHash, receipt.blockHash);
  assert.equal(tx.value, value);
  console.log(`viem ETH transfer: in pending after ${inPending} ms, latest ${window} ms later`);
});

test("deployContract + readContract at latest and pending", async () => {
  const read = (functionName, args = [], blockTag) => publicClient.readContract({ address: token, abi, functionName, args, blockTag });
  assert.equal(await read("name"), "Stock Token");
  assert.equal(await read("symbol"), "STK");
  assert.equal(await read("decimals"), 18);
  assert.equal(await read("totalSupply"), supply);
  assert.equal(await read("totalSupply", [], "pending"), supply);

  const value = 123n * ETHER;
  let hash;
  await pendingBeforeLatest(
    async () => {
      const to = fresh();
      hash = await wallet.writeContract({ address: token, abi, functionName: "transfer", args: [to, value] });
      return { to, label: hash };
    },
    async ({ to }, pending) => {
      const bal = await read("balanceOf", [to], pending ? "pending" : "latest");
      assert.ok(bal === 0n || bal === value, `balanceOf ${bal}`);
      return bal === value;
    },
  );
  const receipt = await sealed(hash);
  assert.equal(receipt.status, "success");
  assert.equal(receipt.logs.length, 1);
});

// viem decodes revert data into a ContractFunctionRevertedError (reason,
// errorName, args) only for error code 3 (geth, anvil and execution-apis),
// -32603, or -32000 with the message exactly "execution reverted".
function revertOf(err) {
  assert.ok(err instanceof BaseError, String(err));
  const revert = err.walk((e) => e instanceof ContractFunctionRevertedError);
  assert.ok(revert, `viem found no ContractFunctionRevertedError (the RPC error was ${JSON.stringify(rpcErrorOf(err))}): ${err.shortMessage}`);
  return revert;
}

function rpcErrorOf(err) {
  const e = err.walk((x) => x.name === "RpcRequestError");
  return e ? { code: e.code, message: e.details ?? e.message, data: e.data } : null;
}

test("simulateContract: custom error decoded", async () => {
  await assert.rejects(publicClient.simulateContract({ address: token, abi, functionName: "failCustom", account }), (err) => {
    const revert = revertOf(err);
    assert.equal(revert.data?.errorName, "Unauthorized");
    assert.equal(getAddress(revert.data.args[0]), account.address);
    assert.equal(revert.data.args[1], 42n);
    return true;
  });
  const { result } = await publicClient.simulateContract({ address: token, abi, functionName: "transfer", args: [fresh(), 1n], account });
  assert.equal(result, true);
});

test("simulateContract: revert reason decoded (fail() reverts with \"nope\")", async () => {
  await assert.rejects(publicClient.simulateContract({ address: token, abi, functionName: "fail", account }), (err) => {
    assert.match(err.message, /nope/);
    const revert = revertOf(err);
    assert.equal(revert.reason, "nope");
    assert.equal(revert.data?.errorName, "Error");
    return true;
  });
  await assert.rejects(
    publicClient.simulateContract({ address: token, abi, functionName: "transfer", args: [account.address, 1n], account: account2 }),
    (err) => {
      assert.equal(revertOf(err).reason, "insufficient balance");
      return true;
    },
  );
});

test("getLogs, getContractEvents and watchContractEvent (filter polling)", async () => {
  const to = fresh();
  const value = 9n * ETHER;
  const start = await publicClient.getBlockNumber();

  // watchContractEvent installs an eth_newFilter on its first poll; a
  // client that watches its own wire tells when the node has answered it,
  // and only then is the transfer sent.
  const filterIDs = new Set();
  let installed = false;
  const list = (x) => (Array.isArray(x) ? x : [x]);
  const watcher = createPublicClient({
    chain,
    transport: http(RPC, {
      onFetchRequest: (_request, init) => {
        for (const m of list(JSON.parse(init.body))) if (m.method === "eth_newFilter") filterIDs.add(m.id);
      },
      onFetchResponse: async (response) => {
        const body = await response.clone().json();
        for (const r of list(body)) if (filterIDs.has(r.id) && r.result) installed = true;
      },
    }),
  });

  let unwatch;
  const seen = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("watchContractEvent did not deliver the Transfer within 15 s")), 15_000);
    unwatch = watcher.watchContractEvent({
      address: token,
      abi,
      eventName: "Transfer",
      args: { to },
      onLogs: (logs) => {
        clearTimeout(timer);
        resolve(logs);
      },
      onError: (err) => {
        clearTimeout(timer);
        reject(err);
      },
    });
  });
  seen.catch(() => {});
  try {
    await poll("watchContractEvent installed its filter (eth_newFilter answered)", () => installed);
    const hash = await wallet.writeContract({ address: token, abi, functionName: "transfer", args: [to, value] });
    const receipt = await sealed(hash);
    const logs = await seen;
    assert.equal(logs.length, 1);
    assert.equal(logs[0].eventName, "Transfer");
    assert.equal(getAddress(logs[0].args.to), to);
    assert.equal(logs[0].args.value, value);
    assert.equal(logs[0].transactionHash, hash);

    const transferEvent = abi.find((x) => x.type === "event" && x.name === "Transfer");
    const got = await publicClient.getLogs({ address: token, event: transferEvent, args: { to }, fromBlock: start, toBlock: receipt.blockNumber });
    assert.equal(got.length, 1);
    assert.equal(got[0].args.value, value);
    assert.equal(got[0].blockHash, receipt.blockHash);
    const events = await publicClient.getContractEvents({ address: token, abi, eventName: "Transfer", args: { from: account.address }, fromBlock: start });
    assert.ok(events.some((e) => e.transactionHash === hash));
    const none = await publicClient.getLogs({ address: token, event: transferEvent, args: { to: fresh() }, fromBlock: start });
    assert.equal(none.length, 0);
  } finally {
    unwatch?.();
  }
});

test("estimateFeesPerGas, estimateGas, batched transport", async () => {
  const fees = await publicClient.estimateFeesPerGas();
  const block = await publicClient.getBlock();
  assert.ok(fees.maxFeePerGas >= block.baseFeePerGas, `maxFeePerGas ${fees.maxFeePerGas}`);
  assert.ok(fees.maxPriorityFeePerGas >= 0n);
  const legacy = await publicClient.estimateFeesPerGas({ type: "legacy" });
  assert.ok(legacy.gasPrice >= GWEI);
  assert.ok((await publicClient.getGasPrice()) >= GWEI);
  assert.equal(await publicClient.estimateGas({ account, to: fresh(), value: 1n }), 21000n);
  const gas = await publicClient.estimateContractGas({ address: token, abi, functionName: "transfer", args: [fresh(), 1n], account });
  assert.ok(gas > 21000n && gas < 100000n, `estimate ${gas}`);

  const batched = createPublicClient({ chain, transport: http(RPC, { batch: { batchSize: 3, wait: 10 } }) });
  const results = await Promise.all([
    batched.getChainId(),
    batched.getBlockNumber(),
    batched.getBalance({ address: account.address }),
    batched.getBalance({ address: account.address, blockTag: "pending" }),
    batched.getBalance({ address: fresh() }),
  ]);
  assert.equal(results[0], CHAIN_ID);
  assert.ok(results[1] > 0n);
  assert.ok(results[2] > 0n && results[3] > 0n);
  assert.equal(results[4], 0n);
});

test("multicall", { skip: "no multicall3 contract is deployed on the dev chain" }, () => {});

// viem's waitForTransactionReceipt resolves on the first receipt the node
// serves and applications then read `latest`. On / a receipt must therefore
// be that of a sealed block (execution-apis; geth answers null until
// mined). Polled every 10 ms through the transaction's life (viem caches
// neither; the head is probed), the node must never serve a receipt ahead
// of latest, nor a transaction with a blockHash the chain does not have;
// then, as a dapp does, waitForTransactionReceipt and a read with the
// default tag show the transfer.
test("receipts and transactions name sealed blocks only (what waitForTransactionReceipt relies on)", async () => {
  const hash = await wallet2.sendTransaction({ to: fresh(), value: 1n });
  const problems = [];
  await poll(
    `transaction ${hash} sealed`,
    async () => {
      const tx = await publicClient.getTransaction({ hash });
      let receipt = null;
      try {
        receipt = await publicClient.getTransactionReceipt({ hash });
      } catch (err) {
        if (err.name !== "TransactionReceiptNotFoundError") throw err;
      }
      const head = BigInt(await headNumber()); // read after: a sealed receipt's block is <= head
      if (tx.blockNumber !== null && tx.blockNumber > head && !problems.some((p) => p.startsWith("tx"))) {
        problems.push(`tx: eth_getTransactionByHash says block ${tx.blockNumber} (${tx.blockHash}) while eth_blockNumber is ${head}; want blockHash/blockNumber null`);
      }
      if (!receipt) return false;
      if (receipt.blockNumber > head) {
        if (!problems.some((p) => p.startsWith("receipt"))) {
          let block = "found";
          try {
            await publicClient.getBlock({ blockHash: receipt.blockHash });
          } catch (err) {
            block = err.shortMessage ?? err.message;
          }
          problems.push(`receipt: in block ${receipt.blockNumber} (${receipt.blockHash}) while eth_blockNumber is ${head}; getBlock(receipt.blockHash): ${block}`);
        }
        return false;
      }
      return true;
    },
    { interval: 10 },
  );
  assert.deepEqual(problems, [], "the node served an unsealed transaction as mined");

  const to = fresh();
  const next = await wallet2.sendTransaction({ to, value: 7n });
  const receipt = await publicClient.waitForTransactionReceipt({ hash: next });
  assert.equal(await publicClient.getBalance({ address: to }), 7n, `getBalance right after waitForTransactionReceipt (receipt in block ${receipt.blockNumber})`);
  assert.equal((await publicClient.getBlock({ blockHash: receipt.blockHash })).number, receipt.blockNumber);
});
