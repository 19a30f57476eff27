// ethers v6 and Base's Flashblocks receipts: against a node that answers a
// pre-confirmed transaction's receipt (the default) tx.wait() returns before
// the block seals, with the receipt the sealed block then has (but for its
// hash); against one with --rpc.preconfirmed-receipts=false it returns once
// the block is sealed, and `latest` then shows the transaction. Both nodes
// have 3 s blocks, so the difference cannot hide. Run through
// `go test ./e2e/ -run Flashblocks`, which sets STOCKNODE_RPC to the first
// node and STOCKNODE_RPC_SEALED_ONLY to the second.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { ContractFactory, Contract, JsonRpcProvider, Network, Wallet, ZeroHash } from "ethers";
import { RPC, CHAIN_ID, KEYS, TOKEN, ETHER, poll } from "./helpers.mjs";

const SEALED_ONLY = process.env.STOCKNODE_RPC_SEALED_ONLY;
if (!SEALED_ONLY) throw new Error("STOCKNODE_RPC_SEALED_ONLY is not set: run through `go test ./e2e/ -run Flashblocks`");

const network = new Network("stocknode-dev", CHAIN_ID);
const options = { staticNetwork: network, pollingInterval: 100, cacheTimeout: -1 };
const provider = new JsonRpcProvider(RPC, network, options);
const sealedOnly = new JsonRpcProvider(SEALED_ONLY, network, options);
const wallet = new Wallet(KEYS[0], provider);
const walletSealedOnly = new Wallet(KEYS[0], sealedOnly);
let token, tokenSealedOnly; // the Token on each node, wallet as signer

const fresh = () => Wallet.createRandom().address;

// sealedReceipt polls until the receipt is the sealed block's (it has the
// block's hash) and latest has reached that block.
async function sealedReceipt(p, hash) {
  return poll(`transaction ${hash} sealed`, async () => {
    const head = await p.getBlockNumber(); // first: a receipt read after it at or below it is sealed
    const r = await p.getTransactionReceipt(hash);
    return r && r.blockHash !== ZeroHash && r.blockNumber <= head ? r : undefined;
  });
}

async function deploy(signer, p) {
  const deployed = await new ContractFactory(TOKEN.abi, TOKEN.bytecode, signer).deploy("Stock Token", "STK", 1_000_000n * ETHER);
  await sealedReceipt(p, deployed.deploymentTransaction().hash);
  return new Contract(await deployed.getAddress(), TOKEN.abi, signer);
}

before(async () => {
  [token, tokenSealedOnly] = await Promise.all([deploy(wallet, provider), deploy(walletSealedOnly, sealedOnly)]);
});

after(() => {
  provider.destroy();
  sealedOnly.destroy();
});

// logFields are what a log says apart from its block hash.
const logFields = (l) => ({ address: l.address, topics: l.topics, data: l.data, index: l.index, transactionIndex: l.transactionIndex, blockNumber: l.blockNumber, transactionHash: l.transactionHash });

test("tx.wait() returns the pre-confirmed receipt before the block seals; the sealed block says the same", async () => {
  const to = fresh();
  const tx = await token.transfer(to, 5n * ETHER);
  const receipt = await tx.wait();
  const head = await provider.getBlockNumber();
  assert.equal(receipt.blockHash, ZeroHash, "tx.wait() returned the sealed receipt: it waited for the seal");
  assert.ok(receipt.blockNumber >= head, `pre-confirmed in block ${receipt.blockNumber}, latest was ${head} right after`);
  assert.equal(receipt.status, 1);
  assert.equal(receipt.logs.length, 1);
  // Right after wait(), pending shows the transfer; latest does once the
  // block is sealed.
  assert.equal(await token.balanceOf(to, { blockTag: "pending" }), 5n * ETHER);
  const preTx = await provider.getTransaction(tx.hash);
  assert.equal(preTx.blockNumber, receipt.blockNumber);
  assert.equal(preTx.index, receipt.index);
  assert.equal(preTx.blockHash, null);

  const sealed = await sealedReceipt(provider, tx.hash);
  for (const key of ["blockNumber", "index", "status", "gasUsed", "cumulativeGasUsed", "gasPrice", "from", "to", "contractAddress", "logsBloom", "type"]) {
    assert.deepEqual(receipt[key], sealed[key], `${key}: pre-confirmed ${receipt[key]}, sealed ${sealed[key]}`);
  }
  assert.deepEqual(receipt.logs.map(logFields), sealed.logs.map(logFields));
  const block = await provider.getBlock(sealed.blockNumber);
  assert.equal(block.hash, sealed.blockHash);
  assert.equal(block.transactions[receipt.index], tx.hash, "the sealed block holds the transaction at the pre-confirmed index");
  assert.equal(await token.balanceOf(to, { blockTag: sealed.blockNumber }), 5n * ETHER);
});

test("with --rpc.preconfirmed-receipts=false, tx.wait() waits for the seal and latest shows the transaction", async () => {
  const to = fresh();
  const tx = await tokenSealedOnly.transfer(to, 3n * ETHER);
  const receipt = await tx.wait();
  assert.notEqual(receipt.blockHash, ZeroHash);
  assert.ok(receipt.blockNumber <= (await sealedOnly.getBlockNumber()));
  assert.equal(await tokenSealedOnly.balanceOf(to), 3n * ETHER, "latest, right after tx.wait()");
  assert.equal((await receipt.getBlock()).hash, receipt.blockHash);
});
