package faucet

import (
	"math/big"
	"strings"
	"testing"
	"time"
)

func TestParseAmount(t *testing.T) {
	tests := []struct {
		in   string
		want string // wei, or the error's text
		ok   bool
	}{
		{"100000000000000000", "100000000000000000", true},
		{"0.1eth", "100000000000000000", true},
		{"0.1 ETH", "100000000000000000", true},
		{"1ether", "1000000000000000000", true},
		{"1.5gwei", "1500000000", true},
		{"1gwei", "1000000000", true},
		{"7wei", "7", true},
		{" 2eth ", "2000000000000000000", true},
		{"0.000000000000000001eth", "1", true},
		{"1.50eth", "1500000000000000000", true},
		{"0.0000000000000000001eth", "not a whole number of wei", false},
		{"0.5", "add a unit, such as 0.5eth", false},
		{"0", "more than 0", false},
		{"0.0eth", "more than 0", false},
		{"-1eth", "want wei", false},
		{"1e18", "want wei", false},
		{"1btc", "unknown unit", false},
		{"eth", "want wei", false},
		{"", "want wei", false},
		{"1.eth", "want wei", false},
		{"1,5eth", "want wei", false},
	}
	for _, tt := range tests {
		got, err := ParseAmount(tt.in)
		if tt.ok {
			if err != nil || got.String() != tt.want {
				t.Errorf("ParseAmount(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseAmount(%q) = %v, %v; want an error with %q", tt.in, got, err, tt.want)
		}
	}
}

func TestFormatEther(t *testing.T) {
	tests := []struct{ wei, want string }{
		{"100000000000000000", "0.1 ETH"},
		{"1000000000000000000", "1 ETH"},
		{"1000000000000000000000000000", "1000000000 ETH"},
		{"1", "0.000000000000000001 ETH"},
		{"0", "0 ETH"},
		{"1500000000000000001", "1.500000000000000001 ETH"},
		{"-250000000000000000", "-0.25 ETH"},
	}
	for _, tt := range tests {
		wei, _ := new(big.Int).SetString(tt.wei, 10)
		if got := FormatEther(wei); got != tt.want {
			t.Errorf("FormatEther(%s) = %s, want %s", tt.wei, got, tt.want)
		}
	}
}

func TestConfigCheck(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		err    string // "" for valid
	}{
		{"default", func(*Config) {}, ""},
		{"off needs no amount", func(c *Config) { c.Enabled, c.Amount = false, nil }, ""},
		{"no cooldown", func(c *Config) { c.Cooldown = 0 }, ""},
		{"negative cooldown", func(c *Config) { c.Cooldown = -time.Second }, "--faucet.cooldown"},
		{"no amount", func(c *Config) { c.Amount = nil }, "--faucet.amount"},
		{"zero amount", func(c *Config) { c.Amount = new(big.Int) }, "--faucet.amount"},
		{"network with a slash", func(c *Config) { c.Network = "pre/view" }, "--network.name"},
		{"network with a space", func(c *Config) { c.Network = "Base Preview" }, ""},
		{"network with a newline", func(c *Config) { c.Network = "pre\nview" }, "control character"},
		{"empty network", func(c *Config) { c.Network = "" }, "--network.name"},
		{"dot-dot network", func(c *Config) { c.Network = ".." }, "--network.name"},
		{"contract gas below a transfer's", func(c *Config) { c.ContractGas = 20_000 }, "below a transfer's"},
		{"unknown captcha", func(c *Config) { c.Captcha.Provider = "recaptcha" }, "--faucet.captcha"},
		{"captcha without secret", func(c *Config) { c.Captcha = CaptchaConfig{Provider: HCaptcha, SiteKey: "k"} }, "--faucet.captcha-secret"},
		{"secret without captcha", func(c *Config) { c.Captcha.Secret = "s" }, "add --faucet.captcha"},
		{"captcha", func(c *Config) { c.Captcha = CaptchaConfig{Provider: Turnstile, Secret: "s", SiteKey: "k"} }, ""},
		{"captcha URL", func(c *Config) {
			c.Captcha = CaptchaConfig{Provider: Turnstile, Secret: "s", SiteKey: "k", VerifyURL: "ftp://x"}
		}, "not an http(s) URL"},
	}
	for _, tt := range tests {
		cfg := DefaultConfig()
		tt.change(&cfg)
		_, err := cfg.check()
		if tt.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %v, want an error with %q", tt.name, err, tt.err)
		}
	}
	// Zero sizes take the defaults; a provider its own verify URL.
	got, err := Config{Enabled: true, Network: "preview", Amount: big.NewInt(1), Captcha: CaptchaConfig{Provider: Turnstile, Secret: "s", SiteKey: "k"}}.check()
	def := DefaultConfig()
	if err != nil || got.MaxBody != def.MaxBody || got.ContractGas != def.ContractGas || got.Tip.Cmp(def.Tip) != 0 ||
		got.Captcha.Timeout != def.Captcha.Timeout || got.Captcha.VerifyURL != "https://challenges.cloudflare.com/turnstile/v0/siteverify" {
		t.Errorf("defaults: %+v, %v", got, err)
	}
}
