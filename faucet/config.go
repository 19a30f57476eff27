package faucet

import (
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/params"

	"github.com/stocknode/stocknode/peer"
)

// Config is the faucet's configuration. Zero sizes and timeouts take the
// defaults of DefaultConfig; a zero Cooldown means no cooldown.
type Config struct {
	// Enabled turns on the drip and status endpoints (--faucet). Off, drip
	// answers 503 and status reports enabled:false; chain-health is served
	// either way.
	Enabled bool
	// Network is the path word of every endpoint: /api/{Network}/...
	Network string
	// Amount is one drip in wei (--faucet.amount).
	Amount *big.Int
	// Cooldown is how long a recipient address, and separately a client
	// IP address (an IPv6 /64), waits after a drip before the next
	// (--faucet.cooldown; 0: no wait).
	Cooldown time.Duration
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names
	// the client (--faucet.trusted-proxies); anyone else's is ignored.
	TrustedProxies peer.Proxies
	// Dir holds the cooldown database; empty keeps it in memory (--dev).
	Dir string
	// MaxBody is the largest drip request body in bytes; larger get 413.
	MaxBody int
	// Tip is a drip's priority fee per gas. On the preview chain the
	// faucet is the coinbase, so tips come back to it.
	Tip *big.Int
	// ContractGas is the gas limit of a drip to an account with code (a
	// contract, or an EIP-7702 delegated account), whose receive code
	// runs; a drip to an account without code takes 21,000.
	ContractGas uint64
	// Captcha, when its Provider is set, requires a solved captcha per drip.
	Captcha CaptchaConfig
}

// CaptchaConfig configures server-side captcha verification.
type CaptchaConfig struct {
	// Provider is "turnstile" (Cloudflare), "hcaptcha", or empty for none
	// (--faucet.captcha).
	Provider string
	// Secret is the provider's secret key (--faucet.captcha-secret);
	// SiteKey the public key a page renders the widget with
	// (--faucet.captcha-sitekey), reported by the status endpoint.
	Secret, SiteKey string
	// VerifyURL is the provider's siteverify endpoint; empty takes the
	// provider's own. Tests point it at a server of theirs.
	VerifyURL string
	// Timeout bounds one verification.
	Timeout time.Duration
}

// Captcha providers and their siteverify endpoints.
const (
	Turnstile = "turnstile"
	HCaptcha  = "hcaptcha"
)

var verifyURLs = map[string]string{
	Turnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
	HCaptcha:  "https://api.hcaptcha.com/siteverify",
}

// DefaultConfig is the preview network's faucet: 0.1 ETH per drip, once
// every 10 s per address and per client.
func DefaultConfig() Config {
	return Config{
		Enabled:     true,
		Network:     "preview",
		Amount:      big.NewInt(params.Ether / 10),
		Cooldown:    10 * time.Second,
		MaxBody:     1024,
		Tip:         big.NewInt(params.GWei / 1000),
		ContractGas: 100_000,
		Captcha:     CaptchaConfig{Timeout: 5 * time.Second},
	}
}

// check validates cfg and fills in the defaults of zero sizes and timeouts.
func (cfg Config) check() (Config, error) {
	def := DefaultConfig()
	if err := checkSegment(cfg.Network); err != nil {
		return cfg, fmt.Errorf("network name %q %v: the faucet's paths are /api/{network}/...; choose another (--network.name)", cfg.Network, err)
	}
	if cfg.Cooldown < 0 {
		return cfg, fmt.Errorf("faucet cooldown %v is negative: give a duration such as 10s, or 0 for none (--faucet.cooldown)", cfg.Cooldown)
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = def.MaxBody
	}
	if cfg.Tip == nil {
		cfg.Tip = def.Tip
	}
	if cfg.ContractGas == 0 {
		cfg.ContractGas = def.ContractGas
	}
	if cfg.ContractGas < params.TxGas {
		return cfg, fmt.Errorf("faucet gas for contracts %d is below a transfer's %d", cfg.ContractGas, params.TxGas)
	}
	if cfg.Enabled && (cfg.Amount == nil || cfg.Amount.Sign() <= 0) {
		return cfg, errors.New("faucet amount must be more than 0: give wei or a unit, such as 0.1eth (--faucet.amount)")
	}
	if cfg.Tip.Sign() < 0 {
		return cfg, fmt.Errorf("faucet tip %v is negative", cfg.Tip)
	}
	var err error
	cfg.Captcha, err = cfg.Captcha.check()
	return cfg, err
}

func (c CaptchaConfig) check() (CaptchaConfig, error) {
	if c.Timeout <= 0 {
		c.Timeout = DefaultConfig().Captcha.Timeout
	}
	if c.Provider == "" {
		if c.Secret != "" || c.SiteKey != "" {
			return c, errors.New("a captcha secret or site key is set but no provider: add --faucet.captcha turnstile or hcaptcha")
		}
		return c, nil
	}
	def, ok := verifyURLs[c.Provider]
	if !ok {
		return c, fmt.Errorf("captcha provider %q is unknown: use %q or %q (--faucet.captcha)", c.Provider, Turnstile, HCaptcha)
	}
	if c.Secret == "" || c.SiteKey == "" {
		return c, fmt.Errorf("captcha %s needs the secret and the site key of its widget (--faucet.captcha-secret, --faucet.captcha-sitekey)", c.Provider)
	}
	if c.VerifyURL == "" {
		c.VerifyURL = def
	}
	if u, err := url.Parse(c.VerifyURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return c, fmt.Errorf("captcha verify URL %q is not an http(s) URL", c.VerifyURL)
	}
	return c, nil
}

// checkSegment rejects what cannot be one segment of a URL path: the
// server decodes escapes and resolves dot segments before routing, so a
// name with a slash, a dot segment or a control character never matches.
func checkSegment(s string) error {
	switch {
	case s == "":
		return errors.New("is empty")
	case s == "." || s == "..":
		return errors.New("is a dot segment")
	case strings.ContainsFunc(s, func(r rune) bool { return r == '/' || r == '\\' || r < 0x20 || r == 0x7f }):
		return errors.New("holds a slash or a control character")
	}
	return nil
}

// amountRe is a decimal number and an optional unit.
var amountRe = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)$`)

// units are the denominations ParseAmount accepts, as powers of ten of wei.
var units = map[string]int{"": 0, "wei": 0, "gwei": 9, "eth": 18, "ether": 18}

// ParseAmount reads an amount of ether: wei as a bare integer
// ("100000000000000000"), or a decimal number with a unit of wei, gwei, eth
// or ether ("0.1eth", "1.5 gwei"). It must come to a whole, positive
// number of wei.
func ParseAmount(s string) (*big.Int, error) {
	m := amountRe.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return nil, fmt.Errorf("amount %q: want wei, or a number with a unit such as 0.1eth or 1gwei", s)
	}
	exp, ok := units[m[2]]
	if !ok {
		return nil, fmt.Errorf("amount %q: unknown unit %q (want wei, gwei, eth or ether)", s, m[2])
	}
	whole, frac, _ := strings.Cut(m[1], ".")
	frac = strings.TrimRight(frac, "0")
	if len(frac) > exp && m[2] == "" {
		return nil, fmt.Errorf("amount %q has no unit, so it is wei, and is not a whole number of them: add a unit, such as %seth", s, m[1])
	}
	if len(frac) > exp {
		return nil, fmt.Errorf("amount %q is not a whole number of wei", s)
	}
	wei, _ := new(big.Int).SetString(whole+frac+strings.Repeat("0", exp-len(frac)), 10) // digits only
	if wei.Sign() == 0 {
		return nil, fmt.Errorf("amount %q: must be more than 0", s)
	}
	return wei, nil
}

// FormatEther writes wei as ether, with no trailing zeros: "0.1 ETH".
func FormatEther(wei *big.Int) string {
	s := new(big.Int).Abs(wei).String()
	if len(s) <= 18 {
		s = strings.Repeat("0", 19-len(s)) + s
	}
	whole, frac := s[:len(s)-18], strings.TrimRight(s[len(s)-18:], "0")
	if wei.Sign() < 0 {
		whole = "-" + whole
	}
	if frac == "" {
		return whole + " ETH"
	}
	return whole + "." + frac + " ETH"
}
