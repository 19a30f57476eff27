// ethers v6 and Base's Flashblocks RPC: STOCKNODE_RPC is a node's /preconf
// (the view a client opts into), STOCKNODE_RPC_STANDARD the same node's /
// (the default view: a receipt means a sealed block). ethers runs with its
// default options on both. On /preconf tx.wait() returns the pre-confirmed
// receipt before the block seals; its block hash is the block's
// PreconfHash, which receipt.getBlock() resolves to the pending block and,
// after the seal, to the sealed block. On / tx.wait() returns once the block
// is sealed and latest shows the transaction. The node has 3 s blocks
// (TestFlashblocksJavaScript), so that what must happen before a seal has
// seconds to happen in.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Contract, ContractFactory, JsonRpcProvider, NonceManager, Wallet, ZeroHash, toQuantity } from "ethers";
import { RPC, KEYS, TOKEN, ETHER, STANDARD, poll, probe, headNumber, sealedOnStandard, freshBlock, preconfirmed } from "./helpers.mjs";

if (!/\/preconf\/?$/.test(RPC)) throw new Error(`STOCKNODE_RPC is ${RPC}: the Flashblocks suites run against a node's /preconf (go test ./e2e/ -run Flashblocks)`);

const preconf = new JsonRpcProvider(RPC);
const standard = new JsonRpcProvider(STANDARD);
// One sender and one token per view. Transactions go through NonceManager:
// on /preconf tx.wait() returns within milliseconds, and a bare Wallet's
// next send would take its nonce from ethers' 250 ms cache (ethers.test.mjs).
const preconfSigner = new NonceManager(new Wallet(KEYS[0], preconf));
const standardSigner = new NonceManager(new Wallet(KEYS[1], standard));
let preconfToken, standardToken;

const fresh = () => Wallet.createRandom().address;

async function deploy(signer) {
  const deployed = await new ContractFactory(TOKEN.abi, TOKEN.bytecode, signer).deploy("Stock Token", "STK", 1_000_000n * ETHER);
  await sealedOnStandard(deployed.deploymentTransaction().hash);
  return new Contract(await deployed.getAddress(), TOKEN.abi, signer);
}

before(async () => {
  [preconfToken, standardToken] = await Promise.all([deploy(preconfSigner), deploy(standardSigner)]);
});

after(() => {
  preconf.destroy();
  standard.destroy();
});

// logFields are what a log says apart from its block hash.
const logFields = (l) => ({ address: l.address, topics: l.topics, data: l.data, index: l.index, transactionIndex: l.transactionIndex, blockNumber: l.blockNumber, transactionHash: l.transactionHash });

test("on /preconf tx.wait() returns before the seal, with the block's PreconfHash; receipt.getBlock() resolves to the pending block, then to the sealed one", async () => {
  await freshBlock();
  const to = fresh();
  const tx = await preconfToken.transfer(to, 5n * ETHER);
  // tx.wait() asks for the receipt once right away, then on each new block
  // (ethers polls the block number every 4 s). Whether that first ask comes
  // after the pre-confirmation, milliseconds after acceptance, is a race
  // this test does not run: it waits for the pending block to hold the
  // transaction first, as a Flashblocks app reading pending would.
  const pendingBlock = await preconfirmed(tx.hash);
  const receipt = await tx.wait();
  const head = await headNumber(STANDARD);
  assert.equal(receipt.status, 1);
  assert.notEqual(receipt.blockHash, ZeroHash, "the pre-confirmed receipt's blockHash");
  assert.equal(receipt.blockHash, pendingBlock.hash, "the receipt names the pending block's hash (its PreconfHash)");
  assert.equal(receipt.blockNumber, Number(pendingBlock.number));
  assert.ok(receipt.blockNumber > head, `tx.wait() returned a receipt in block ${receipt.blockNumber} with / at ${head}: after the seal`);
  assert.equal(await probe("eth_getBlockByHash", [receipt.blockHash, false], STANDARD), null, "the PreconfHash is no sealed block's");
  assert.equal(receipt.logs.length, 1);
  assert.equal(receipt.logs[0].blockHash, receipt.blockHash, "the receipt's log names the PreconfHash too");
  // The pending block as Base's Flashblocks RPC gives it: hash, miner and
  // nonce; on / as geth's, without them.
  assert.ok(pendingBlock.miner && pendingBlock.nonce, `pending block on /preconf: miner ${pendingBlock.miner}, nonce ${pendingBlock.nonce}`);
  const standardPending = await probe("eth_getBlockByNumber", ["pending", false], STANDARD);
  assert.deepEqual([standardPending.hash, standardPending.miner, standardPending.nonce], [null, null, null], "pending block on /");

  // receipt.getBlock(): eth_getBlockByHash(PreconfHash) on /preconf is the
  // block being built.
  const building = await receipt.getBlock();
  assert.ok(building, "receipt.getBlock() before the seal resolved to null");
  assert.equal(building.hash, receipt.blockHash);
  assert.equal(building.number, receipt.blockNumber);
  assert.equal(building.transactions[receipt.index], tx.hash);
  const preTx = await preconf.getTransaction(tx.hash);
  assert.deepEqual([preTx.blockHash, preTx.blockNumber, preTx.index], [receipt.blockHash, receipt.blockNumber, receipt.index], "the transaction object on /preconf");
  // Right after the pre-confirmed receipt: pending shows the transfer,
  // latest not yet; / has no receipt and no block fields yet.
  assert.equal(await preconfToken.balanceOf(to, { blockTag: "pending" }), 5n * ETHER, "pending");
  assert.equal(await preconfToken.balanceOf(to), 0n, "latest, before the seal");
  assert.equal(await probe("eth_getTransactionReceipt", [tx.hash], STANDARD), null, "the receipt on / before the seal");
  const standardTx = await probe("eth_getTransactionByHash", [tx.hash], STANDARD);
  assert.deepEqual([standardTx.blockHash, standardTx.blockNumber, standardTx.transactionIndex], [null, null, null], "the transaction on / before the seal");
  assert.ok((await headNumber(STANDARD)) < receipt.blockNumber, "the block was sealed while the test read it as pending: the checks above may have read the sealed block");

  // The seal: /preconf then serves the sealed block's receipt, the same
  // but for the block hash.
  const standardReceipt = await sealedOnStandard(tx.hash);
  const sealed = await poll("/preconf serves the sealed receipt", async () => {
    const r = await preconf.getTransactionReceipt(tx.hash);
    return r.blockHash !== receipt.blockHash ? r : undefined;
  });
  assert.equal(sealed.blockHash, standardReceipt.blockHash);
  for (const key of ["blockNumber", "index", "status", "gasUsed", "cumulativeGasUsed", "gasPrice", "from", "to", "contractAddress", "logsBloom", "type"]) {
    assert.deepEqual(receipt[key], sealed[key], `${key}: pre-confirmed ${receipt[key]}, sealed ${sealed[key]}`);
  }
  assert.deepEqual(receipt.logs.map(logFields), sealed.logs.map(logFields));
  // The pre-confirmed receipt's getBlock() now resolves to the sealed block
  // (ethers may answer from its 250 ms cache first).
  const block = await poll("receipt.getBlock() after the seal", async () => {
    const b = await receipt.getBlock();
    assert.ok(b, "receipt.getBlock() after the seal resolved to null");
    return b.hash !== receipt.blockHash ? b : undefined;
  });
  assert.equal(block.hash, sealed.blockHash);
  assert.equal(block.number, receipt.blockNumber);
  assert.equal(block.transactions[receipt.index], tx.hash, "the sealed block holds the transaction at the pre-confirmed index");
  assert.equal(await preconfToken.balanceOf(to, { blockTag: sealed.blockNumber }), 5n * ETHER);
});

test("on / tx.wait() returns once the block is sealed, and latest shows the transaction", async () => {
  await freshBlock();
  const to = fresh();
  const tx = await standardToken.transfer(to, 3n * ETHER);
  await preconfirmed(tx.hash, STANDARD);
  assert.equal(await standard.getTransactionReceipt(tx.hash), null, "a receipt on / while the transaction is only pre-confirmed");
  assert.equal(await standardToken.balanceOf(to, { blockTag: "pending" }), 3n * ETHER, "pending on /");
  const receipt = await tx.wait();
  const head = await headNumber(STANDARD);
  assert.ok(receipt.blockNumber <= head, `tx.wait() returned a receipt in block ${receipt.blockNumber}, latest is ${head}`);
  const block = await probe("eth_getBlockByNumber", [toQuantity(receipt.blockNumber), false], STANDARD);
  assert.equal(receipt.blockHash, block.hash, "the receipt names the sealed block");
  assert.equal(await standardToken.balanceOf(to), 3n * ETHER, "latest, right after tx.wait()");
  assert.equal((await receipt.getBlock()).hash, receipt.blockHash);
  // Sealed, both views give the same receipt.
  assert.deepEqual(await probe("eth_getTransactionReceipt", [tx.hash], RPC), await probe("eth_getTransactionReceipt", [tx.hash], STANDARD));
});
