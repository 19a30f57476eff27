package main

import (
	"flag"
	"fmt"

	"github.com/stocknode/stocknode/app"
	"github.com/stocknode/stocknode/faucet"
	"github.com/stocknode/stocknode/peer"
)

// faucetFlags registers the faucet's flags over faucet.DefaultConfig; the
// values that need parsing are parsed as flags, so a bad one stops the
// node at once with the flag's name.
func faucetFlags(fs *flag.FlagSet, cfg *app.Config) {
	cfg.Faucet = faucet.DefaultConfig()
	f := &cfg.Faucet
	fs.BoolVar(&f.Enabled, "faucet", f.Enabled, "serve the faucet API: POST /api/{network}/faucet/drip, GET /api/{network}/faucet/status (chain-health is served either way)")
	fs.Func("faucet.amount", "ether per drip: wei, or a number and a unit (wei, gwei, eth), such as 1gwei (default 0.1eth)", func(s string) error {
		amount, err := faucet.ParseAmount(s)
		if err != nil {
			return err
		}
		f.Amount = amount
		return nil
	})
	fs.DurationVar(&f.Cooldown, "faucet.cooldown", f.Cooldown, "wait between drips to one address and, separately, from one client IP (an IPv6 /64); 0: none")
	fs.Func("faucet.trusted-proxies", "addresses or CIDRs of reverse proxies whose X-Forwarded-For names the faucet's client (default none: the connection's address)", func(s string) error {
		proxies, err := peer.ParseProxies(s)
		if err != nil {
			return fmt.Errorf("%w (want addresses or CIDRs, comma-separated)", err)
		}
		f.TrustedProxies = proxies
		return nil
	})
	fs.StringVar(&f.Captcha.Provider, "faucet.captcha", "", "require a captcha per drip, verified with the provider: turnstile or hcaptcha (default none)")
	fs.StringVar(&f.Captcha.Secret, "faucet.captcha-secret", "", "the captcha provider's secret key")
	fs.StringVar(&f.Captcha.SiteKey, "faucet.captcha-sitekey", "", "the captcha widget's site key, reported by the status endpoint for a page to render the widget")
}
