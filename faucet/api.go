package faucet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/valyala/fasthttp"

	"github.com/stocknode/stocknode/drip"
	"github.com/stocknode/stocknode/internal/httpapi"
)

// Paths under /api/{network}/.
const (
	pathDrip   = "faucet/drip"
	pathStatus = "faucet/status"
	pathHealth = "chain-health"
)

// Handler serves the faucet's paths, whatever the method.
func (f *Faucet) Handler(ctx *fasthttp.RequestCtx) {
	path := ctx.Path()
	if !bytes.HasPrefix(path, []byte(f.prefix)) {
		httpapi.NotFound(ctx)
		return
	}
	read := ctx.IsGet() || ctx.IsHead()
	switch string(path[len(f.prefix):]) {
	case pathDrip:
		if !ctx.IsPost() {
			wrongMethod(ctx, "POST")
			return
		}
		f.drip(ctx)
	case pathStatus:
		if !read {
			wrongMethod(ctx, "GET, HEAD")
			return
		}
		f.status(ctx)
	case pathHealth:
		if !read {
			wrongMethod(ctx, "GET, HEAD")
			return
		}
		writeJSON(ctx, f.health.report(time.Now()))
	default:
		httpapi.NotFound(ctx)
	}
}

// wrongMethod answers as grpc-gateway (and ../rest) do.
func wrongMethod(ctx *fasthttp.RequestCtx, allow string) {
	ctx.Response.Header.Set("Allow", allow)
	httpapi.Write(ctx, fasthttp.StatusNotImplemented, httpapi.Unimplemented, "Method Not Allowed")
}

// apiError is an answer other than 200.
type apiError struct {
	status, code int
	msg          string
	retryAfter   time.Duration // 429's
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) *apiError {
	return &apiError{status: fasthttp.StatusBadRequest, code: httpapi.InvalidArgument, msg: fmt.Sprintf(format, args...)}
}

func unavailable(format string, args ...any) *apiError {
	return &apiError{status: fasthttp.StatusServiceUnavailable, code: httpapi.Unavailable, msg: fmt.Sprintf(format, args...)}
}

func writeError(ctx *fasthttp.RequestCtx, err error) {
	var e *apiError
	if !errors.As(err, &e) {
		e = &apiError{status: fasthttp.StatusInternalServerError, code: httpapi.Internal, msg: err.Error()}
	}
	if e.retryAfter > 0 {
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(ceilSeconds(e.retryAfter)))
	}
	httpapi.Write(ctx, e.status, e.code, e.msg)
}

func writeJSON(ctx *fasthttp.RequestCtx, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		panic("faucet: encode answer: " + err.Error()) // strings, numbers and bools
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetContentType("application/json")
	ctx.SetBody(body)
}

// dripAnswer is a drip's 200.
type dripAnswer struct {
	TxHash    common.Hash `json:"tx_hash"`
	AmountWei string      `json:"amount_wei"`
	To        string      `json:"to"`
}

func (f *Faucet) drip(ctx *fasthttp.RequestCtx) {
	if !f.cfg.Enabled {
		writeError(ctx, unavailable("the faucet is off on this node (--faucet=false)"))
		return
	}
	to, err := f.dripRequest(ctx)
	if err != nil {
		writeError(ctx, err)
		return
	}
	req := drip.Request{To: to, Client: f.client(ctx), Captcha: string(ctx.Request.Header.Peek(CaptchaHeader))}
	if f.b.Remote != nil {
		writeResult(ctx, f.b.Remote(ctx, req))
		return
	}
	tx, err := f.dripTo(ctx, req)
	if err != nil {
		writeError(ctx, err)
		return
	}
	writeJSON(ctx, dripAnswer{TxHash: tx.Hash(), AmountWei: tx.Value().String(), To: to.Hex()})
}

// dripRequest reads and checks the request: content type, size, body.
func (f *Faucet) dripRequest(ctx *fasthttp.RequestCtx) (common.Address, error) {
	if !isJSON(ctx.Request.Header.ContentType()) {
		return common.Address{}, &apiError{status: fasthttp.StatusUnsupportedMediaType, code: httpapi.InvalidArgument,
			msg: `content type must be application/json, with a body such as {"address":"0x..."}`}
	}
	body := ctx.PostBody()
	if len(body) > f.cfg.MaxBody {
		return common.Address{}, &apiError{status: fasthttp.StatusRequestEntityTooLarge, code: httpapi.InvalidArgument,
			msg: fmt.Sprintf(`request body is %d bytes, the limit is %d: send only {"address":"0x..."} (a captcha token goes in the %s header)`, len(body), f.cfg.MaxBody, CaptchaHeader)}
	}
	to, err := parseDrip(body)
	if err != nil {
		return common.Address{}, err
	}
	if to == (common.Address{}) || to == f.addr {
		return common.Address{}, badRequest("address: %s cannot receive drips; name your own account", to.Hex())
	}
	return to, nil
}

// parseDrip reads {"address":"0x..."}; other fields are ignored.
func parseDrip(body []byte) (common.Address, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return common.Address{}, badRequest(`request body is empty: send {"address":"0x..."}`)
	}
	var req struct {
		Address json.RawMessage `json:"address"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return common.Address{}, badRequest(`request body must be a JSON object such as {"address":"0x..."}`)
		}
		return common.Address{}, badRequest(`request body is not JSON (%v): send {"address":"0x..."}`, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return common.Address{}, badRequest(`request body has more after its JSON object: send only {"address":"0x..."}`)
	}
	if len(req.Address) == 0 || string(req.Address) == "null" {
		return common.Address{}, badRequest(`address: missing: send {"address":"0x..."}`)
	}
	var s string
	if err := json.Unmarshal(req.Address, &s); err != nil {
		return common.Address{}, badRequest(`address: want a string such as "0x..."`)
	}
	addr, err := httpapi.ParseAddress(s)
	if err != nil {
		return common.Address{}, badRequest("address: %v", err)
	}
	return addr, nil
}

// dripTo sends a drip to req.To within the cooldowns of req.To and the client.
func (f *Faucet) dripTo(ctx context.Context, req drip.Request) (*types.Transaction, error) {
	to, client := req.To, req.Client
	who := clientKey(client)
	if req.Replica != "" {
		who = replicaKey(req.Replica)
	}
	res, w, err := f.cools.reserve(addressKey(to), who)
	if err != nil {
		return nil, unavailable("%v; retry in a moment", err)
	}
	if w != nil {
		return nil, tooSoon(w)
	}
	tx, err := f.transfer(ctx, req)
	if err != nil {
		res.release()
		return nil, err
	}
	if err := res.commit(to); err != nil {
		// The drip is out; only its cooldown is lost.
		f.log.Error("Faucet drip sent but its cooldown not recorded", "to", to, "tx", tx.Hash(), "err", err)
	}
	f.log.Debug("Faucet drip", "to", to, "client", who, "tx", tx.Hash(), "nonce", tx.Nonce())
	return tx, nil
}

// tooSoon is the 429 of a cooldown.
func tooSoon(w *wait) *apiError {
	msg := fmt.Sprintf("%s may drip again in %ds", w.key, ceilSeconds(w.d))
	if w.inProgress {
		msg = fmt.Sprintf("a drip for %s is under way; it may drip again in %ds", w.key, ceilSeconds(w.d))
	}
	return &apiError{status: fasthttp.StatusTooManyRequests, code: httpapi.ResourceExhausted, msg: msg, retryAfter: w.d}
}

// transfer verifies the captcha, then prices the drip, checks that its
// recipient can receive it, and signs and pools it.
func (f *Faucet) transfer(ctx context.Context, req drip.Request) (*types.Transaction, error) {
	if f.captcha != nil {
		err := f.captcha.verify(ctx, req.Captcha, req.Client)
		if errors.Is(err, errCaptcha) {
			return nil, &apiError{status: fasthttp.StatusForbidden, code: httpapi.PermissionDenied, msg: err.Error()}
		}
		if err != nil {
			return nil, unavailable("%v; retry in a moment", err)
		}
	}
	snap := f.b.Snapshots.Load()
	if snap == nil {
		return nil, unavailable("the node is starting; retry in a moment")
	}
	t, err := f.signer.plan(snap, req.To, f.cfg.Amount)
	if err != nil {
		return nil, f.notSent(err)
	}
	if err := f.receives(t); err != nil {
		return nil, err
	}
	tx, err := f.signer.send(t)
	if err != nil {
		return nil, f.notSent(err)
	}
	f.empty.Store(false)
	return tx, nil
}

// notSent answers a drip that could not be priced or pooled: an empty
// faucet, or the pool's refusal.
func (f *Faucet) notSent(err error) error {
	if errors.Is(err, errEmpty) {
		if f.empty.CompareAndSwap(false, true) { // once, not once per request
			f.log.Warn("Faucet cannot pay for a drip: refill it", "err", err)
		}
		return unavailable("the faucet is empty (%v); try again after the operator refills it", err)
	}
	return unavailable("the drip was not sent (%v); retry in a moment", err)
}

// client is the address cooldowns count: the socket's peer, or whom a
// trusted proxy names in X-Forwarded-For.
func (f *Faucet) client(ctx *fasthttp.RequestCtx) netip.Addr {
	var socket netip.Addr
	if tcp, ok := ctx.RemoteAddr().(*net.TCPAddr); ok {
		socket = tcp.AddrPort().Addr().Unmap()
	}
	if len(f.cfg.TrustedProxies) == 0 {
		return socket
	}
	// Several header lines are one list (RFC 9110 5.3): read them all, or
	// a client's own line would hide the one its proxy appended.
	xff := bytes.Join(ctx.Request.Header.PeekAll("X-Forwarded-For"), []byte(","))
	return f.cfg.TrustedProxies.Client(socket, xff)
}

// statusAnswer is the status endpoint's 200.
type statusAnswer struct {
	Enabled       bool          `json:"enabled"`
	Network       string        `json:"network"`
	ChainID       string        `json:"chain_id"`
	Address       string        `json:"address"`
	BalanceWei    string        `json:"balance_wei"`
	AmountWei     string        `json:"amount_wei"`
	CooldownSecs  float64       `json:"cooldown_secs"`
	DripsLastHour int           `json:"drips_last_hour"`
	Captcha       *captchaShown `json:"captcha,omitempty"`
}

// captchaShown is what a page needs to render the captcha widget.
type captchaShown struct {
	Provider string `json:"provider"`
	SiteKey  string `json:"site_key"`
}

func (f *Faucet) status(ctx *fasthttp.RequestCtx) {
	info, err := f.Info()
	if err != nil {
		writeError(ctx, unavailable("the faucet's balance could not be read (%v); retry in a moment", err))
		return
	}
	a := statusAnswer{
		Enabled:       info.Enabled,
		Network:       f.cfg.Network,
		ChainID:       f.b.ChainID.String(),
		Address:       info.Address.Hex(),
		BalanceWei:    info.Balance.String(),
		AmountWei:     info.Amount.String(),
		CooldownSecs:  info.Cooldown.Seconds(),
		DripsLastHour: info.DripsLastHour,
	}
	if f.captcha != nil {
		a.Captcha = &captchaShown{Provider: f.cfg.Captcha.Provider, SiteKey: f.cfg.Captcha.SiteKey}
	}
	writeJSON(ctx, a)
}

// Info is the faucet's state, as its status endpoint and the faucet page
// report it.
type Info struct {
	Enabled bool
	Address common.Address
	// Balance is the faucet's pending balance; Amount one drip (wei).
	Balance, Amount *big.Int
	Cooldown        time.Duration
	DripsLastHour   int
	// CaptchaProvider and CaptchaSiteKey name the captcha a drip needs
	// (empty: none); the secret stays on the server.
	CaptchaProvider, CaptchaSiteKey string
}

// Info reads the faucet's state; only the balance read can fail.
func (f *Faucet) Info() (Info, error) {
	info := Info{Enabled: f.cfg.Enabled, Address: f.addr, Balance: new(big.Int), Amount: new(big.Int), Cooldown: f.cfg.Cooldown}
	if f.captcha != nil {
		info.CaptchaProvider, info.CaptchaSiteKey = f.cfg.Captcha.Provider, f.cfg.Captcha.SiteKey
	}
	if f.cfg.Amount != nil {
		info.Amount = new(big.Int).Set(f.cfg.Amount)
	}
	if f.cools != nil {
		info.DripsLastHour = f.cools.drips()
	}
	if snap := f.b.Snapshots.Load(); snap != nil {
		acct, err := snap.PendingReader().Account(f.addr)
		if err != nil {
			return info, err
		}
		info.Balance = balanceOf(acct)
	}
	return info, nil
}

// isJSON accepts application/json with parameters (charset).
func isJSON(ct []byte) bool {
	if i := bytes.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return bytes.EqualFold(bytes.TrimSpace(ct), []byte("application/json"))
}

// ceilSeconds is d in whole seconds, rounded up, at least 1.
func ceilSeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}
