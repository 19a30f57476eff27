// viem's sendRawTransactionSync and sendTransactionSync (EIP-7966's
// eth_sendRawTransactionSync) with viem's default options, on both views:
// / answers with the sealed block's receipt, /preconf with the
// pre-confirmed one (its block named by the PreconfHash that
// getBlock({ blockHash }) resolves there). Run through
// `go test ./e2e/ -run TestSendRawTransactionSyncViem`, which starts a node
// with 1 s blocks (STOCKNODE_RPC) and one whose block never seals during
// the test (STOCKNODE_RPC_LONG); the other JavaScript runners skip it.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  createPublicClient, createWalletClient, defineChain, http, keccak256, concat, stringToHex, numberToHex, RpcRequestError,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { RPC, CHAIN_ID, KEYS, poll } from "./helpers.mjs";

const LONG = process.env.STOCKNODE_RPC_LONG;
const skip = !process.env.STOCKNODE_SYNC_SUITE && "run by go test ./e2e/ -run TestSendRawTransactionSyncViem";

const base = (RPC || "").replace(/\/*$/, "");
const chain = (url) =>
  defineChain({ id: CHAIN_ID, name: "stocknode dev", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [url] } } });
const account = privateKeyToAccount(KEYS[0]);
const clients = (url) => ({
  public: createPublicClient({ chain: chain(url), transport: http(url) }),
  wallet: createWalletClient({ account, chain: chain(url), transport: http(url) }),
});
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

// preconfHash is the PreconfHash of the block whose sealed header is b.
const preconfHash = (b) =>
  keccak256(concat([stringToHex("stocknode preconf block"), b.parentHash, numberToHex(b.number, { size: 8 }), b.mixHash]));

// sealedBlock polls until block n is sealed on c, and returns it.
const sealedBlock = (c, n) =>
  poll(`block ${n} sealed`, async () => (await c.public.getBlockNumber({ cacheTime: 0 })) >= n && c.public.getBlock({ blockNumber: n }));

// signed is a transfer of 1 wei to a fresh address, signed with c's defaults.
async function signed(c) {
  const request = await c.wallet.prepareTransactionRequest({ to: fresh(), value: 1n });
  return c.wallet.signTransaction(request);
}

// rpcError is the JSON-RPC error under a viem error.
const rpcError = (err) => err.walk((e) => e instanceof RpcRequestError);

for (const [path, sealed] of [["/", true], ["/preconf", false]]) {
  test(`sendRawTransactionSync on ${path} answers with the ${sealed ? "sealed" : "pre-confirmed"} receipt`, { skip }, async () => {
    const c = clients(base + path);
    for (const timeout of [undefined, 5000]) {
      const receipt = await c.public.sendRawTransactionSync({ serializedTransaction: await signed(c), timeout });
      assert.equal(receipt.status, "success");
      const block = await sealedBlock(c, receipt.blockNumber);
      assert.equal(receipt.blockHash, sealed ? block.hash : preconfHash(block), `timeout ${timeout}: the receipt names the ${sealed ? "sealed block" : "block's PreconfHash"}`);
      const byHash = await c.public.getBlock({ blockHash: receipt.blockHash });
      assert.equal(byHash.hash, block.hash, "getBlock({ blockHash }) finds the receipt's block");
      const now = await c.public.getTransactionReceipt({ hash: receipt.transactionHash });
      assert.deepEqual({ ...now, blockHash: receipt.blockHash }, receipt, "the sealed receipt says the same but for the block hash");
    }
  });

  test(`sendTransactionSync on ${path}`, { skip }, async () => {
    const c = clients(base + path);
    const receipt = await c.wallet.sendTransactionSync({ to: fresh(), value: 1n });
    assert.equal(receipt.status, "success");
    const block = await sealedBlock(c, receipt.blockNumber);
    assert.equal(receipt.blockHash, sealed ? block.hash : preconfHash(block));
  });
}

test("a timeout is code 4 with the transaction's hash; a nonce gap code 5 with the expected nonce", { skip }, async () => {
  const c = clients(LONG.replace(/\/*$/, "") + "/");
  const serializedTransaction = await signed(c);
  const timedOut = await c.public.sendRawTransactionSync({ serializedTransaction }).then(() => undefined, rpcError);
  assert.equal(timedOut?.code, 4, `the sealed receipt never comes: ${timedOut}`);
  assert.equal(timedOut.data, keccak256(serializedTransaction));
  const next = await c.public.getTransactionCount({ address: account.address, blockTag: "pending" });
  const request = await c.wallet.prepareTransactionRequest({ to: fresh(), value: 1n, nonce: next + 1 });
  const gapped = await c.wallet.signTransaction(request);
  const notReady = await c.public.sendRawTransactionSync({ serializedTransaction: gapped }).then(() => undefined, rpcError);
  assert.equal(notReady?.code, 5, `${notReady}`);
  assert.deepEqual(notReady.data, { transactionHash: keccak256(gapped), expectedNonce: numberToHex(next) });
});
