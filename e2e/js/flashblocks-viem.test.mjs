// viem and Base's Flashblocks receipts: against a node that answers a
// pre-confirmed transaction's receipt (the default)
// waitForTransactionReceipt returns before the block seals, with the
// receipt the sealed block then has (but for its hash); against one with
// --rpc.preconfirmed-receipts=false it returns once the block is sealed.
// Both nodes have 3 s blocks. Run through `go test ./e2e/ -run Flashblocks`.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { createPublicClient, createWalletClient, defineChain, http, zeroHash } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { RPC, CHAIN_ID, KEYS, TOKEN, ETHER, poll } from "./helpers.mjs";

const SEALED_ONLY = process.env.STOCKNODE_RPC_SEALED_ONLY;
if (!SEALED_ONLY) throw new Error("STOCKNODE_RPC_SEALED_ONLY is not set: run through `go test ./e2e/ -run Flashblocks`");

const chain = (url) =>
  defineChain({ id: CHAIN_ID, name: "stocknode dev", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [url] } } });
const account = privateKeyToAccount(KEYS[2]);
const clients = (url) => ({
  public: createPublicClient({ chain: chain(url), transport: http(url), pollingInterval: 100 }),
  wallet: createWalletClient({ account, chain: chain(url), transport: http(url) }),
});
const preconf = clients(RPC);
const sealedOnly = clients(SEALED_ONLY);
const abi = TOKEN.abi;
let token, tokenSealedOnly; // addresses

const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

// sealedReceipt polls until the receipt is the sealed block's and latest has
// reached it.
async function sealedReceipt(c, hash) {
  return poll(`transaction ${hash} sealed`, async () => {
    const head = await c.public.getBlockNumber({ cacheTime: 0 });
    const r = await c.public.getTransactionReceipt({ hash }).catch(() => undefined);
    return r && r.blockHash !== zeroHash && r.blockNumber <= head ? r : undefined;
  });
}

async function deploy(c) {
  const hash = await c.wallet.deployContract({ abi, bytecode: TOKEN.bytecode, args: ["Stock Token", "STK", 1_000_000n * ETHER] });
  return (await sealedReceipt(c, hash)).contractAddress;
}

before(async () => {
  [token, tokenSealedOnly] = await Promise.all([deploy(preconf), deploy(sealedOnly)]);
});

const balanceOf = (c, address, to, blockTag) => c.public.readContract({ address, abi, functionName: "balanceOf", args: [to], blockTag });
const logFields = (l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: l.logIndex, transactionIndex: l.transactionIndex, blockNumber: l.blockNumber });

test("waitForTransactionReceipt returns the pre-confirmed receipt before the block seals; the sealed block says the same", async () => {
  const to = fresh();
  const hash = await preconf.wallet.writeContract({ address: token, abi, functionName: "transfer", args: [to, 5n * ETHER] });
  const receipt = await preconf.public.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  assert.equal(receipt.blockHash, zeroHash, "waitForTransactionReceipt returned the sealed receipt: it waited for the seal");
  assert.equal(receipt.status, "success");
  assert.equal(await balanceOf(preconf, token, to, "pending"), 5n * ETHER, "pending, right after waitForTransactionReceipt");
  const preTx = await preconf.public.getTransaction({ hash });
  assert.equal(preTx.blockNumber, receipt.blockNumber);
  assert.equal(preTx.transactionIndex, receipt.transactionIndex);
  assert.equal(preTx.blockHash, null);

  const sealed = await sealedReceipt(preconf, hash);
  for (const key of ["blockNumber", "transactionIndex", "status", "gasUsed", "cumulativeGasUsed", "effectiveGasPrice", "from", "to", "contractAddress", "logsBloom", "type"]) {
    assert.deepEqual(receipt[key], sealed[key], `${key}: pre-confirmed ${receipt[key]}, sealed ${sealed[key]}`);
  }
  assert.deepEqual(receipt.logs.map(logFields), sealed.logs.map(logFields));
  const block = await preconf.public.getBlock({ blockNumber: sealed.blockNumber });
  assert.equal(block.transactions[receipt.transactionIndex], hash);
});

test("with --rpc.preconfirmed-receipts=false, waitForTransactionReceipt waits for the seal and latest shows the transaction", async () => {
  const to = fresh();
  const hash = await sealedOnly.wallet.writeContract({ address: tokenSealedOnly, abi, functionName: "transfer", args: [to, 3n * ETHER] });
  const receipt = await sealedOnly.public.waitForTransactionReceipt({ hash, pollingInterval: 100 });
  assert.notEqual(receipt.blockHash, zeroHash);
  assert.ok(receipt.blockNumber <= (await sealedOnly.public.getBlockNumber({ cacheTime: 0 })));
  assert.equal(await balanceOf(sealedOnly, tokenSealedOnly, to, "latest"), 3n * ETHER, "latest, right after waitForTransactionReceipt");
  const block = await sealedOnly.public.getBlock({ blockHash: receipt.blockHash });
  assert.equal(block.number, receipt.blockNumber);
});
