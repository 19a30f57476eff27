// The explorer and the faucet page in headless Chromium, as a newcomer on
// `make run` uses them: every page renders real data, the home page follows
// the chain within a second, a pre-confirmed transaction shows before its
// block seals and then in it, a drip from /faucet shows on the address page
// within a second, the wallet button adds the network, pages read without
// JavaScript and load nothing from other hosts.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { JsonRpcProvider, Wallet } from "ethers";
import { KEYS, poll } from "../js/helpers.mjs";
import { RPC, SLOW_RPC, launch, open, shot, text, live, rpc } from "./browser.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// The example stock tokens of the preview chain, from the REST API.
async function exampleTokens() {
  return poll("the token index lists the example tokens", async () => {
    const r = await fetch(RPC + "/v1/tokenized-stocks");
    if (!r.ok) return false;
    const { tokens } = await r.json();
    return tokens.length >= 3 && tokens;
  });
}

// sameOrigin checks that a page asked nothing of another host.
function assertSameOrigin(page, base) {
  const origin = new URL(base).origin;
  const ws = origin.replace(/^http/, "ws");
  const foreign = page.requests.filter((u) => !u.startsWith(origin) && !u.startsWith(ws) && !u.startsWith("data:"));
  assert.deepEqual(foreign, [], "requests to other hosts");
}

test("every page renders real data", async () => {
  const tokens = await exampleTokens();
  const xrbt = tokens.find((t) => t.symbol === "XRBT");
  assert.ok(xrbt, "XRBT among " + tokens.map((t) => t.symbol));
  const block1 = await rpc(RPC, "eth_getBlockByNumber", ["0x1", false]);
  const issueTx = block1.transactions[0];
  const holder = new Wallet(KEYS[0]).address;

  const home = await open(browser, RPC, "/");
  assert.equal(home.status, 200);
  assert.ok(Number(await home.$eval("#head-number", (e) => e.dataset.number)) > 0);
  assert.ok((await home.$$("#latest-blocks tr[data-block-number]")).length > 0, "latest blocks listed");
  await shot(home, "home");
  assertSameOrigin(home, RPC);

  const list = await open(browser, RPC, "/tokens");
  const listed = await text(list);
  for (const sym of ["XRBT", "XSFD", "XDEN"]) assert.match(listed, new RegExp(sym), `/tokens lists ${sym}`);
  await shot(list, "tokens");

  const token = await open(browser, RPC, "/token/" + xrbt.contract_address);
  const tokenText = await text(token);
  assert.match(tokenText, new RegExp(xrbt.isin), "ISIN shown");
  assert.match(tokenText, new RegExp(holder.slice(0, 8), "i"), "a holder listed");
  await shot(token, "token");

  const block = await open(browser, RPC, "/block/1");
  assert.equal(block.status, 200);
  assert.ok(await block.$(`[data-tx-hash="${issueTx}"]`), "block 1 lists its transactions");
  await shot(block, "block");

  const tx = await open(browser, RPC, "/tx/" + issueTx);
  assert.equal(await tx.$eval("#tx-status", (e) => e.dataset.txStatus), "sealed");
  assert.match(await text(tx), /B20Created/, "the factory's event decoded");
  await shot(tx, "tx");

  const addr = await open(browser, RPC, "/address/" + holder);
  assert.ok((await addr.$$("#holdings tr[data-token]")).length >= 1, "B20 holdings listed");
  await shot(addr, "address");

  const found = await open(browser, RPC, "/search?q=XRBT");
  assert.equal(new URL(found.url()).pathname.toLowerCase(), "/token/" + xrbt.contract_address.toLowerCase());
  const byNumber = await open(browser, RPC, "/search?q=1");
  assert.equal(new URL(byNumber.url()).pathname, "/block/1");

  const faucet = await open(browser, RPC, "/faucet");
  assert.ok(BigInt(await faucet.$eval("#faucet-balance", (e) => e.dataset.wei)) > 0n, "faucet balance shown");
  await shot(faucet, "faucet");

  for (const p of [home, list, token, block, tx, addr, found, byNumber, faucet]) {
    assert.deepEqual(p.errors, [], "no script errors on " + p.url());
    await p.close();
  }
});

test("the head number on the home page advances within a second", async () => {
  const page = await open(browser, RPC, "/");
  await live(page);
  const n0 = Number(await page.$eval("#head-number", (e) => e.dataset.number));
  const t0 = Date.now();
  await page.waitForFunction((n) => Number(document.getElementById("head-number").dataset.number) > n, { timeout: 1000, polling: "mutation" }, n0);
  console.log(`head advanced from ${n0} in ${Date.now() - t0} ms`);
  await page.close();
});

test("a pre-confirmed transaction shows before its block seals, then in it", async () => {
  // This node seals every 4 s and pre-confirms every 200 ms, so the window
  // between the two is wide enough to see, even on a loaded machine (the
  // receipt's block number below is what proves the order).
  const page = await open(browser, SLOW_RPC, "/");
  await live(page);
  const wallet = new Wallet(KEYS[1], new JsonRpcProvider(SLOW_RPC, undefined, { staticNetwork: true, polling: true }));
  const sent = await wallet.sendTransaction({ to: Wallet.createRandom().address, value: 12345n });
  const row = `tr[data-tx-hash="${sent.hash}"]`;
  await page.waitForSelector(`#preconfirmed-txs ${row}[data-preconfirmed="true"]`, { timeout: 10_000 });
  const headWhenPreconfirmed = BigInt(await rpc(SLOW_RPC, "eth_blockNumber"));
  await shot(page, "home-preconfirmed");
  await page.waitForSelector(`#latest-txs ${row}[data-preconfirmed="false"]`, { timeout: 15_000 });
  await shot(page, "home-sealed");
  // This process sent the transaction, so for 300 ms after the send its
  // reads on / see the chain as it was before the transaction's block
  // (node/rpc/sendhold.go): a seal within that time answers null at first,
  // and a client polls for its receipt as ethers' wait() does.
  const receipt = await poll("the receipt on /", () => rpc(SLOW_RPC, "eth_getTransactionReceipt", [sent.hash]), { timeout: 2000 });
  assert.ok(BigInt(receipt.blockNumber) > headWhenPreconfirmed, `shown pre-confirmed at head ${headWhenPreconfirmed}, sealed in ${BigInt(receipt.blockNumber)}`);
  assert.equal(await page.$eval(`#latest-txs ${row}`, (e) => e.dataset.blockNumber), String(BigInt(receipt.blockNumber)));
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("a drip from /faucet shows on the address page within a second", async () => {
  const to = Wallet.createRandom().address;
  const page = await open(browser, RPC, "/faucet");
  await page.waitForSelector("#faucet-submit:not([disabled])");
  // The faucet's state reads in ETH with a few decimals, not 18.
  const readable = /^\d{1,3}(,\d{3})*(\.\d{1,4})? ETH$/;
  const balanceBefore = BigInt(await page.$eval("#faucet-balance", (e) => e.dataset.wei));
  const dripsBefore = Number(await page.$eval("#faucet-drips", (e) => e.dataset.drips));
  assert.match(await page.$eval("#faucet-balance", (e) => e.textContent), readable);
  assert.match(await page.$eval("#faucet-amount", (e) => e.textContent), readable);
  await page.type("#faucet-address", to);
  await page.click("#faucet-submit");
  await page.waitForSelector("#faucet-tx[href^='/tx/0x']", { visible: true, timeout: 5000 });
  const dripped = Date.now();
  const hash = (await page.$eval("#faucet-tx", (e) => e.getAttribute("href"))).slice("/tx/".length);
  assert.ok(Number(await page.$eval("#faucet-cooldown", (e) => e.dataset.seconds)) > 0, "cooldown shown");
  await shot(page, "faucet-dripped");

  const addr = await browser.newPage();
  for (;;) {
    await addr.goto(RPC + "/address/" + to, { waitUntil: "domcontentloaded" });
    if (await addr.$(`[data-tx-hash="${hash}"]`)) break;
    assert.ok(Date.now() - dripped < 1000, `drip ${hash} not on /address/${to} within a second`);
    await new Promise((r) => setTimeout(r, 50));
  }
  console.log(`drip on the address page ${Date.now() - dripped} ms after the faucet answered`);
  await shot(addr, "address-after-drip");

  // Remaining and the drips of the last hour move after the drip, without a reload.
  await page.waitForFunction((b, d) => BigInt(document.getElementById("faucet-balance").dataset.wei) < BigInt(b) &&
    Number(document.getElementById("faucet-drips").dataset.drips) > d, { timeout: 5000 }, String(balanceBefore), dripsBefore)
    .catch(async () => assert.fail(`the faucet's state did not move: ${await page.$eval("#faucet", (e) => e.innerText)}`));
  assert.match(await page.$eval("#faucet-balance", (e) => e.textContent), readable);
  assert.equal(await page.$eval("#faucet-drips", (e) => e.textContent), String(dripsBefore + 1));

  // The page waits out the cooldown before it offers the next drip.
  assert.ok(await page.$eval("#faucet-submit", (e) => e.disabled), "submit disabled during the cooldown");
  await page.close();

  // A fresh page from the same client IP: the faucet's per-IP cooldown
  // answers 429, and the page shows its message and the wait.
  const again = await open(browser, RPC, "/faucet");
  await again.waitForSelector("#faucet-submit:not([disabled])");
  await again.type("#faucet-address", Wallet.createRandom().address);
  await again.click("#faucet-submit");
  await again.waitForSelector("#faucet-error", { visible: true, timeout: 5000 });
  assert.match(await again.$eval("#faucet-error", (e) => e.textContent), /again in \d+s|wait|cooldown/i);
  assert.ok(Number(await again.$eval("#faucet-cooldown", (e) => e.dataset.seconds)) > 0, "the 429's wait counts down");
  await shot(again, "faucet-cooldown");
  await again.close();
  await addr.close();
});

test("the wallet button adds the network with its parameters", async () => {
  const page = await browser.newPage();
  await page.evaluateOnNewDocument(() => {
    window.walletCalls = [];
    window.ethereum = { request: async (args) => { window.walletCalls.push(args); return null; } };
  });
  await page.goto(RPC + "/", { waitUntil: "domcontentloaded" });
  await page.waitForSelector("#wallet-add", { visible: true });
  await page.click("#wallet-add");
  const calls = await page.waitForFunction(() => window.walletCalls.length > 0 && window.walletCalls, { timeout: 2000 }).then((h) => h.jsonValue());
  assert.equal(calls[0].method, "wallet_addEthereumChain");
  const [params] = calls[0].params;
  assert.equal(params.chainId, "0x" + (84538453).toString(16));
  assert.equal(params.nativeCurrency.decimals, 18);
  assert.equal(params.rpcUrls[0].replace(/\/$/, ""), new URL(RPC).origin);
  await page.close();

  const plain = await open(browser, RPC, "/");
  await plain.waitForSelector('#wallet-hint[data-wallet="none"]');
  await plain.close();
});

test("pages read without JavaScript", async () => {
  for (const path of ["/", "/tokens", "/block/1", "/faucet"]) {
    const page = await open(browser, RPC, path, { javaScript: false });
    assert.equal(page.status, 200, path);
    assert.ok((await text(page)).length > 100, `${path} has content`);
    if (path === "/") assert.ok((await page.$$("#latest-blocks tr[data-block-number]")).length > 0);
    if (path === "/tokens") assert.match(await text(page), /XRBT/);
    await shot(page, "nojs-" + (path.replace(/\//g, "") || "home"));
    await page.close();
  }
});
