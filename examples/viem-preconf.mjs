// viem and the preview network's pre-confirmations: a chain definition with
// both views of the node, sendTransactionSync and sendRawTransactionSync on
// /preconf (the receipt about 20 ms after the send, before its block seals),
// and Base's newFlashblocks feed over WebSocket showing each transaction as
// it is pre-confirmed. viem has its default options.
//
//   make run                          # another shell
//   (cd examples && npm ci)           # once
//   node examples/viem-preconf.mjs
//
// STOCKNODE_RPC (default http://127.0.0.1:8545) names the node, STOCKNODE_KEY
// the sender's key (default: development account 4, funded by the preview
// genesis). It prints what it did and exits 1 at the first step that is wrong.
import assert from "node:assert/strict";
import { createPublicClient, createWalletClient, defineChain, formatEther, hexToNumber, http, parseEther, webSocket } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const RPC = (process.env.STOCKNODE_RPC || "http://127.0.0.1:8545").replace(/\/*$/, "");
const WS = RPC.replace(/^http/, "ws");
const KEY = process.env.STOCKNODE_KEY || "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a";

// The preview network as a dapp defines a chain viem does not ship. The
// default URLs answer as every chain does (a receipt means a sealed block);
// preconf is Base's Flashblocks view of the same node. blockTime sets viem's
// polling (and sendTransactionSync's default wait) to the 200 ms blocks.
export const stocknodePreview = defineChain({
  id: 84538453,
  name: "stocknode preview",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  blockTime: 200,
  rpcUrls: {
    default: { http: [`${RPC}/`], webSocket: [`${WS}/ws`] },
    preconf: { http: [`${RPC}/preconf`], webSocket: [`${WS}/preconf/ws`] },
  },
  blockExplorers: { default: { name: "stocknode explorer", url: `${RPC}/` } },
});

const account = privateKeyToAccount(KEY);
const standard = createPublicClient({ chain: stocknodePreview, transport: http() }); // rpcUrls.default
const preconf = createPublicClient({ chain: stocknodePreview, transport: http(stocknodePreview.rpcUrls.preconf.http[0]) });
const wallet = createWalletClient({ account, chain: stocknodePreview, transport: http(stocknodePreview.rpcUrls.preconf.http[0]) });
const ws = createPublicClient({ chain: stocknodePreview, transport: webSocket() }); // rpcUrls.default.webSocket

async function main() {
  console.log(`node ${RPC}: chain ${await standard.getChainId()}, block ${await standard.getBlockNumber()}, sender ${account.address}`);

  // 1. newFlashblocks: one notification per pre-confirmation the node
  // publishes (the block being built: number, index, its transactions so far).
  // viem has no action for it; its WebSocket transport subscribes to any feed.
  const flashblocks = [];
  const waiters = [];
  const { subscriptionId, unsubscribe } = await ws.transport.subscribe({
    params: ["newFlashblocks"],
    onData: ({ result }) => {
      flashblocks.push(result);
      for (const w of waiters) w();
    },
    onError: (err) => console.error("newFlashblocks:", err),
  });
  console.log(`1. eth_subscribe("newFlashblocks") on ${stocknodePreview.rpcUrls.default.webSocket[0]}: subscription ${subscriptionId}`);
  const flashblockWith = (hash) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const fb = flashblocks.find((f) => f.transactions.includes(hash));
        if (fb) resolve(fb);
        return fb;
      };
      if (check()) return;
      const timer = setTimeout(() => reject(new Error(`no newFlashblocks notification names ${hash} within 10 s`)), 10_000);
      waiters.push(() => check() && clearTimeout(timer));
    });

  // 2. sendTransactionSync on /preconf: viem signs, sends
  // eth_sendRawTransactionSync and gets the pre-confirmed receipt back.
  const to = privateKeyToAccount(generatePrivateKey()).address;
  let started = performance.now();
  const receipt = await wallet.sendTransactionSync({ to, value: parseEther("0.5") });
  const took = (performance.now() - started).toFixed(1);
  assert.equal(receipt.status, "success");
  console.log(`2. sendTransactionSync on /preconf: ${receipt.transactionHash} pre-confirmed in ${took} ms: block ${receipt.blockNumber} (its /preconf hash ${receipt.blockHash}), index ${receipt.transactionIndex}`);
  const fb = await flashblockWith(receipt.transactionHash);
  console.log(`   newFlashblocks: block ${hexToNumber(fb.number)} index ${hexToNumber(fb.index)}, ${fb.transactions.length} transaction(s), including it`);
  assert.equal(BigInt(fb.number), receipt.blockNumber);

  // A pre-confirmed transaction is in the pending state at once; latest shows
  // it when its block seals (read pending, or wait for latest to reach the
  // receipt's block, before trusting latest).
  const [pending, latest, head] = await Promise.all([
    preconf.getBalance({ address: to, blockTag: "pending" }),
    preconf.getBalance({ address: to }),
    preconf.getBlockNumber({ cacheTime: 0 }),
  ]);
  console.log(`   getBalance(recipient): pending ${formatEther(pending)} ETH, latest ${formatEther(latest)} ETH (head ${head})`);
  assert.equal(pending, parseEther("0.5"));

  // 3. The same transaction on / (rpcUrls.default): its receipt is the sealed
  // block's, the same number and index, the sealed block's hash.
  started = performance.now();
  const sealed = await standard.waitForTransactionReceipt({ hash: receipt.transactionHash });
  console.log(`3. waitForTransactionReceipt on /: block ${sealed.blockNumber} (${sealed.blockHash}), index ${sealed.transactionIndex}, after ${(performance.now() - started).toFixed(0)} ms more`);
  assert.equal(sealed.blockNumber, receipt.blockNumber);
  assert.equal(sealed.transactionIndex, receipt.transactionIndex);
  assert.equal(sealed.gasUsed, receipt.gasUsed);
  assert.equal(await standard.getBalance({ address: to }), parseEther("0.5"), "latest after the sealed receipt");

  // 4. sendRawTransactionSync: a transaction signed apart (a wallet, a
  // signing service) sent as raw bytes, the receipt in the answer.
  const request = await wallet.prepareTransactionRequest({ to, value: parseEther("0.25") });
  const raw = await wallet.signTransaction(request);
  started = performance.now();
  const second = await wallet.sendRawTransactionSync({ serializedTransaction: raw });
  console.log(`4. sendRawTransactionSync on /preconf: ${second.transactionHash} (nonce ${request.nonce}) pre-confirmed in ${(performance.now() - started).toFixed(1)} ms: block ${second.blockNumber}, index ${second.transactionIndex}`);
  assert.equal(second.status, "success");
  const fb2 = await flashblockWith(second.transactionHash);
  console.log(`   newFlashblocks: block ${hexToNumber(fb2.number)} index ${hexToNumber(fb2.index)}, including it`);
  assert.equal(await preconf.getBalance({ address: to, blockTag: "pending" }), parseEther("0.75"));

  await unsubscribe();
  console.log(`   ${flashblocks.length} newFlashblocks notifications in all; unsubscribed`);
  console.log("every step as expected");
}

try {
  await main();
} catch (err) {
  console.error(`FAILED: ${err.stack || err.message}`);
  process.exitCode = 1;
}
// viem 2.40's WebSocket client reconnects after close() (its issue 4378,
// fixed in 2.50), so the script ends itself rather than close the socket.
process.exit();
