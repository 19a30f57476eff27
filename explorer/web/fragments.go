package web

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// The pieces every list repeats (an address link, a transaction link, a
// transaction row) are written here in Go rather than as nested templates:
// they are most of a page's template actions, and html/template spends
// microseconds per action on reflection, while these cost one checksum per
// address. Everything interpolated is a hex string, a number, or text
// escaped with template.HTMLEscapeString.

// addrLink is an address linking to its page, labelled by its known name
// or its shortened checksum form. It takes common.Address or
// *common.Address, as templates hand both.
func addrLink(v any) template.HTML {
	var a common.Address
	switch x := v.(type) {
	case common.Address:
		a = x
	case *common.Address:
		if x == nil {
			return ""
		}
		a = *x
	default:
		return ""
	}
	hex := a.Hex()
	label := knownNames[a]
	if label == "" {
		label = shortString(hex)
	}
	var b strings.Builder
	b.Grow(160)
	b.WriteString(`<a class="mono addr" href="/address/`)
	b.WriteString(hex)
	b.WriteString(`" title="`)
	b.WriteString(hex)
	b.WriteString(`">`)
	b.WriteString(template.HTMLEscapeString(label))
	b.WriteString(`</a>`)
	return template.HTML(b.String())
}

// txLink is a transaction hash linking to its page.
func txLink(h common.Hash) template.HTML {
	hex := h.Hex()
	return template.HTML(`<a class="mono" href="/tx/` + hex + `" title="` + hex + `">` + shortString(hex) + `</a>`)
}

// txRowHTML is one row of a transaction list (the DOM hooks of app.js:
// tr[data-tx-hash][data-preconfirmed][data-block-number], [data-badge],
// td[data-col=block]).
func txRowHTML(r txRow) template.HTML {
	var b strings.Builder
	b.Grow(900)
	block := strconv.FormatUint(r.Block, 10)
	b.WriteString(`<tr data-tx-hash="`)
	b.WriteString(r.Hash.Hex())
	b.WriteString(`" data-preconfirmed="`)
	b.WriteString(strconv.FormatBool(r.Pre))
	b.WriteString(`" data-block-number="`)
	b.WriteString(block)
	b.WriteString("\">\n<td>")
	b.WriteString(string(txLink(r.Hash)))
	if r.Pre {
		b.WriteString(` <span class="badge pre" data-badge>pre-confirmed</span>`)
	}
	if r.Failed {
		b.WriteString(` <span class="badge fail">failed</span>`)
	}
	b.WriteString("</td>\n<td data-col=\"block\">")
	if r.Pre {
		b.WriteString(block)
	} else {
		b.WriteString(`<a href="/block/` + block + `">` + block + `</a>`)
	}
	b.WriteString("</td>\n<td class=\"route\">")
	b.WriteString(string(addrLink(r.From)))
	b.WriteString(" → ")
	if r.To != nil {
		b.WriteString(string(addrLink(r.To)))
	} else {
		b.WriteString(`<span class="muted">contract creation</span>`)
	}
	b.WriteString("</td>\n<td>")
	if r.Method != "" {
		b.WriteString(`<span class="fn">` + template.HTMLEscapeString(r.Method) + `</span>`)
	}
	b.WriteString("</td>\n<td class=\"num\">")
	b.WriteString(template.HTMLEscapeString(eth(r.Value)))
	b.WriteString("</td>\n</tr>")
	return template.HTML(b.String())
}

// shortString is short for a string already in hand.
func shortString(s string) string {
	if len(s) <= 14 {
		return s
	}
	return s[:8] + "…" + s[len(s)-6:]
}
