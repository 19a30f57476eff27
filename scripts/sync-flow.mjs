// viem's sendTransactionSync (EIP-7966's eth_sendRawTransactionSync) against
// a running node, to run by hand, on both views: / answers with the sealed
// block's receipt, /preconf with the pre-confirmed one. viem has its default
// options; the chain is defined as a dapp defines one it does not ship. For
// each path it sends ROUNDS transfers (default 3), prints what each receipt
// says and how long the send took, reads the recipient's balance at latest
// at once, and exits 1 at the first step that is wrong. The same calls run
// in the end-to-end tests as e2e/js/sync-viem.test.mjs.
//
//   make run                                  # or: stocknode --datadir DIR
//   (cd e2e && npm ci)                        # viem, once
//   node scripts/sync-flow.mjs                # STOCKNODE_RPC=http://127.0.0.1:8545
//
// STOCKNODE_RPC is the node's base URL (a replica's works too), STOCKNODE_KEY
// the sender's key (default: development account 1, which the preview
// chain's genesis funds; the dapp flow uses account 0).
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const e2e = new URL("../e2e/", import.meta.url);
const require = createRequire(new URL("package.json", e2e));
const { createPublicClient, createWalletClient, defineChain, formatEther, http, parseEther } = require("viem");
const { generatePrivateKey, privateKeyToAccount } = require("viem/accounts");

const RPC = (process.env.STOCKNODE_RPC || "http://127.0.0.1:8545").replace(/\/*$/, "");
const KEY = process.env.STOCKNODE_KEY || "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const ROUNDS = Number(process.env.ROUNDS || 3);

const account = privateKeyToAccount(KEY);

async function flow(path) {
  const url = RPC + path;
  const chain = defineChain({
    id: 84538453, name: "stocknode preview", blockTime: 200,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [url] } },
  });
  const pub = createPublicClient({ chain, transport: http(url) });
  const wallet = createWalletClient({ account, chain, transport: http(url) });
  console.log(`${url}: block ${await pub.getBlockNumber({ cacheTime: 0 })}`);
  for (let i = 0; i < ROUNDS; i++) {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const started = performance.now();
    const receipt = await wallet.sendTransactionSync({ to, value: parseEther("0.01") });
    const took = (performance.now() - started).toFixed(1);
    assert.equal(receipt.status, "success");
    const head = await pub.getBlockNumber({ cacheTime: 0 });
    const balance = await pub.getBalance({ address: to });
    console.log(`  sendTransactionSync: ${receipt.transactionHash} in block ${receipt.blockNumber} (${receipt.blockHash}) after ${took} ms; latest ${head}, balance at latest ${formatEther(balance)} ETH`);
    if (path === "/") {
      // The sealed receipt: latest already holds the transfer.
      assert.ok(head >= receipt.blockNumber, `latest ${head} is behind the receipt's block ${receipt.blockNumber}`);
      assert.equal(balance, parseEther("0.01"), "a stale read at latest after the sealed receipt");
    }
    const pending = await pub.getBalance({ address: to, blockTag: "pending" });
    assert.equal(pending, parseEther("0.01"), "the transfer is not in pending");
  }
}

try {
  for (const path of ["/", "/preconf"]) await flow(path);
  console.log("ok");
} catch (err) {
  console.error(`FAIL: ${err.shortMessage || err.message}`);
  process.exit(1);
}
