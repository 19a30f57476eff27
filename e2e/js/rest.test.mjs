// The Tokenized Stocks REST API against the running node: the OpenAPI
// document validates as OpenAPI 3, every answer (successes and every error
// shape) validates against it, and the HTTP semantics (ETag, 304, HEAD, CORS,
// Allow) hold. The lifecycle file (b20.test.mjs) checks that the answers
// follow the chain.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { RPC, CHAIN_ID, poll } from "./helpers.mjs";

const BASE = RPC.replace(/\/*$/, "");
const get = (path, init = {}) => fetch(BASE + path, init);

let doc;
let ajv;

// validatorFor compiles the schema of an operation's answer with status.
function validatorFor(path, status) {
  const op = doc.paths[path].get;
  const res = op.responses[String(status)] ?? op.responses.default;
  const resolved = res.$ref ? doc.components.responses[res.$ref.split("/").pop()] : res;
  const schema = resolved.content["application/json"].schema;
  return ajv.compile(withRefs(schema));
}

// withRefs rewrites the document's local $refs so ajv resolves them against
// the document registered as "openapi.json".
function withRefs(schema) {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'));
}

async function checkAnswer(path, url, status, init) {
  const res = await get(url, init);
  assert.equal(res.status, status, `${url}: status`);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/, `${url}: content type`);
  const body = await res.json();
  const validate = validatorFor(path, status);
  assert.ok(validate(body), `${url}: ${status} answer does not follow the OpenAPI document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
  return { res, body };
}

test("the OpenAPI document is valid OpenAPI 3 with the three operations", async () => {
  const res = await get("/v1/openapi.json");
  assert.equal(res.status, 200);
  doc = await res.json();
  const result = await new Validator().validate(doc);
  assert.ok(result.valid, "document invalid: " + JSON.stringify(result.errors));
  const ids = Object.values(doc.paths).map((p) => p.get.operationId);
  for (const id of ["listTokenizedStocks", "listChainContractAddresses", "getTokenTotalSupply"]) {
    assert.ok(ids.includes(id), `operationId ${id} missing`);
  }
  ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // OpenAPI's own formats that JSON Schema does not know.
  for (const f of ["int32", "uint64", "double"]) ajv.addFormat(f, true);
  ajv.addSchema(doc, "openapi.json");
});

test("chains lists the preview chain with EIP-55 addresses", async () => {
  const { res, body } = await checkAnswer("/v1/tokenized-stocks/chains", "/v1/tokenized-stocks/chains", 200);
  const own = body.chains.find((c) => c.chain_id === String(CHAIN_ID));
  assert.ok(own, "own chain listed");
  assert.equal(own.chain, "preview");
  assert.equal(own.policy_registry_address, "0x8453000000000000000000000000000000000002");
  assert.equal(own.token_factory_address, "0xB20f000000000000000000000000000000000000");
  assert.ok(res.headers.get("etag"));
  assert.ok(res.headers.get("cache-control"));
});

test("tokens lists the example tokens", async () => {
  const body = await poll("example tokens listed", async () => {
    const res = await get("/v1/tokenized-stocks");
    if (res.status !== 200) return undefined;
    const b = await res.json();
    return b.tokens.some((t) => t.symbol === "XRBT") ? b : undefined;
  });
  const validate = validatorFor("/v1/tokenized-stocks", 200);
  assert.ok(validate(body), ajv.errorsText(validate.errors));
  const xrbt = body.tokens.find((t) => t.symbol === "XRBT");
  assert.match(xrbt.name, /\(example\)/);
  assert.match(xrbt.isin, /^[A-Z]{2}[A-Z0-9]{9}[0-9]$/);
  assert.ok(xrbt.total_supply > 0);
  assert.equal(xrbt.decimals, 18);
  assert.ok(!("nav_price" in xrbt));
  assert.ok(body.tokens.some((t) => t.multiplier !== 1), "an example with a multiplier other than 1");

  const supply = await checkAnswer("/v1/tokenized-stocks/total-supply/{contract_address}", "/v1/tokenized-stocks/total-supply/" + xrbt.contract_address, 200);
  assert.equal(supply.body, xrbt.total_supply);
});

test("every error answers the status object the document describes", async () => {
  const cases = [
    ["/v1/tokenized-stocks/total-supply/{contract_address}", "/v1/tokenized-stocks/total-supply/0x1234", 400, 3],
    ["/v1/tokenized-stocks/total-supply/{contract_address}", "/v1/tokenized-stocks/total-supply/0x00000000000000000000000000000000000000c3", 404, 5],
    ["/v1/tokenized-stocks", "/v1/tokenized-stocks/unknown", 404, 5],
    ["/v1/tokenized-stocks", "/v2/anything", 404, 5],
    ["/v1/tokenized-stocks", "/v1/tokenized-stocks/chains", 501, 12, { method: "POST", body: "{}" }],
    ["/v1/tokenized-stocks", "/v1/tokenized-stocks", 501, 12, { method: "DELETE" }],
  ];
  for (const [path, url, status, code, init] of cases) {
    const { res, body } = await checkAnswer(path, url, status, init);
    assert.equal(body.code, code, `${url}: code`);
    assert.ok(Array.isArray(body.details), `${url}: details is an array`);
    if (status === 501) assert.equal(res.headers.get("allow"), "GET, HEAD");
  }
});

test("ETag, 304, HEAD and CORS", async () => {
  const first = await get("/v1/tokenized-stocks/chains", { headers: { Origin: "https://app.example" } });
  assert.equal(first.headers.get("access-control-allow-origin"), "*");
  assert.match(first.headers.get("access-control-expose-headers") ?? "", /ETag/);
  const etag = first.headers.get("etag");
  const again = await get("/v1/tokenized-stocks/chains", { headers: { "If-None-Match": etag } });
  assert.equal(again.status, 304);
  assert.equal((await again.text()).length, 0);
  const head = await get("/v1/tokenized-stocks/chains", { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("etag"), etag);
  assert.equal((await head.text()).length, 0);
  const preflight = await get("/v1/tokenized-stocks", { method: "OPTIONS", headers: { Origin: "https://app.example", "Access-Control-Request-Method": "GET" } });
  assert.equal(preflight.status, 204);
  assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /GET/);
});
