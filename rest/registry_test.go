package rest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRegistry(t *testing.T) {
	const good = `[{"chain_id":"8453","chain":"base","policy_registry_address":"0x8453000000000000000000000000000000000002","token_supply_manager_address":"0x0000000000000000000000000000000000000001","token_factory_address":"0xB20f000000000000000000000000000000000000"}]`
	entry := func(field, value string) string {
		return strings.Replace(good, field, value, 1)
	}
	tests := []struct {
		name, file, err string
	}{
		{name: "good", file: good},
		{name: "empty list", file: `[]`},
		{name: "empty file", file: ``, err: "empty file"},
		{name: "object", file: `{"chain_id":"1"}`, err: "line 1, column 1: want a JSON array of chain objects"},
		{name: "syntax", file: "[\n{\"chain_id\": }]", err: "line 2, column 14: invalid character '}'"},
		{name: "unknown field", file: `[{"chainId":"1"}]`, err: `unknown field "chainId"`},
		{name: "numeric id", file: entry(`"8453"`, `8453`), err: "chain_id must be a JSON string"},
		{name: "bad id", file: entry(`"8453"`, `"0x2105"`), err: `entry 0: chain_id "0x2105" is not a positive decimal integer`},
		{name: "zero id", file: entry(`"8453"`, `"0"`), err: "not a positive decimal"},
		{name: "no id", file: entry(`"chain_id":"8453",`, ``), err: "entry 0: chain_id is missing"},
		{name: "no name", file: entry(`"base"`, `""`), err: "chain (the chain's name) is missing"},
		{name: "short address", file: entry(`0x0000000000000000000000000000000000000001`, `0x01`), err: `entry 0: chain_id 8453: token_supply_manager_address: "0x01" is not an address`},
		{name: "bad checksum", file: entry(`0xB20f`, `0xb20F`), err: "token_factory_address: \"0xb20F000000000000000000000000000000000000\" has a wrong EIP-55 checksum (did you mean 0xB20f"},
		{name: "missing address", file: entry(`"policy_registry_address":"0x8453000000000000000000000000000000000002",`, ``), err: "policy_registry_address: missing"},
		{name: "duplicate", file: strings.Replace(good, "]", ","+good[1:], 1), err: "entry 1: chain_id 8453 is already listed by entry 0"},
		{name: "trailing", file: good + " []", err: "found more after it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chains, err := ParseRegistry([]byte(tt.file))
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want one containing %q (parsed %v)", err, tt.err, chains)
			}
		})
	}
}

func TestLoadRegistryNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chains.json")
	if err := os.WriteFile(path, []byte(`[{"chain_id":"x"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRegistry(path); err == nil || !strings.HasPrefix(err.Error(), "registry "+path+": entry 0") {
		t.Fatalf("got %v", err)
	}
	if _, err := LoadRegistry(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing file: %v", err)
	}
}
