package contracts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// TestArtifactsMatchSources compiles src/*.sol again (node compile.mjs, the
// pinned solc-js) into a temporary directory and fails if any committed
// artifact differs, or one is missing or extra.
func TestArtifactsMatchSources(t *testing.T) {
	if testing.Short() {
		t.Skip("compiling the contracts needs node; skipped under -short")
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("compiling the contracts needs Node.js on PATH (and npm to install solc): ", err)
	}
	ensurePackages(t)
	dir := t.TempDir()
	out, err := exec.Command(nodeBin, "compile.mjs", "--check", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("node compile.mjs --check: %v\n%s", err, out)
	}
	committed := jsonFiles(t, "artifacts")
	fresh := jsonFiles(t, dir)
	if !slices.Equal(committed, fresh) {
		t.Fatalf("artifacts/ holds %v, the sources compile to %v: run `make contracts`", committed, fresh)
	}
	for _, name := range committed {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("artifacts", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("artifacts/%s differs from what src/ compiles to: run `make contracts`", name)
		}
	}
}

func jsonFiles(t *testing.T, dir string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range matches {
		names = append(names, filepath.Base(m))
	}
	slices.Sort(names)
	return names
}

// ensurePackages runs `npm ci` in contracts/ unless node_modules holds the
// solc version package.json pins.
func ensurePackages(t *testing.T) {
	t.Helper()
	if solcInstalled() {
		return
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatal("contracts/node_modules lacks solc and npm is not on PATH: ", err)
	}
	t.Log("contracts/node_modules missing or stale: running npm ci")
	if out, err := exec.Command(npm, "ci", "--no-audit", "--no-fund").CombinedOutput(); err != nil {
		t.Fatalf("npm ci in contracts/: %v\n%s", err, out)
	}
	if !solcInstalled() {
		t.Fatal("npm ci in contracts/ succeeded but node_modules still lacks the pinned solc")
	}
}

func solcInstalled() bool {
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	var installed struct {
		Version string `json:"version"`
	}
	raw, err := os.ReadFile("package.json")
	if err != nil || json.Unmarshal(raw, &pkg) != nil {
		return false
	}
	raw, err = os.ReadFile(filepath.Join("node_modules", "solc", "package.json"))
	if err != nil || json.Unmarshal(raw, &installed) != nil {
		return false
	}
	return installed.Version == pkg.DevDependencies["solc"]
}

// TestABICompatibleWithBase checks that our artifacts have every function,
// event and error of Base's B20 interfaces at the pinned base-std commit
// (testdata/base-b20-surface.txt), with the same input types, indexed flags,
// outputs and state mutability.
func TestABICompatibleWithBase(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "base-b20-surface.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		section  string
		ours     map[string]bool
		checked  int
		sections []string
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "["):
			fields := strings.Fields(strings.Trim(line, "[]"))
			if len(fields) != 2 {
				t.Fatalf("bad section line %q", line)
			}
			section = fields[0] + " (" + fields[1] + ")"
			sections = append(sections, fields[1])
			a, err := Load(fields[1])
			if err != nil {
				t.Fatal(err)
			}
			ours = surface(a.ABI)
			continue
		}
		if ours == nil {
			t.Fatalf("entry %q before any section", line)
		}
		checked++
		if !ours[line] {
			t.Errorf("%s: missing %s", section, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{B20Factory, PolicyRegistry, B20Asset, B20Stablecoin}
	if !slices.Equal(sections, want) || checked < 200 {
		t.Fatalf("surface file covers %v with %d entries; want %v and over 200", sections, checked, want)
	}
}

// surface renders every entry of an ABI in the surface file's canonical form.
func surface(a abi.ABI) map[string]bool {
	out := map[string]bool{}
	for _, m := range a.Methods {
		line := "function " + m.RawName + "(" + typeList(m.Inputs, false) + ")"
		switch m.StateMutability {
		case "view", "pure":
			line += " view"
		case "payable":
			line += " payable"
		}
		if len(m.Outputs) > 0 {
			line += " returns (" + typeList(m.Outputs, false) + ")"
		}
		out[line] = true
	}
	for _, e := range a.Events {
		out["event "+e.RawName+"("+typeList(e.Inputs, true)+")"] = true
	}
	for _, e := range a.Errors {
		out["error "+e.Name+"("+typeList(e.Inputs, false)+")"] = true
	}
	return out
}

func typeList(args abi.Arguments, indexed bool) string {
	parts := make([]string, len(args))
	for i, arg := range args {
		parts[i] = arg.Type.String()
		if indexed && arg.Indexed {
			parts[i] += " indexed"
		}
	}
	return strings.Join(parts, ",")
}

func TestSurfaceRendering(t *testing.T) {
	// The canonical form the surface test relies on, on a hand-written ABI.
	const js = `[
	 {"type":"function","name":"f","inputs":[{"name":"a","type":"uint8"},{"name":"b","type":"bytes[]"}],"outputs":[{"name":"","type":"address"}],"stateMutability":"nonpayable"},
	 {"type":"function","name":"g","inputs":[],"outputs":[{"name":"","type":"bytes32"}],"stateMutability":"pure"},
	 {"type":"event","name":"E","inputs":[{"name":"x","type":"address","indexed":true},{"name":"y","type":"string","indexed":false}],"anonymous":false},
	 {"type":"error","name":"Err","inputs":[{"name":"i","type":"uint256"}]}]`
	parsed, err := abi.JSON(strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	got := surface(parsed)
	for _, want := range []string{
		"function f(uint8,bytes[]) returns (address)",
		"function g() view returns (bytes32)",
		"event E(address indexed,string)",
		"error Err(uint256)",
	} {
		if !got[want] {
			t.Errorf("surface lacks %q; has %v", want, got)
		}
	}
	if len(got) != 4 {
		t.Errorf("surface has %d entries, want 4: %v", len(got), got)
	}
}

// TestPredeploys checks the genesis accounts: every contract at its address,
// runtime code that is not init code, nonce 1, no storage, and no contract
// over the EIP-170 limit except the two implementations (genesis code has
// no limit, and they are never deployed by a transaction).
func TestPredeploys(t *testing.T) {
	alloc := Predeploys()
	want := map[common.Address]string{
		ActivationRegistryAddress:       ActivationRegistry,
		PolicyRegistryAddress:           PolicyRegistry,
		FactoryAddress:                  B20Factory,
		TokenSupplyManagerAddress:       TokenSupplyManager,
		AssetImplementationAddress:      B20Asset,
		StablecoinImplementationAddress: B20Stablecoin,
	}
	if len(alloc) != len(want) {
		t.Fatalf("Predeploys has %d accounts, want %d", len(alloc), len(want))
	}
	for addr, name := range want {
		acc, ok := alloc[addr]
		if !ok {
			t.Fatalf("Predeploys lacks %s at %s", name, addr)
		}
		a := MustLoad(name)
		if !bytes.Equal(acc.Code, a.DeployedBytecode) || len(acc.Code) == 0 {
			t.Errorf("%s: code is not the artifact's runtime code", name)
		}
		if acc.Nonce != 1 || len(acc.Storage) != 0 || acc.Balance == nil || acc.Balance.Sign() != 0 {
			t.Errorf("%s: nonce %d, %d storage slots, balance %v; want 1, 0, 0", name, acc.Nonce, len(acc.Storage), acc.Balance)
		}
		if addr != AssetImplementationAddress && addr != StablecoinImplementationAddress && len(acc.Code) > params.MaxCodeSize {
			t.Errorf("%s: %d bytes of code, over EIP-170's %d", name, len(acc.Code), params.MaxCodeSize)
		}
	}
	// Predeploys returns fresh copies: a caller's change does not leak.
	alloc[FactoryAddress].Code[0] ^= 0xff
	if bytes.Equal(Predeploys()[FactoryAddress].Code, alloc[FactoryAddress].Code) {
		t.Error("Predeploys shares its code slices between calls")
	}
}

func TestLoad(t *testing.T) {
	for _, name := range []string{ActivationRegistry, PolicyRegistry, B20Factory, B20Asset, B20Stablecoin, TokenSupplyManager} {
		a, err := Load(name)
		if err != nil {
			t.Fatalf("Load(%s): %v", name, err)
		}
		if a.Name != name || len(a.Bytecode) == 0 || len(a.DeployedBytecode) == 0 || len(a.ABI.Methods) == 0 {
			t.Errorf("Load(%s) = %q with %d/%d bytes of code and %d methods", name, a.Name, len(a.Bytecode), len(a.DeployedBytecode), len(a.ABI.Methods))
		}
	}
	if _, err := Load("Nope"); err == nil {
		t.Error("Load(Nope) succeeded")
	}
	defer func() {
		if recover() == nil {
			t.Error("MustLoad(Nope) did not panic")
		}
	}()
	MustLoad("Nope")
}

func TestConstants(t *testing.T) {
	asset := MustLoad(B20Asset)
	c := newTestChain(t)
	token := createAsset(t, c, alice, "C", nil)
	for _, tc := range []struct {
		getter string
		want   common.Hash
	}{
		{"DEFAULT_ADMIN_ROLE", DefaultAdminRole},
		{"MINT_ROLE", MintRole},
		{"BURN_ROLE", BurnRole},
		{"BURN_BLOCKED_ROLE", BurnBlockedRole},
		{"PAUSE_ROLE", PauseRole},
		{"UNPAUSE_ROLE", UnpauseRole},
		{"METADATA_ROLE", MetadataRole},
		{"OPERATOR_ROLE", OperatorRole},
		{"TRANSFER_SENDER_POLICY", TransferSenderPolicy},
		{"TRANSFER_RECEIVER_POLICY", TransferReceiverPolicy},
		{"TRANSFER_EXECUTOR_POLICY", TransferExecutorPolicy},
		{"MINT_RECEIVER_POLICY", MintReceiverPolicy},
	} {
		if got := common.Hash(c.read(token, asset, tc.getter)[0].([32]byte)); got != tc.want {
			t.Errorf("%s() = %s, want %s", tc.getter, got, tc.want)
		}
	}
	if FeatureIDB20Asset != crypto.Keccak256Hash([]byte("base.b20_asset")) || AlwaysBlock != 0x0100000000000001 {
		t.Error("feature id or built-in policy constant is off")
	}
}

func TestAssetParamsEncoding(t *testing.T) {
	// abi.encode of a struct with strings: an offset word, then the tuple.
	p := AssetParams("Acme", "ACME", common.HexToAddress("0x00000000000000000000000000000000000000aa"), 18)
	word := func(i int) common.Hash { return common.BytesToHash(p[32*i : 32*i+32]) }
	checks := []struct {
		name string
		got  common.Hash
		want common.Hash
	}{
		{"offset", word(0), common.BigToHash(common.Big32)},
		{"version", word(1), common.BigToHash(common.Big1)},
		{"admin", word(4), common.HexToHash("0xaa")},
		{"decimals", word(5), common.BigToHash(bigInt(18))},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s word = %s, want %s", c.name, c.got, c.want)
		}
	}
	if !strings.Contains(string(p), "Acme") || !strings.Contains(string(p), "ACME") {
		t.Error("name or symbol missing from the encoding")
	}
	if s := StablecoinParams("Dollar", "USDX", common.Address{}, "USD"); !strings.Contains(string(s), "USD") {
		t.Error("currency missing from the stablecoin encoding")
	}
}
