// viem and Base's Flashblocks RPC: STOCKNODE_RPC is a node's /preconf,
// STOCKNODE_RPC_STANDARD the same node's / (see flashblocks-ethers). The
// /preconf chain is declared as viem's own Base Flashblocks chains
// (basePreconf, baseSepoliaPreconf) declare theirs, with
// experimental_preconfirmationTime: viem then polls at that interval and
// reads `pending` by default. Clients have viem's default options. On
// /preconf waitForTransactionReceipt returns before the block seals, the
// receipt's block hash (the block's PreconfHash) resolves with
// getBlock({ blockHash }) to the pending block and then the sealed one, and
// a default read right after shows the write; on / waitForTransactionReceipt
// returns once the block is sealed and latest shows the transaction. 3 s
// blocks (TestFlashblocksJavaScript).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { createPublicClient, createWalletClient, defineChain, http, numberToHex, zeroHash } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { RPC, CHAIN_ID, KEYS, TOKEN, ETHER, STANDARD, probe, headNumber, sealedOnStandard, freshBlock, preconfirmed } from "./helpers.mjs";

if (!/\/preconf\/?$/.test(RPC)) throw new Error(`STOCKNODE_RPC is ${RPC}: the Flashblocks suites run against a node's /preconf (go test ./e2e/ -run Flashblocks)`);

const chain = { id: CHAIN_ID, name: "stocknode dev", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 } };
const preconfChain = defineChain({ ...chain, rpcUrls: { default: { http: [RPC] } }, experimental_preconfirmationTime: 200 });
const standardChain = defineChain({ ...chain, rpcUrls: { default: { http: [STANDARD] } } });
const clients = (chain, url, key) => ({
  public: createPublicClient({ chain, transport: http(url) }),
  wallet: createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(url) }),
});
const preconf = clients(preconfChain, RPC, KEYS[2]);
const standard = clients(standardChain, STANDARD, KEYS[3]);
const abi = TOKEN.abi;
let preconfToken, standardToken; // addresses

const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

async function deploy(c) {
  const hash = await c.wallet.deployContract({ abi, bytecode: TOKEN.bytecode, args: ["Stock Token", "STK", 1_000_000n * ETHER] });
  return (await sealedOnStandard(hash)).contractAddress;
}

before(async () => {
  [preconfToken, standardToken] = await Promise.all([deploy(preconf), deploy(standard)]);
});

const balanceOf = (c, address, to, blockTag) => c.public.readContract({ address, abi, functionName: "balanceOf", args: [to], blockTag });
const logFields = (l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: l.logIndex, transactionIndex: l.transactionIndex, blockNumber: l.blockNumber });

test("on /preconf waitForTransactionReceipt returns before the seal; getBlock({ blockHash }) resolves to the pending block, then to the sealed one; a default read shows the write", async () => {
  await freshBlock();
  const to = fresh();
  const hash = await preconf.wallet.writeContract({ address: preconfToken, abi, functionName: "transfer", args: [to, 5n * ETHER] });
  // As in flashblocks-ethers: the receipt is asked for once the pending
  // block holds the transaction, so that the first ask is the one tested.
  const pendingBlock = await preconfirmed(hash);
  const receipt = await preconf.public.waitForTransactionReceipt({ hash });
  const head = await headNumber(STANDARD);
  assert.equal(receipt.status, "success");
  assert.notEqual(receipt.blockHash, zeroHash, "the pre-confirmed receipt's blockHash");
  assert.equal(receipt.blockHash, pendingBlock.hash, "the receipt names the pending block's hash (its PreconfHash)");
  assert.ok(Number(receipt.blockNumber) > head, `waitForTransactionReceipt returned a receipt in block ${receipt.blockNumber} with / at ${head}: after the seal`);
  assert.equal(await probe("eth_getBlockByHash", [receipt.blockHash, false], STANDARD), null, "the PreconfHash is no sealed block's");
  assert.equal(receipt.logs[0].blockHash, receipt.blockHash);

  const building = await preconf.public.getBlock({ blockHash: receipt.blockHash });
  assert.equal(building.hash, receipt.blockHash);
  assert.equal(building.number, receipt.blockNumber);
  assert.equal(building.transactions[receipt.transactionIndex], hash);
  const preTx = await preconf.public.getTransaction({ hash });
  assert.deepEqual([preTx.blockHash, preTx.blockNumber, preTx.transactionIndex], [receipt.blockHash, receipt.blockNumber, receipt.transactionIndex]);
  // The chain declares pre-confirmations, so viem reads pending by default:
  // right after the receipt the default read shows the transfer; latest
  // does once the block is sealed.
  assert.equal(await balanceOf(preconf, preconfToken, to), 5n * ETHER, "the default read right after waitForTransactionReceipt");
  assert.equal(await balanceOf(preconf, preconfToken, to, "latest"), 0n, "latest, before the seal");
  assert.ok((await headNumber(STANDARD)) < receipt.blockNumber, "the block was sealed while the test read it as pending: the checks above may have read the sealed block");

  await sealedOnStandard(hash);
  const sealed = await preconf.public.getTransactionReceipt({ hash });
  assert.notEqual(sealed.blockHash, receipt.blockHash, "/preconf still serves the pre-confirmed receipt after / has the sealed one");
  for (const key of ["blockNumber", "transactionIndex", "status", "gasUsed", "cumulativeGasUsed", "effectiveGasPrice", "from", "to", "contractAddress", "logsBloom", "type"]) {
    assert.deepEqual(receipt[key], sealed[key], `${key}: pre-confirmed ${receipt[key]}, sealed ${sealed[key]}`);
  }
  assert.deepEqual(receipt.logs.map(logFields), sealed.logs.map(logFields));
  const block = await preconf.public.getBlock({ blockHash: receipt.blockHash });
  assert.equal(block.hash, sealed.blockHash, "getBlock({ blockHash: PreconfHash }) after the seal is the sealed block");
  assert.equal(block.number, receipt.blockNumber);
  assert.equal(block.transactions[receipt.transactionIndex], hash);
  assert.equal(await balanceOf(preconf, preconfToken, to, "latest"), 5n * ETHER, "latest, after the seal");
});

test("on / waitForTransactionReceipt returns once the block is sealed, and latest shows the transaction", async () => {
  await freshBlock();
  const to = fresh();
  const hash = await standard.wallet.writeContract({ address: standardToken, abi, functionName: "transfer", args: [to, 3n * ETHER] });
  await preconfirmed(hash, STANDARD);
  await assert.rejects(standard.public.getTransactionReceipt({ hash }), { name: "TransactionReceiptNotFoundError" }, "a receipt on / while the transaction is only pre-confirmed");
  const receipt = await standard.public.waitForTransactionReceipt({ hash });
  const head = await headNumber(STANDARD);
  assert.ok(Number(receipt.blockNumber) <= head, `waitForTransactionReceipt returned a receipt in block ${receipt.blockNumber}, latest is ${head}`);
  const block = await probe("eth_getBlockByNumber", [numberToHex(receipt.blockNumber), false], STANDARD);
  assert.equal(receipt.blockHash, block.hash, "the receipt names the sealed block");
  assert.equal(await balanceOf(standard, standardToken, to), 3n * ETHER, "latest, right after waitForTransactionReceipt");
  assert.equal((await standard.public.getBlock({ blockHash: receipt.blockHash })).number, receipt.blockNumber);
});
