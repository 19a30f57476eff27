package web

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/stocknode/stocknode/contracts"
)

//go:embed templates
var templateFiles embed.FS

// pageNames are the page templates, each templates/{name}.html, parsed
// with the frame (layout.html) and the shared pieces (parts.html).
var pageNames = []string{"home", "block", "tx", "address", "tokens", "token", "search", "faucet", "error"}

// pages holds the parsed templates; immutable once parsed.
type pages struct {
	byName map[string]*template.Template
}

func parsePages(a *assets) (*pages, error) {
	base, err := template.New("layout.html").Funcs(funcs(a)).ParseFS(templateFiles, "templates/layout.html", "templates/parts.html")
	if err != nil {
		return nil, err
	}
	p := &pages{byName: map[string]*template.Template{}}
	for _, name := range pageNames {
		t, err := base.Clone()
		if err != nil {
			return nil, err
		}
		if _, err := t.ParseFS(templateFiles, "templates/"+name+".html"); err != nil {
			return nil, err
		}
		p.byName[name] = t
	}
	return p, nil
}

// execute renders page with the frame, or only its template fragment when
// that is not empty.
func (p *pages) execute(w io.Writer, page, fragment string, data layout) error {
	t, ok := p.byName[page]
	if !ok {
		return fmt.Errorf("no page template %q", page)
	}
	if fragment == "" {
		fragment = "layout.html"
	}
	return t.ExecuteTemplate(w, fragment, data)
}

// maxUint128 is a B20 token's supply cap when none was set.
var maxUint128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))

// funcs are the templates' helpers. Every one returns plain text that
// html/template escapes; none returns template.HTML.
func funcs(a *assets) template.FuncMap {
	return template.FuncMap{
		"asset":          a.url,
		"addr":           addrLink,
		"txlink":         txLink,
		"txrow":          txRowHTML,
		"eth":            eth,
		"gwei":           gwei,
		"units":          units,
		"num":            num,
		"numi":           func(n int) string { return num(uint64(max(n, 0))) },
		"wad":            wad,
		"scaled":         scaled,
		"clip":           clip,
		"utc":            utc,
		"iso":            isoTime,
		"ago":            func(ts uint64) string { return ago(ts, time.Now()) },
		"plural":         plural,
		"ethr":           ethReadable,
		"percent":        percent,
		"rate":           rate,
		"dur":            duration,
		"features":       features,
		"hexclip":        hexClip,
		"u64":            func(v *big.Int) uint64 { return v.Uint64() },
		"capped":         func(v *big.Int) bool { return v != nil && v.Cmp(maxUint128) != 0 },
		"add":            func(a, b int) int { return a + b },
		"policyRegistry": func() common.Address { return contracts.PolicyRegistryAddress },
	}
}
