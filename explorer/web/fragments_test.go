package web

import (
	"html/template"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/contracts"
)

func TestFragments(t *testing.T) {
	a := common.HexToAddress("0x52908400098527886E0F7030069857D2E4169EE7")
	registry := contracts.PolicyRegistryAddress
	tests := []struct {
		name string
		got  template.HTML
		want string
	}{
		{"address", addrLink(a), `<a class="mono addr" href="/address/0x52908400098527886E0F7030069857D2E4169EE7" title="0x52908400098527886E0F7030069857D2E4169EE7">0x529084…169EE7</a>`},
		{"pointer", addrLink(&a), `<a class="mono addr" href="/address/0x52908400098527886E0F7030069857D2E4169EE7" title="0x52908400098527886E0F7030069857D2E4169EE7">0x529084…169EE7</a>`},
		{"nil pointer", addrLink((*common.Address)(nil)), ``},
		{"known name", addrLink(registry), `>` + template.HTMLEscapeString(knownNames[registry]) + `</a>`},
		{"tx", txLink(common.HexToHash("0x01")), `<a class="mono" href="/tx/0x0000000000000000000000000000000000000000000000000000000000000001" title="0x0000000000000000000000000000000000000000000000000000000000000001">0x000000…000001</a>`},
		{"pre-confirmed row", txRowHTML(txRow{Hash: common.HexToHash("0x01"), Block: 7, From: a, Value: big.NewInt(1), Method: "<b>", Pre: true}),
			`data-preconfirmed="true" data-block-number="7"`},
		{"row escapes the method", txRowHTML(txRow{Hash: common.HexToHash("0x01"), Block: 7, From: a, To: &a, Value: big.NewInt(1), Method: "<b>"}), `<span class="fn">&lt;b&gt;</span>`},
		{"creation", txRowHTML(txRow{From: a, Value: new(big.Int)}), `contract creation`},
	}
	for _, tt := range tests {
		if !strings.Contains(string(tt.got), tt.want) || (tt.want == "" && tt.got != "") {
			t.Errorf("%s: %s\nwant it to contain %s", tt.name, tt.got, tt.want)
		}
	}
}
