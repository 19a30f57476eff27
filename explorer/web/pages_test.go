package web

import (
	"fmt"
	"io/fs"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/contracts"
	"github.com/stocknode/stocknode/node/chain"
	"github.com/stocknode/stocknode/node/pending"
	"github.com/stocknode/stocknode/node/preview"
	"github.com/stocknode/stocknode/node/sequencer"
)

// hostileName is a token name a hostile issuer might choose.
const hostileName = `<script>alert("x")</script>`

// explorerChain is a chain with the example tokens, an ETH transfer, a
// token transfer, a failed call and a token with a hostile name, all sealed.
type explorerChain struct {
	*env
	ethTransfer, tokenTransfer, failed, create, hostile *types.Transaction
	xrbt, hostileToken                                  common.Address
	createBlock                                         uint64
}

func newExplorerChain(t *testing.T, extra ...sequencer.Listener) *explorerChain {
	cfg := DefaultConfig()
	cfg.PageSize, cfg.HomeSize = 2, 5
	e := &explorerChain{env: newEnv(t, cfg, 200*time.Millisecond, 200*time.Millisecond, extra...)}
	e.issueExamples()
	issuer := crypto.PubkeyToAddress(chain.ExampleIssuerKey().PublicKey)
	e.xrbt = contracts.B20Address(contracts.VariantAsset, issuer, preview.Salt(preview.Examples()[0]))
	e.create = findTx(t, e.env, contracts.FactoryAddress)
	asset := contracts.MustLoad(contracts.B20Asset).ABI
	factory := contracts.MustLoad(contracts.B20Factory).ABI

	dev2 := e.Addr(2)
	e.ethTransfer = e.Send(0, &dev2, big.NewInt(15e17), params.TxGas, nil)
	transfer, _ := asset.Pack("transfer", dev2, new(big.Int).Mul(big.NewInt(10), big.NewInt(params.Ether)))
	e.tokenTransfer = e.Send(0, &e.xrbt, nil, 200_000, transfer)
	tooMuch, _ := asset.Pack("transfer", e.Addr(0), new(big.Int).Mul(big.NewInt(1_000_000), big.NewInt(params.Ether)))
	e.failed = e.Send(2, &e.xrbt, nil, 200_000, tooMuch)
	for range 2 {
		e.Send(0, &dev2, big.NewInt(1), params.TxGas, nil)
	}
	mint, _ := asset.Pack("mint", e.Addr(1), big.NewInt(params.Ether))
	salt := common.Hash{0x66}
	create, err := factory.Pack("createB20", contracts.VariantAsset, salt, contracts.AssetParams(hostileName, "<b>X", e.Addr(1), 18), [][]byte{mint})
	if err != nil {
		t.Fatal(err)
	}
	e.hostile = e.Send(1, &contracts.FactoryAddress, nil, 5_000_000, create)
	e.hostileToken = contracts.B20Address(contracts.VariantAsset, e.Addr(1), salt)
	for _, tx := range []*types.Transaction{e.ethTransfer, e.tokenTransfer, e.failed, e.hostile} {
		e.WaitSealed(tx)
	}
	e.createBlock = e.WaitSealed(e.create)
	e.WaitFor("the hostile token indexed", func(*pending.Snapshot) bool {
		v := e.stocks.View()
		return v != nil && v.Token(e.hostileToken) != nil
	})
	// On a fast machine all that fits in fewer blocks than the home page
	// lists.
	e.WaitFor("a block more than the home page lists", func(s *pending.Snapshot) bool { return s.Head.NumberU64() >= uint64(cfg.HomeSize) })
	return e
}

// findTx finds the first sealed transaction to addr.
func findTx(t *testing.T, e *env, to common.Address) *types.Transaction {
	bc := e.Chain.BlockChain()
	for n := uint64(0); n <= e.Chain.Head().Number.Uint64(); n++ {
		for _, tx := range bc.GetBlockByNumber(n).Transactions() {
			if tx.To() != nil && *tx.To() == to {
				return tx
			}
		}
	}
	t.Fatalf("no transaction to %s", to.Hex())
	return nil
}

// within returns the part of body from the element with id to its end tag.
func within(t *testing.T, body, id, end string) string {
	t.Helper()
	i := strings.Index(body, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no element #%s", id)
	}
	j := strings.Index(body[i:], end)
	if j < 0 {
		t.Fatalf("#%s has no %s", id, end)
	}
	return body[i : i+j]
}

// rowOf is the table row of the transaction hash in body.
func rowOf(t *testing.T, body string, hash common.Hash) string {
	t.Helper()
	i := strings.Index(body, `<tr data-tx-hash="`+hash.Hex()+`"`)
	if i < 0 {
		t.Fatalf("no row of %s in:\n%s", hash.Hex(), body)
	}
	return body[i : i+strings.Index(body[i:], "</tr>")]
}

func wantAll(t *testing.T, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}

func TestExplorer(t *testing.T) {
	e := newExplorerChain(t)
	var rendered []string // every page body, for the URL check
	page := func(path string) string {
		t.Helper()
		body := e.page(path)
		rendered = append(rendered, body)
		return body
	}
	dev0, dev2 := e.Addr(0), e.Addr(2)

	t.Run("home", func(t *testing.T) {
		before := e.Store.Load().Head.NumberU64()
		body := page("/")
		head := e.Store.Load().Head.NumberU64()
		wantAll(t, "home", body, `id="head-number"`, `id="stat-block-time"`, `id="stat-tps"`, `id="stat-base-fee"`,
			`id="preconfirmed-txs"`, `id="latest-txs"`, `data-page="home"`, `data-ws="/ws"`, `data-chain-id="0x509f455"`)
		blocks := within(t, body, "latest-blocks", "</tbody>")
		if n := strings.Count(blocks, "<tr data-block-number="); n != 5 {
			t.Errorf("latest blocks has %d rows, want the home size 5", n)
		}
		// A block may seal while the page renders: its head is one of
		// those seen before and after.
		found := false
		for n := before; n <= head; n++ {
			found = found || strings.Contains(blocks, fmt.Sprintf(`data-block-number="%d"`, n))
		}
		if !found {
			t.Errorf("latest blocks lack the head (%d to %d):\n%s", before, head, blocks)
		}
		// The Method column names the protocol's calls.
		latest := within(t, body, "latest-txs", "</tbody>")
		wantAll(t, "createB20's row", rowOf(t, latest, e.hostile.Hash()), `<span class="fn">createB20</span>`)
		wantAll(t, "a token transfer's row", rowOf(t, latest, e.tokenTransfer.Hash()), `<span class="fn">transfer</span>`)
	})

	t.Run("block", func(t *testing.T) {
		body := page(fmt.Sprintf("/block/%d", e.createBlock))
		wantAll(t, "block page", body, e.create.Hash().Hex(), "createB20", `id="confirmations"`, "Fee recipient")
		byHash := page("/block/" + e.Chain.BlockChain().GetBlockByNumber(e.createBlock).Hash().Hex())
		if !strings.Contains(byHash, e.create.Hash().Hex()) {
			t.Error("the block by hash lacks its transaction")
		}
		page("/block/0")
	})

	t.Run("tx", func(t *testing.T) {
		body := page("/tx/" + e.create.Hash().Hex())
		wantAll(t, "createB20 page", body, `data-tx-status="sealed"`, "createB20", "B20Created", "RoleGranted", "MINT_ROLE",
			"grantRole", "updateExtraMetadata", "XX0000000R01", "Effective gas price", `id="tx-fee"`, `data-event="Transfer"`)
		body = page("/tx/" + e.tokenTransfer.Hash().Hex())
		wantAll(t, "token transfer page", body, `<span class="fn" title="transfer(address,uint256)">transfer</span>`, "10 XRBT", "success")
		body = page("/tx/" + e.failed.Hash().Hex())
		wantAll(t, "failed call page", body, `<span class="badge fail">failed</span>`)
		body = page("/tx/" + e.ethTransfer.Hash().Hex())
		wantAll(t, "transfer page", body, "1.5 ETH", "No input: a plain transfer.")
	})

	t.Run("address", func(t *testing.T) {
		body := page("/address/" + strings.ToLower(dev0.Hex()))
		// XSFD's multiplier is 1.5: 2,500 held is 3,750 scaled.
		wantAll(t, "address page", body, dev0.Hex(), `id="holdings"`, "XRBT", "990", "2,500", "3,750", "account (no code)", `id="older"`)
		older := regexp.MustCompile(`id="older" rel="next" href="([^"]+)"`).FindStringSubmatch(body)
		if older == nil {
			t.Fatal("no older link")
		}
		next := page(strings.ReplaceAll(older[1], "&amp;", "&"))
		if !strings.Contains(next, `id="address-txs"`) {
			t.Error("the older page lists no transactions")
		}
		transfers := page("/address/" + dev2.Hex() + "?view=transfers")
		wantAll(t, "transfers", transfers, `id="address-transfers"`, e.tokenTransfer.Hash().Hex(), `<span class="badge ok">in</span>`)
		// A token contract's page counts and lists the token's transfers.
		token := page("/address/" + e.xrbt.Hex())
		counts := regexp.MustCompile(`id="history-counts">[^<]*? ([\d,]+) transfers? of this token`).FindStringSubmatch(token)
		if counts == nil || counts[1] == "0" {
			t.Errorf("XRBT's address page counts no transfers of the token: %v", counts)
		}
		wantAll(t, "XRBT's address page", token, `id="tab-token"`)
		// Paged by cursor: every page, newest first, adds up to the count.
		var listed int
		var all string
		for path := "/address/" + e.xrbt.Hex() + "?view=token"; path != ""; {
			p := page(path)
			all += p
			listed += strings.Count(within(t, p, "address-transfers", "</tbody>"), "<tr ")
			path = ""
			if m := regexp.MustCompile(`id="older" rel="next" href="([^"]+)"`).FindStringSubmatch(p); m != nil {
				path = strings.ReplaceAll(m[1], "&amp;", "&")
			}
		}
		if !strings.Contains(all, e.tokenTransfer.Hash().Hex()) {
			t.Error("XRBT's address page does not list the token transfer")
		}
		if counts != nil && fmt.Sprint(listed) != counts[1] {
			t.Errorf("XRBT's address page lists %d transfers, counts %s", listed, counts[1])
		}
		factory := page("/address/" + contracts.FactoryAddress.Hex())
		wantAll(t, "factory", factory, "B20 factory", `data-contract="true"`)
	})

	t.Run("tokens", func(t *testing.T) {
		body := page("/tokens") + page("/tokens?start=2")
		for _, ex := range preview.Examples() {
			wantAll(t, "token list", body, ex.Symbol, ex.ISIN)
		}
		wantAll(t, "token list", body, "1.5", `rel="next"`)
		body = page("/token/" + e.xrbt.Hex())
		wantAll(t, "token page", body, "XX0000000R01", "Transfer sender", "0 (always allow)", `id="holders"`, `id="holders-next"`)
		next := regexp.MustCompile(`id="holders-next" rel="next" href="([^"]+)"`).FindStringSubmatch(body)
		if next == nil {
			t.Fatal("no next holders link")
		}
		page(next[1])
		transfers := page("/token/" + e.xrbt.Hex() + "?view=transfers")
		wantAll(t, "token transfers", transfers, `id="token-transfers"`, `aria-current="page">Transfers (`, `id="older"`)
		rows := within(t, transfers, "token-transfers", "</tbody>")
		if first := regexp.MustCompile(`data-block-number="(\d+)"`).FindAllStringSubmatch(rows, -1); len(first) < 2 {
			t.Errorf("XRBT's transfers: %d rows", len(first))
		} else {
			for i := 1; i < len(first); i++ {
				if a, b := first[i-1][1], first[i][1]; len(a) < len(b) || (len(a) == len(b) && a < b) {
					t.Errorf("token transfers not newest first: block %s before %s", a, b)
				}
			}
		}
	})

	t.Run("search", func(t *testing.T) {
		blockHash := e.Chain.BlockChain().GetBlockByNumber(e.createBlock).Hash().Hex()
		for q, want := range map[string]string{
			"xrbt":                             "/token/" + e.xrbt.Hex(),
			"example robotics inc. (example)":  "/token/" + e.xrbt.Hex(),
			"Robotics":                         "/token/" + e.xrbt.Hex(),
			fmt.Sprintf("0x%x", e.createBlock): fmt.Sprintf("/block/%d", e.createBlock),
			"no such token":                    "",
			fmt.Sprint(e.createBlock):          fmt.Sprintf("/block/%d", e.createBlock),
			" " + fmt.Sprint(e.createBlock):    fmt.Sprintf("/block/%d", e.createBlock),
			blockHash:                          "/block/" + blockHash,
			e.create.Hash().Hex():              "/tx/" + e.create.Hash().Hex(),
			strings.ToLower(dev0.Hex()):        "/address/" + dev0.Hex(),
			strings.ToLower(e.xrbt.Hex()[2:]):  "",
		} {
			resp := e.get("/search?q=" + urlQuery(q))
			if want == "" {
				if resp.StatusCode() != fasthttp.StatusNotFound {
					t.Errorf("search %q: status %d, want 404", q, resp.StatusCode())
				}
				continue
			}
			if resp.StatusCode() != fasthttp.StatusSeeOther || string(resp.Header.Peek("Location")) != want {
				t.Errorf("search %q: %d to %q, want 303 to %q", q, resp.StatusCode(), resp.Header.Peek("Location"), want)
			}
		}
	})

	t.Run("search lists the tokens a name may mean", func(t *testing.T) {
		body := page("/search?q=example")
		if n := strings.Count(within(t, body, "search-results", "</ul>"), "<li>"); n != min(len(preview.Examples()), e.ex.cfg.PageSize) {
			t.Errorf("search for a word of every example token's name lists %d tokens:\n%s", n, body)
		}
	})

	t.Run("faucet", func(t *testing.T) {
		body := page("/faucet")
		wantAll(t, "faucet", body, `id="faucet-form"`, `data-drip-url="/api/preview/faucet/drip"`, `data-cooldown="86400"`,
			`id="faucet-balance" data-wei="1000000000000000000000000"`, "1,000,000 ETH", "<noscript>", `id="faucet-tx"`)
	})

	t.Run("no faucet", func(t *testing.T) {
		d := e.ex.deps
		d.Faucet = nil
		ex, err := New(e.ex.cfg, d, e.ex.log)
		if err != nil {
			t.Fatal(err)
		}
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI("/faucet")
		ex.page(ex.faucet)(&ctx)
		body := string(ctx.Response.Body())
		if ctx.Response.StatusCode() != 200 || !strings.Contains(body, `id="faucet-off"`) || strings.Contains(body, `id="faucet-form"`) {
			t.Errorf("faucet page without a faucet: %d\n%s", ctx.Response.StatusCode(), body)
		}
	})

	t.Run("hostile strings", func(t *testing.T) {
		for _, path := range []string{"/tokens?start=2", "/token/" + e.hostileToken.Hex(), "/tx/" + e.hostile.Hash().Hex(), "/address/" + e.Addr(1).Hex()} {
			body := page(path)
			if strings.Contains(body, "<script>alert") || strings.Contains(body, "<b>X") {
				t.Errorf("%s holds the hostile name unescaped", path)
			}
			if !strings.Contains(body, "&lt;script&gt;alert(") && !strings.Contains(body, "&lt;b&gt;X") {
				t.Errorf("%s lacks the hostile name, escaped", path)
			}
		}
		resp := e.get("/search?q=" + urlQuery("<script>x</script>"))
		if resp.StatusCode() != fasthttp.StatusNotFound || strings.Contains(string(resp.Body()), "<script>x") {
			t.Errorf("search echo: status %d, body holds the query unescaped: %v", resp.StatusCode(), strings.Contains(string(resp.Body()), "<script>x"))
		}
	})

	t.Run("headers", func(t *testing.T) {
		resp := e.get("/tx/" + e.create.Hash().Hex())
		if cc := string(resp.Header.Peek("Cache-Control")); cc != "no-store" {
			t.Errorf("Cache-Control %q", cc)
		}
		if csp := string(resp.Header.Peek("Content-Security-Policy")); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("Content-Security-Policy %q", csp)
		}
		// Exact paths answer GET only (the node's router's rule); mounted ones HEAD too.
		if head := e.do("HEAD", "/token/"+e.xrbt.Hex()); head.StatusCode() != fasthttp.StatusOK {
			t.Errorf("HEAD /token/: %d", head.StatusCode())
		}
	})

	t.Run("bad inputs", func(t *testing.T) { badInputs(t, e.env) })

	t.Run("no other hosts", func(t *testing.T) {
		var files []string
		fs.WalkDir(assetFiles, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := assetFiles.ReadFile(p)
				files = append(files, string(b))
			}
			return err
		})
		fs.WalkDir(templateFiles, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := templateFiles.ReadFile(p)
				files = append(files, string(b))
			}
			return err
		})
		noOtherHosts(t, append(rendered, files...))
	})
}

// svgNamespace names SVG's XML namespace: an identifier, never fetched.
const svgNamespace = "http://www.w3.org/2000/svg"

// noOtherHosts fails on any absolute URL, and on any link, script, style
// or form target that is not a path on this host.
func noOtherHosts(t *testing.T, docs []string) {
	t.Helper()
	abs := regexp.MustCompile(`(?i)https?://`)
	attr := regexp.MustCompile(`(?i)\b(?:src|href|action)="([^"]*)"`)
	if len(docs) < 10 {
		t.Fatalf("only %d documents to check", len(docs))
	}
	for _, doc := range docs {
		if loc := abs.FindStringIndex(strings.ReplaceAll(doc, svgNamespace, "")); loc != nil {
			t.Errorf("absolute URL: %q", doc[max(0, loc[0]-40):min(len(doc), loc[1]+40)])
		}
		for _, m := range attr.FindAllStringSubmatch(doc, -1) {
			if v := m[1]; strings.HasPrefix(v, "//") || !(strings.HasPrefix(v, "/") || strings.HasPrefix(v, "?") || strings.HasPrefix(v, "{{")) {
				t.Errorf("link off this host: %s", m[0])
			}
		}
	}
}

func badInputs(t *testing.T, e *env) {
	zeros := "0x" + strings.Repeat("0", 64)
	tests := []struct {
		method, path string
		status       int
	}{
		{"GET", "/block/abc", 400},
		{"GET", "/block/-1", 400},
		{"GET", "/block/999999999", 404},
		{"GET", "/block/99999999999999999999999", 400},
		{"GET", "/block/" + zeros, 404},
		{"GET", "/block/", 404},
		{"GET", "/block/1/extra", 404},
		{"GET", "/block/1?start=abc", 400},
		{"GET", "/block/1?start=100000", 404},
		{"GET", "/tx/0x12", 400},
		{"GET", "/tx/" + zeros, 404},
		{"GET", "/tx/" + zeros[2:], 400},
		{"GET", "/address/nothex", 400},
		{"GET", "/address/0x" + strings.Repeat("g", 40), 400},
		{"GET", "/address/" + common.Address{1}.Hex() + "?before=1-2", 400},
		{"GET", "/address/" + common.Address{1}.Hex() + "?before=x-1-1", 400},
		{"GET", "/address/" + common.Address{1}.Hex() + "?view=secrets", 400},
		{"GET", "/token/" + common.Address{1}.Hex(), 404},
		{"GET", "/token/nothex", 400},
		{"GET", "/token/" + contracts.FactoryAddress.Hex() + "?after=zz", 400},
		{"GET", "/tokens?start=-5", 400},
		{"GET", "/tokens?start=100000", 404},
		{"GET", "/search?q=", 400},
		{"GET", "/search?q=%20%20", 400},
		{"GET", "/search", 400},
		{"GET", "/search?q=garbage", 404},
		{"GET", "/search?q=999999999", 404},
		{"GET", "/search?q=" + zeros, 404},
		{"GET", "/search?q=" + strings.Repeat("a", 5000), 400},
		{"POST", "/block/1", 405},
		{"DELETE", "/tx/" + zeros, 405},
		{"PUT", "/address/" + common.Address{1}.Hex(), 405},
		{"GET", "/assets/nothing.css", 404},
		{"POST", "/assets/nothing.css", 405},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+clip(tt.path, 40), func(t *testing.T) {
			resp := e.do(tt.method, tt.path)
			if resp.StatusCode() != tt.status {
				t.Fatalf("status %d, want %d; body:\n%s", resp.StatusCode(), tt.status, clip(string(resp.Body()), 400))
			}
			if strings.HasPrefix(tt.path, "/assets/") {
				return
			}
			body := string(resp.Body())
			if !strings.Contains(body, `id="error"`) || !strings.Contains(body, fmt.Sprintf(`data-status="%d"`, tt.status)) {
				t.Errorf("not an error page:\n%s", clip(body, 400))
			}
			if tt.status == 405 && string(resp.Header.Peek("Allow")) != "GET, HEAD" {
				t.Errorf("Allow %q", resp.Header.Peek("Allow"))
			}
		})
	}
}

func urlQuery(s string) string {
	var a fasthttp.Args
	a.Set("q", s)
	return strings.TrimPrefix(a.String(), "q=")
}
