// Shared setup of the browser suites: the node's URLs, a headless Chromium
// (puppeteer-core driving $STOCKNODE_CHROMIUM) and screenshots kept as test
// artifacts in $STOCKNODE_SCREENSHOTS. The DOM hooks the suites read are
// documented at the top of explorer/web/assets/app.js.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import puppeteer from "puppeteer-core";

export const RPC = process.env.STOCKNODE_RPC;
export const SLOW_RPC = process.env.STOCKNODE_SLOW_RPC;
if (!RPC || !SLOW_RPC || !process.env.STOCKNODE_CHROMIUM) {
  throw new Error("STOCKNODE_RPC, STOCKNODE_SLOW_RPC and STOCKNODE_CHROMIUM must be set: run through `go test ./e2e/ -run Browser`");
}
const SHOTS = process.env.STOCKNODE_SCREENSHOTS || "artifacts/screenshots";

// launch starts the browser; close it in after().
export async function launch() {
  return puppeteer.launch({
    executablePath: process.env.STOCKNODE_CHROMIUM,
    headless: true,
    // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
}

// open loads path of base in a fresh page (1280x900) and returns the page;
// every request the page makes is recorded in page.requests.
export async function open(browser, base, path, { javaScript = true } = {}) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.setJavaScriptEnabled(javaScript);
  page.requests = [];
  page.on("request", (r) => page.requests.push(r.url()));
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  const resp = await page.goto(base + path, { waitUntil: "domcontentloaded" });
  page.status = resp.status();
  return page;
}

// shot saves a full-page screenshot under name.
export async function shot(page, name) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, name + ".png"), fullPage: true });
}

// text is the page's visible text.
export function text(page) {
  return page.evaluate(() => document.body.innerText);
}

// live waits until the page's WebSocket follows the chain.
export async function live(page) {
  await page.waitForSelector('#live-status[data-state="live"]', { timeout: 5000 });
}

// rpc calls a JSON-RPC method on url.
export async function rpc(url, method, params = []) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const j = await r.json();
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
}
