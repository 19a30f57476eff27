// Compiles src/*.sol with solc-js (the version pinned in package.json) and
// writes one artifact per deployable contract to artifacts/<Name>.json:
// {contractName, compiler, abi, bytecode, deployedBytecode}. The artifacts are
// committed, so Go never needs node to build; TestArtifactsMatchSources checks
// that they match the sources.
//
//	make contracts                       # npm ci + node compile.mjs
//	node compile.mjs --check <dir>       # write to <dir> instead, to compare
//
// The output is deterministic: no metadata hash in the bytecode, sorted
// sources, fixed settings.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";

const here = dirname(fileURLToPath(import.meta.url));
const srcDir = join(here, "src");

let outDir = join(here, "artifacts");
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--check" && args[i + 1]) {
    outDir = resolve(args[++i]);
  } else {
    console.error(`usage: node compile.mjs [--check DIR]`);
    process.exit(2);
  }
}

const sources = {};
for (const file of readdirSync(srcDir).filter((f) => f.endsWith(".sol")).sort()) {
  sources[file] = { content: readFileSync(join(srcDir, file), "utf8") };
}

const input = {
  language: "Solidity",
  sources,
  settings: {
    evmVersion: "prague",
    optimizer: { enabled: true, runs: 200 },
    metadata: { bytecodeHash: "none", appendCBOR: false },
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
  },
};

const output = JSON.parse(solc.compile(JSON.stringify(input)));
let failed = false;
for (const e of output.errors ?? []) {
  // The implementations are genesis code, which has no EIP-170 size limit.
  if (e.severity === "warning" && /Contract code size/.test(e.message)) continue;
  console.error(e.formattedMessage);
  if (e.severity === "error") failed = true;
}
if (failed) process.exit(1);

mkdirSync(outDir, { recursive: true });
const written = [];
for (const file of Object.keys(output.contracts).sort()) {
  for (const [name, c] of Object.entries(output.contracts[file])) {
    // Interfaces and abstract contracts have no code.
    if (!c.evm.deployedBytecode.object) continue;
    const artifact = {
      contractName: name,
      compiler: `solc-js ${solc.version()}`,
      abi: c.abi,
      bytecode: "0x" + c.evm.bytecode.object,
      deployedBytecode: "0x" + c.evm.deployedBytecode.object,
    };
    writeFileSync(join(outDir, `${name}.json`), JSON.stringify(artifact, null, 2) + "\n");
    written.push(`${name} (${c.evm.deployedBytecode.object.length / 2} bytes)`);
  }
}
console.log(`solc ${solc.version()}: wrote ${written.join(", ")} to ${outDir}`);
