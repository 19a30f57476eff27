// An ordinary ethers v6 dapp flow against a running node, to run by hand:
// send, await tx.wait(), read the recipient's balance with the default tag
// (latest), send again, deploy and wait, call, getLogs over the receipt's
// block, a token transfer and queryFilter. ethers has its default options
// (no cache or polling settings, no network given). It prints what each step
// got and exits 1 at the first step that is wrong. The same flow runs in
// the end-to-end tests as e2e/js/dapp-ethers.test.mjs.
//
//   make run                                  # or: stocknode --datadir DIR
//   (cd e2e && npm ci)                        # ethers, once
//   node scripts/dapp-flow.mjs                # STOCKNODE_RPC=http://127.0.0.1:8545
//
// STOCKNODE_RPC is the node's JSON-RPC URL (its / answers as every chain;
// http://HOST:PORT/preconf is the opt-in Flashblocks view, where a read of
// latest right after tx.wait() need not show the write yet), and
// STOCKNODE_KEY the sender's key (default: development account 0, which
// the preview chain's genesis funds).
//
// A bare Wallet, as a dapp has. ethers answers an identical request from a
// 250 ms cache, longer than a 200 ms block; on /, the node shows a client
// the chain as it was before its transaction's block for 300 ms after its
// send (--rpc.receipt-hold), so that no tx.wait() returns while the pending
// nonce and the balances read before the send are still in that cache. The second transfer goes to the
// same recipient and its balance is read again, on purpose. ROUNDS (default
// 1) repeats the whole flow.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

// ethers and the Token contract come from e2e/ (npm ci there).
const e2e = new URL("../e2e/", import.meta.url);
const { Contract, ContractFactory, JsonRpcProvider, Wallet, formatEther, parseEther } = createRequire(new URL("package.json", e2e))("ethers");
const TOKEN = JSON.parse(readFileSync(new URL("contracts/Token.json", e2e), "utf8"));

const RPC = process.env.STOCKNODE_RPC || "http://127.0.0.1:8545";
const KEY = process.env.STOCKNODE_KEY || "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

const ROUNDS = Number(process.env.ROUNDS || 1);

const provider = new JsonRpcProvider(RPC);
const owner = new Wallet(KEY, provider);
const wallet = owner;
const supply = parseEther("1000000");

async function main() {
  const recipient = Wallet.createRandom().address;
  const net = await provider.getNetwork();
  console.log(`node ${RPC}: chain ${net.chainId}, block ${await provider.getBlockNumber()}`);
  console.log(`sender ${owner.address} (${formatEther(await provider.getBalance(owner.address))} ETH), recipient ${recipient}`);
  console.log(`   getBalance(recipient) before: ${formatEther(await provider.getBalance(recipient))} ETH`);

  // 1. send, wait, read latest
  let tx = await wallet.sendTransaction({ to: recipient, value: parseEther("1.5") });
  const first = tx.nonce;
  console.log(`1. sendTransaction: ${tx.hash} nonce ${tx.nonce}`);
  let started = Date.now();
  let receipt = await tx.wait();
  console.log(`   tx.wait(): status ${receipt.status} in block ${receipt.blockNumber} (${receipt.blockHash}) after ${Date.now() - started} ms`);
  let balance = await provider.getBalance(recipient);
  console.log(`   getBalance(recipient): ${formatEther(balance)} ETH`);
  assert.equal(balance, parseEther("1.5"), "the balance at latest right after tx.wait()");
  const block = await receipt.getBlock();
  console.log(`   receipt.getBlock(): block ${block.number} ${block.hash}, ${block.transactions.length} transaction(s)`);
  assert.equal(block.hash, receipt.blockHash);

  // 2. send again
  tx = await wallet.sendTransaction({ to: recipient, value: parseEther("0.25") });
  console.log(`2. sendTransaction again: ${tx.hash} nonce ${tx.nonce}`);
  assert.equal(tx.nonce, first + 1);
  started = Date.now();
  receipt = await tx.wait();
  console.log(`   tx.wait(): status ${receipt.status} in block ${receipt.blockNumber} after ${Date.now() - started} ms`);
  balance = await provider.getBalance(recipient);
  console.log(`   getBalance(recipient): ${formatEther(balance)} ETH`);
  assert.equal(balance, parseEther("1.75"), "the balance at latest right after tx.wait()");

  // 3. deploy, wait, call
  const deployed = await new ContractFactory(TOKEN.abi, TOKEN.bytecode, wallet).deploy("Dapp Token", "DAPP", supply);
  console.log(`3. deploy: ${deployed.deploymentTransaction().hash} to ${await deployed.getAddress()}`);
  started = Date.now();
  await deployed.waitForDeployment();
  const deployment = await deployed.deploymentTransaction().wait();
  console.log(`   waitForDeployment(): block ${deployment.blockNumber} after ${Date.now() - started} ms, contractAddress ${deployment.contractAddress}`);
  const token = new Contract(await deployed.getAddress(), TOKEN.abi, wallet);
  const [name, symbol, held] = await Promise.all([token.name(), token.symbol(), token.balanceOf(owner.address)]);
  console.log(`   call: name() ${name}, symbol() ${symbol}, balanceOf(sender) ${formatEther(held)}`);
  assert.equal(held, supply);

  // 4. getLogs over the deployment's block
  const logs = await provider.getLogs({ address: deployment.contractAddress, fromBlock: deployment.blockNumber, toBlock: deployment.blockNumber });
  console.log(`4. getLogs(block ${deployment.blockNumber}): ${logs.map((l) => `${token.interface.parseLog(l).name} in ${l.transactionHash}`).join(", ") || "none"}`);
  assert.equal(logs.length, 1);
  assert.equal(logs[0].transactionHash, deployment.hash);

  // 5. a token transfer, wait, read, queryFilter over its block
  tx = await token.transfer(recipient, parseEther("42"));
  console.log(`5. transfer: ${tx.hash} nonce ${tx.nonce}`);
  started = Date.now();
  receipt = await tx.wait();
  console.log(`   tx.wait(): status ${receipt.status} in block ${receipt.blockNumber} after ${Date.now() - started} ms`);
  const got = await token.balanceOf(recipient);
  console.log(`   balanceOf(recipient): ${formatEther(got)}`);
  assert.equal(got, parseEther("42"));
  const events = await token.queryFilter(token.filters.Transfer(owner.address, recipient), receipt.blockNumber, receipt.blockNumber);
  console.log(`   queryFilter(Transfer, block ${receipt.blockNumber}): ${events.map((e) => `${e.eventName} ${formatEther(e.args.value)} in ${e.transactionHash}`).join(", ") || "none"}`);
  assert.equal(events.length, 1);
  assert.equal(events[0].transactionHash, tx.hash);
  console.log("every step as expected");
}

try {
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) console.log(`-- round ${round} of ${ROUNDS}`);
    await main();
  }
} catch (err) {
  console.error(`FAILED: ${err.message}`);
  process.exitCode = 1;
} finally {
  provider.destroy();
}
