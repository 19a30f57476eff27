// An ordinary ethers v6 dapp against the node's default configuration (what
// `make run` serves at /: a receipt means a sealed block, as on every
// chain), with ethers' default options (no cache or polling settings, no
// network given): send, await tx.wait(), read the recipient's balance with
// the default tag (latest), send again, deploy and wait, call, and getLogs
// over the receipt's block. Nothing waits for anything but what ethers
// itself waits for, and each read right after a wait must already show the
// write. Each step logs what it printed; scripts/dapp-flow.mjs is the same
// flow to run by hand against a running node.
//
// A bare Wallet, as a dapp has: it asks eth_getTransactionCount(pending)
// before each send, and ethers answers an identical request from its
// 250 ms cache (ethers-io/ethers.js#4549), longer than a 200 ms block. On
// /, the node shows a client the chain as it was before its transaction's
// block for 300 ms after its send (--rpc.receipt-hold), so no tx.wait()
// returns while the nonce and
// the balances read before the send are still in that cache: the reads
// below repeat requests made before the sends, on purpose.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { Contract, ContractFactory, JsonRpcProvider, Wallet, formatEther, parseEther } from "ethers";
import { RPC, KEYS, TOKEN, probe } from "./helpers.mjs";

const provider = new JsonRpcProvider(RPC);
const wallet = new Wallet(KEYS[4], provider);
const address = wallet.address;
const recipient = Wallet.createRandom().address;
const supply = parseEther("1000000");

let firstNonce; // the first transfer's
let token; // the deployed Contract, wallet as signer
let deployment; // its deployment receipt

after(() => provider.destroy());

const log = (line) => console.log(`dapp: ${line}`);

// nonceIs checks the nonce the node gives the wallet at latest and at
// pending (probe: the node, not ethers' cache).
async function nonceIs(want) {
  const [latest, pending] = await Promise.all(["latest", "pending"].map(async (tag) => Number(await probe("eth_getTransactionCount", [address, tag]))));
  assert.deepEqual({ latest, pending }, { latest: want, pending: want }, "the wallet's nonce on the node");
}

test("send, await tx.wait(), then getBalance (latest) shows the transfer", async () => {
  log(`chain ${(await provider.getNetwork()).chainId}, block ${await provider.getBlockNumber()}, sender ${address}, recipient ${recipient}`);
  log(`getBalance(recipient) before: ${formatEther(await provider.getBalance(recipient))} ETH`);
  const tx = await wallet.sendTransaction({ to: recipient, value: parseEther("1.5") });
  firstNonce = tx.nonce;
  log(`sendTransaction: ${tx.hash} nonce ${tx.nonce}`);
  const started = Date.now();
  const receipt = await tx.wait();
  log(`tx.wait(): status ${receipt.status} in block ${receipt.blockNumber} (${receipt.blockHash}) after ${Date.now() - started} ms`);
  assert.equal(receipt.status, 1);
  const balance = await provider.getBalance(recipient);
  log(`getBalance(recipient): ${formatEther(balance)} ETH`);
  assert.equal(balance, parseEther("1.5"), "the balance at latest right after tx.wait()");
  const block = await receipt.getBlock();
  log(`receipt.getBlock(): block ${block.number} ${block.hash} with ${block.transactions.length} transaction(s)`);
  assert.equal(block.hash, receipt.blockHash);
  assert.ok(block.transactions.includes(tx.hash), "the receipt's block holds the transaction");
  await nonceIs(firstNonce + 1);
});

test("send again right after: the next nonce, no nonce error, and latest shows it", async () => {
  assert.notEqual(firstNonce, undefined, "the first transfer did not run");
  const tx = await wallet.sendTransaction({ to: recipient, value: parseEther("0.25") });
  log(`sendTransaction again: ${tx.hash} nonce ${tx.nonce}`);
  assert.equal(tx.nonce, firstNonce + 1);
  const started = Date.now();
  const receipt = await tx.wait();
  log(`tx.wait(): status ${receipt.status} in block ${receipt.blockNumber} after ${Date.now() - started} ms`);
  const balance = await provider.getBalance(recipient);
  log(`getBalance(recipient): ${formatEther(balance)} ETH`);
  assert.equal(balance, parseEther("1.75"), "the balance at latest right after tx.wait()");
  await nonceIs(firstNonce + 2);
});

test("deploy and waitForDeployment, then call the contract (latest)", async () => {
  const factory = new ContractFactory(TOKEN.abi, TOKEN.bytecode, wallet);
  const deployed = await factory.deploy("Dapp Token", "DAPP", supply);
  log(`deploy: ${deployed.deploymentTransaction().hash} to ${await deployed.getAddress()}`);
  const started = Date.now();
  await deployed.waitForDeployment();
  deployment = await deployed.deploymentTransaction().wait();
  log(`waitForDeployment(): deployed in block ${deployment.blockNumber} after ${Date.now() - started} ms, contractAddress ${deployment.contractAddress}`);
  token = new Contract(await deployed.getAddress(), TOKEN.abi, wallet);
  assert.equal(deployment.contractAddress, await token.getAddress());
  assert.notEqual(await provider.getCode(deployment.contractAddress), "0x", "getCode at latest right after the deployment");
  const [name, symbol, balance] = await Promise.all([token.name(), token.symbol(), token.balanceOf(address)]);
  log(`call: name() ${name}, symbol() ${symbol}, balanceOf(sender) ${formatEther(balance)}`);
  assert.equal(name, "Dapp Token");
  assert.equal(symbol, "DAPP");
  assert.equal(balance, supply);
});

test("getLogs over the deployment's block: the mint's Transfer", async () => {
  assert.ok(deployment, "the deployment did not run");
  const logs = await provider.getLogs({ address: deployment.contractAddress, fromBlock: deployment.blockNumber, toBlock: deployment.blockNumber });
  log(`getLogs(block ${deployment.blockNumber}): ${logs.length} log(s): ${logs.map((l) => `${token.interface.parseLog(l).name} in ${l.transactionHash}`).join(", ")}`);
  assert.equal(logs.length, 1);
  const mint = token.interface.parseLog(logs[0]);
  assert.equal(mint.name, "Transfer");
  assert.equal(mint.args.to, address);
  assert.equal(mint.args.value, supply);
  assert.equal(logs[0].transactionHash, deployment.hash);
  assert.equal(logs[0].blockHash, deployment.blockHash);
});

test("a token transfer: wait, balanceOf (latest), queryFilter over its block", async () => {
  assert.ok(token, "the deployment did not run");
  const tx = await token.transfer(recipient, parseEther("42"));
  log(`transfer: ${tx.hash} nonce ${tx.nonce}`);
  const started = Date.now();
  const receipt = await tx.wait();
  log(`tx.wait(): status ${receipt.status} in block ${receipt.blockNumber} after ${Date.now() - started} ms, ${receipt.logs.length} log(s)`);
  const balance = await token.balanceOf(recipient);
  log(`balanceOf(recipient): ${formatEther(balance)}`);
  assert.equal(balance, parseEther("42"));
  const events = await token.queryFilter(token.filters.Transfer(address, recipient), receipt.blockNumber, receipt.blockNumber);
  log(`queryFilter(Transfer, block ${receipt.blockNumber}): ${events.map((e) => `${e.eventName} ${formatEther(e.args.value)} in ${e.transactionHash}`).join(", ")}`);
  assert.equal(events.length, 1);
  assert.equal(events[0].transactionHash, tx.hash);
  assert.equal(events[0].args.value, parseEther("42"));
  assert.equal(events[0].blockHash, receipt.blockHash);
});

test("five sends in a row, each waited for and its effect read at latest: no nonce error, no stale read", async () => {
  const to = Wallet.createRandom().address;
  for (let i = 1; i <= 5; i++) {
    const before = await provider.getBalance(to);
    const tx = await wallet.sendTransaction({ to, value: 1n });
    const receipt = await tx.wait();
    const after = await provider.getBalance(to);
    log(`round ${i}: nonce ${tx.nonce}, block ${receipt.blockNumber}, balance ${before} -> ${after} wei`);
    assert.equal(after, before + 1n, `round ${i}: the balance at latest right after tx.wait()`);
  }
});
