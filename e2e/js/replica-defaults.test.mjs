// A plain ethers v6 script against a read replica (stocknode --follow),
// every option ethers' default: no static network, 4 s polling, ethers'
// request cache. A client that has not opted into anything faster must
// never read stale data after a confirmation, nor collide on a nonce:
// once tx.wait() returns, a read at the default tag (latest) shows the
// transaction, the next send takes the next nonce, and eth_getLogs over
// the receipt's block has its events. Receipts are answered once their
// block is sealed (wait() returns when latest holds the transaction).
// ethers' request cache answers a read repeated within 250 ms with the
// first one's answer, so two sends within 250 ms share a nonce against
// any node: this script, as such scripts do, waits between sends.
// TestJavaScriptAgainstReplica starts both nodes; without
// STOCKNODE_SEQUENCER_RPC (npm test over js/) the tests skip.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { ContractFactory, JsonRpcProvider, Wallet } from "ethers";
import { RPC, KEYS, TOKEN, ETHER } from "./helpers.mjs";

const skip = process.env.STOCKNODE_SEQUENCER_RPC ? false : "needs a sequencer and the replica at STOCKNODE_RPC that follows it: go test ./e2e -run TestJavaScriptAgainstReplica";

let provider; // JsonRpcProvider on the replica, default options
let wallet; // KEYS[1] on the replica: every transaction of this file goes through it

const fresh = () => Wallet.createRandom().address;

before(() => {
  if (skip) return;
  provider = new JsonRpcProvider(RPC);
  wallet = new Wallet(KEYS[1], provider);
});

after(() => provider?.destroy());

test("a transfer: wait(), the recipient's balance at latest, another transfer", { skip }, async () => {
  const to = fresh();
  const tx = await wallet.sendTransaction({ to, value: ETHER });
  const receipt = await tx.wait();
  assert.equal(receipt.status, 1);
  assert.equal(await provider.getBalance(to), ETHER, "the recipient's balance at latest right after wait()");
  assert.ok((await provider.getBlockNumber()) >= receipt.blockNumber, "latest is below the receipt's block");

  const next = await wallet.sendTransaction({ to, value: 2n * ETHER });
  assert.equal(next.nonce, tx.nonce + 1);
  await next.wait();
  assert.equal(await provider.getBalance(to), 3n * ETHER, "the recipient's balance at latest after the second wait()");
});

test("a contract: deploy and wait(), call it, and getLogs over the receipt's block has its events", { skip }, async () => {
  const supply = 1_000n * ETHER;
  const factory = new ContractFactory(TOKEN.abi, TOKEN.bytecode, wallet);
  const token = await factory.deploy("Replica Token", "RPT", supply);
  const deployed = await token.deploymentTransaction().wait();
  assert.equal(deployed.status, 1);
  const address = await token.getAddress();
  assert.equal(deployed.contractAddress, address);
  assert.notEqual(await provider.getCode(address), "0x", "no code at latest right after wait()");
  assert.equal(await token.balanceOf(wallet.address), supply, "eth_call at latest right after the deployment's wait()");
  const minted = await provider.getLogs({ address, fromBlock: deployed.blockNumber, toBlock: deployed.blockNumber });
  assert.deepEqual(minted.map((l) => l.transactionHash), [deployed.hash], "the constructor's Transfer in getLogs over its block");

  const to = fresh();
  const sent = await (await token.transfer(to, 5n * ETHER)).wait();
  assert.equal(sent.status, 1);
  assert.equal(await token.balanceOf(to), 5n * ETHER, "eth_call at latest right after the transfer's wait()");
  const transfers = await token.queryFilter(token.filters.Transfer(wallet.address, to), sent.blockNumber, sent.blockNumber);
  assert.equal(transfers.length, 1, "the Transfer event in getLogs over the receipt's block");
  assert.equal(transfers[0].transactionHash, sent.hash);
  assert.equal(transfers[0].args.value, 5n * ETHER);
});
