package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
)

// getJSON GETs url and decodes its JSON body into out; it returns the status.
func getJSON(t *testing.T, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("GET %s: %d %s: %v", url, resp.StatusCode, body, err)
	}
	return resp.StatusCode
}

type chainEntry struct {
	ChainID            string `json:"chain_id"`
	Chain              string `json:"chain"`
	PolicyRegistry     string `json:"policy_registry_address"`
	TokenSupplyManager string `json:"token_supply_manager_address"`
	TokenFactory       string `json:"token_factory_address"`
}

// TestRegistryAddressesHoldCode: the chains list names the node's own chain
// (--network.name) with addresses that hold code, and the --registry
// chains, sorted by chain ID.
func TestRegistryAddressesHoldCode(t *testing.T) {
	registry := filepath.Join(t.TempDir(), "chains.json")
	other := `[{"chain_id":"8453","chain":"base","policy_registry_address":"0x8453000000000000000000000000000000000002","token_supply_manager_address":"0x0000000000000000000000000000000000000001","token_factory_address":"0xB20f000000000000000000000000000000000000"}]`
	if err := os.WriteFile(registry, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	n := startNode(t, "--registry", registry, "--network.name", "stocks-preview")
	var list struct{ Chains []chainEntry }
	if status := getJSON(t, n.URL+"/v1/tokenized-stocks/chains", &list); status != 200 {
		t.Fatalf("status %d", status)
	}
	if len(list.Chains) != 2 || list.Chains[0].ChainID != "8453" || list.Chains[1].ChainID != "84538453" || list.Chains[1].Chain != "stocks-preview" {
		t.Fatalf("chains %+v", list.Chains)
	}
	client, _ := n.dial(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	own := list.Chains[1]
	for name, addr := range map[string]string{"policy registry": own.PolicyRegistry, "supply manager": own.TokenSupplyManager, "factory": own.TokenFactory} {
		if common.HexToAddress(addr).Hex() != addr {
			t.Errorf("%s %s is not EIP-55", name, addr)
		}
		code, err := client.CodeAt(ctx, common.HexToAddress(addr), nil)
		if err != nil || len(code) == 0 {
			t.Errorf("%s %s holds no code (%v)", name, addr, err)
		}
	}
}

// TestBadRegistryStopsTheNode: a bad --registry file stops the node at
// start with a message that says what is wrong where.
func TestBadRegistryStopsTheNode(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ name, file, want string }{
		{"syntax", "[\n{\"chain_id\": \"1\",}\n]", "line 2, column 18"},
		{"bad address", `[{"chain_id":"1","chain":"x","policy_registry_address":"0x12","token_supply_manager_address":"0x0000000000000000000000000000000000000001","token_factory_address":"0x0000000000000000000000000000000000000001"}]`, `entry 0: chain_id 1: policy_registry_address: "0x12" is not an address`},
		{"own chain again", `[{"chain_id":"84538453","chain":"x","policy_registry_address":"0x0000000000000000000000000000000000000001","token_supply_manager_address":"0x0000000000000000000000000000000000000001","token_factory_address":"0x0000000000000000000000000000000000000001"}]`, "chain 84538453 (x) is listed twice"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".json")
			if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, binary, "--dev", "--http.port", "0", "--registry", path).CombinedOutput()
			if err == nil {
				t.Fatalf("the node started with a bad registry:\n%s", out)
			}
			if !strings.Contains(string(out), tt.want) || !strings.Contains(string(out), "--registry") {
				t.Fatalf("output lacks %q:\n%s", tt.want, out)
			}
		})
	}
}

// TestExamplesFlag: the preview chain issues its example tokens unless
// --preview.examples=false.
func TestExamplesFlag(t *testing.T) {
	for _, tt := range []struct {
		flag string
		want []string
	}{
		{"--preview.examples=true", []string{"XRBT", "XSFD", "XDEN"}},
		{"--preview.examples=false", nil},
	} {
		t.Run(tt.flag, func(t *testing.T) {
			n := startNode(t, tt.flag)
			client, _ := n.dial(t)
			var symbols []string
			deadline := time.Now().Add(10 * time.Second)
			for {
				var list struct {
					Tokens []struct{ Symbol string } `json:"tokens"`
				}
				status := getJSON(t, n.URL+"/v1/tokenized-stocks", &list)
				symbols = symbols[:0]
				for _, tok := range list.Tokens {
					symbols = append(symbols, tok.Symbol)
				}
				if status == 200 && (len(symbols) == len(tt.want) || time.Now().After(deadline)) && reached(client, 2) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if strings.Join(symbols, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("tokens %v, want %v", symbols, tt.want)
			}
		})
	}
}

// reached reports whether the node's head has reached number.
func reached(client *ethclient.Client, number uint64) bool {
	head, err := client.BlockNumber(context.Background())
	return err == nil && head >= number
}
