// The explorer's rough edges (issue 25, item 6), in headless Chromium
// against the node's defaults (200 ms blocks): a token's transfers on its
// contract's page and on its token page, the home page's latest
// transactions however many blocks back, ages in order and from the
// server's clock, a date for old blocks, counts in the singular for one,
// the whole search placeholder, search by token name and by hex block
// number, and createB20 decoded.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Contract, JsonRpcProvider, Network, Wallet, ZeroHash } from "ethers";
import { CHAIN_ID, KEYS, poll } from "../js/helpers.mjs";
import { RPC, launch, open, shot, text, rpc } from "./browser.mjs";

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const network = new Network("stocknode-dev", CHAIN_ID);
const provider = new JsonRpcProvider(RPC, network, { staticNetwork: network, pollingInterval: 50, cacheTimeout: -1 });

async function exampleTokens() {
  return poll("the token index lists the example tokens", async () => {
    const r = await fetch(RPC + "/v1/tokenized-stocks");
    if (!r.ok) return false;
    const { tokens } = await r.json();
    return tokens.length >= 3 && tokens;
  });
}

async function sealed(hash) {
  return poll(`transaction ${hash} sealed`, async () => {
    const r = await provider.getTransactionReceipt(hash);
    return r && r.blockHash !== ZeroHash ? r : undefined;
  });
}

// tokenCount reads "N transfers of this token" from a token contract's
// address page.
async function tokenCount(page, token) {
  await page.goto(RPC + "/address/" + token, { waitUntil: "domcontentloaded" });
  const line = await page.$eval("#history-counts", (e) => e.textContent);
  const m = line.match(/([\d,]+) transfers? of this token/);
  assert.ok(m, `a token contract's page counts the token's transfers: "${line}"`);
  return Number(m[1].replace(/,/g, ""));
}

let transfer; // the XRBT transfer the first test sends, for the later ones

test("a token's transfers show on its contract's page and its token page", async () => {
  const xrbt = (await exampleTokens()).find((t) => t.symbol === "XRBT").contract_address;
  const page = await browser.newPage();
  const before = await tokenCount(page, xrbt);
  assert.ok(before > 0, "the example token's mints are its transfers");

  const to = Wallet.createRandom().address;
  const token = new Contract(xrbt, ["function transfer(address to, uint256 amount) returns (bool)"], new Wallet(KEYS[0], provider));
  transfer = await token.transfer(to, 10n ** 18n);
  await sealed(transfer.hash);
  // The index may not hold the block yet: the page adds it from the chain.
  assert.equal(await tokenCount(page, xrbt), before + 1, "the contract's page counts the new transfer");
  await page.goto(RPC + "/address/" + xrbt + "?view=token", { waitUntil: "domcontentloaded" });
  assert.equal(await page.$eval("#address-transfers tr", (tr) => tr.dataset.txHash), transfer.hash, "newest first on the contract's page");
  await shot(page, "token-contract-transfers");

  await page.goto(RPC + "/token/" + xrbt + "?view=transfers", { waitUntil: "domcontentloaded" });
  const rows = await page.$$eval("#token-transfers tr", (trs) => trs.map((tr) => ({ hash: tr.dataset.txHash, block: Number(tr.dataset.blockNumber) })));
  assert.equal(rows[0].hash, transfer.hash, "newest first on the token page");
  for (let i = 1; i < rows.length; i++) assert.ok(rows[i].block <= rows[i - 1].block, "newest first");
  assert.match(await page.$eval("#tab-transfers", (a) => a.textContent), new RegExp(`Transfers \\(${before + 1}\\)`));
  await shot(page, "token-transfers");
  // Paged by cursor: the next page starts below the last row.
  const older = await page.$("#older");
  if (older) {
    await Promise.all([page.waitForNavigation({ waitUntil: "domcontentloaded" }), older.click()]);
    const next = await page.$$eval("#token-transfers tr", (trs) => trs.map((tr) => tr.dataset.txHash));
    assert.ok(next.length > 0 && !next.includes(transfer.hash), "the older page holds older transfers");
  }

  // The recipient has one token transfer and no transaction: in the singular.
  await page.goto(RPC + "/address/" + to, { waitUntil: "domcontentloaded" });
  assert.equal(await page.$eval("#history-counts", (e) => e.textContent), "0 transactions, 1 token transfer");
  assert.doesNotMatch(await text(page), /\b1 (transactions|token transfers)\b/);
  await page.close();
});

test("the home page lists the latest transactions however many blocks back", async () => {
  assert.ok(transfer, "the first test sent a transfer");
  const { blockNumber } = await sealed(transfer.hash);
  // More empty blocks than the home page lists blocks (12).
  await poll("20 blocks later", async () => Number(await rpc(RPC, "eth_blockNumber")) > blockNumber + 20, { timeout: 30_000 });
  const page = await open(browser, RPC, "/");
  assert.ok(await page.$(`#latest-txs tr[data-tx-hash="${transfer.hash}"]`), "the transfer 20 blocks back is listed");
  assert.equal(await page.$("#latest-txs-empty"), null, "no 'No recent transactions'");
  await shot(page, "home-latest-txs-far-back");
  await page.close();
});

// ages reads the ages of a list, in seconds (a date is older than any),
// in one evaluation: $$eval queries and reads in two steps, between which
// the page may drop a row it then no longer refreshes.
function agesOf(page, selector) {
  return page.evaluate((sel) => [...document.querySelectorAll(sel + " time[data-ts]")].map((t) => {
    const s = t.textContent;
    if (s === "just now") return 0;
    const m = s.match(/^(\d+) (s|min|h) ago$/);
    return m ? Number(m[1]) * { s: 1, min: 60, h: 3600 }[m[2]] : Infinity;
  }), selector);
}

test("ages run in order and count the server's clock, whatever the browser's says", async () => {
  for (const skew of [5000, -3000]) {
    const page = await browser.newPage();
    await page.evaluateOnNewDocument((ms) => {
      const now = Date.now;
      Date.now = () => now() + ms;
    }, skew);
    await page.goto(RPC + "/", { waitUntil: "domcontentloaded" });
    await page.waitForSelector('#live-status[data-state="live"]', { timeout: 5000 });
    for (let i = 0; i < 12; i++) {
      const ages = await agesOf(page, "#latest-blocks");
      assert.ok(ages.length > 0);
      for (let j = 1; j < ages.length; j++) assert.ok(ages[j] >= ages[j - 1], `browser clock ${skew} ms off: ages out of order: ${ages}`);
      // Blocks come every 200 ms: the newest is at most a second or two old
      // by the server's clock (5 s by the browser's).
      assert.ok(ages[0] <= 2, `browser clock ${skew} ms off: the newest block reads ${ages[0]} s old`);
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.deepEqual(page.errors ?? [], []);
    await page.close();
  }
  // The genesis (2026-01-01 on the preview chain) shows its date, in the
  // page as the server wrote it and after the script's refresh.
  const genesis = await open(browser, RPC, "/block/0");
  const ts = Number(await genesis.$eval("time[data-ts]", (t) => t.dataset.ts));
  const date = new Date(ts * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC";
  if (Date.now() / 1000 - ts > 86400) {
    assert.equal(await genesis.$eval("time[data-ts]", (t) => t.textContent), date);
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(await genesis.$eval("time[data-ts]", (t) => t.textContent), date, "the script keeps the date");
  }
  await genesis.close();
});

test("the search box shows its whole placeholder", async () => {
  for (const width of [1280, 800, 390]) {
    const page = await browser.newPage();
    await page.setViewport({ width, height: 800 });
    await page.goto(RPC + "/", { waitUntil: "domcontentloaded" });
    const m = await page.evaluate(() => {
      const input = document.querySelector('input[name="q"]');
      const cs = getComputedStyle(input);
      const ctx = document.createElement("canvas").getContext("2d");
      ctx.font = cs.font;
      return {
        placeholder: input.placeholder,
        text: ctx.measureText(input.placeholder).width,
        room: input.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
        scrollWidth: input.scrollWidth, clientWidth: input.clientWidth,
      };
    });
    assert.ok(m.text <= m.room, `at ${width} px the placeholder "${m.placeholder}" needs ${m.text} px, the box has ${m.room}`);
    assert.ok(m.scrollWidth <= m.clientWidth, `at ${width} px the input scrolls: ${m.scrollWidth} > ${m.clientWidth}`);
    await shot(page, `search-box-${width}`);
    await page.close();
  }
});

test("search finds a token by its name and a block by a hex number", async () => {
  const xrbt = (await exampleTokens()).find((t) => t.symbol === "XRBT");
  const byName = await open(browser, RPC, "/search?q=" + encodeURIComponent(xrbt.name ?? "Example Robotics"));
  assert.equal(new URL(byName.url()).pathname.toLowerCase(), "/token/" + xrbt.contract_address.toLowerCase());
  await byName.close();
  const byWord = await open(browser, RPC, "/search?q=robotics");
  assert.equal(new URL(byWord.url()).pathname.toLowerCase(), "/token/" + xrbt.contract_address.toLowerCase());
  await byWord.close();
  // From the search box, as a visitor types it.
  const page = await open(browser, RPC, "/");
  await page.type('input[name="q"]', "0x1a");
  await Promise.all([page.waitForNavigation({ waitUntil: "domcontentloaded" }), page.keyboard.press("Enter")]);
  assert.equal(new URL(page.url()).pathname, "/block/26");
  assert.match(await page.$eval("h1", (h) => h.textContent), /Block 26/);
  await page.close();
});

test("createB20 shows its params and its initial calls' amounts in the token's units", async () => {
  const block1 = await rpc(RPC, "eth_getBlockByNumber", ["0x1", false]);
  const page = await open(browser, RPC, "/tx/" + block1.transactions[0]);
  const call = await page.$eval("#tx-call", (e) => e.innerText);
  assert.match(call, /B20AssetCreateParams/);
  assert.match(call, /"Example Robotics Inc\. \(example\)"/);
  assert.match(call, /decimals\s+uint8\s+18/);
  assert.match(call, /1,000 XRBT/, "the mints in XRBT");
  assert.doesNotMatch(call, /params\s+bytes\s+0x/, "params not left as hex");
  assert.doesNotMatch(call, /1000000000000000000000/, "no raw 18-decimal amounts");
  await shot(page, "createB20");
  await page.close();
});
