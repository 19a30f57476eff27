// Compiles Token.sol with solc-js (the version pinned in ../package.json) and
// writes Token.json: {contractName, compiler, abi, bytecode, deployedBytecode}.
// Token.json is committed, so the Go tests never need node to compile:
//
//	cd e2e && npm ci && npm run compile
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";

const here = dirname(fileURLToPath(import.meta.url));
const source = readFileSync(join(here, "Token.sol"), "utf8");

const input = {
  language: "Solidity",
  sources: { "Token.sol": { content: source } },
  settings: {
    evmVersion: "cancun",
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
  },
};

const output = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (output.errors ?? []).filter((e) => e.severity === "error");
for (const e of output.errors ?? []) console.error(e.formattedMessage);
if (errors.length > 0) process.exit(1);

const c = output.contracts["Token.sol"].Token;
const artifact = {
  contractName: "Token",
  compiler: `solc-js ${solc.version()}`,
  abi: c.abi,
  bytecode: "0x" + c.evm.bytecode.object,
  deployedBytecode: "0x" + c.evm.deployedBytecode.object,
};
writeFileSync(join(here, "Token.json"), JSON.stringify(artifact, null, 2) + "\n");
console.log(`wrote Token.json (${solc.version()}, ${c.evm.bytecode.object.length / 2} bytes of init code)`);
