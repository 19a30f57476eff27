package web

import (
	"fmt"
	"time"
)

// faucetData is the faucet page.
type faucetData struct {
	// Available is false when the node has no faucet, or it is off.
	Available bool
	Info      FaucetInfo
	// DripURL is where the page's script posts {"address"}.
	DripURL string
	// StatusURL is the faucet API's status, which the page re-reads after
	// a drip.
	StatusURL string
	// CooldownSeconds drives the page's countdown after a drip.
	CooldownSeconds int64
	// Widget is the captcha the faucet requires, nil for none.
	Widget *captchaWidget
}

// captchaWidget is how a page shows a provider's captcha: its script, the
// element the script fills (which adds a form field holding the token the
// page sends as X-Captcha-Token), and the hosts the page must then allow.
type captchaWidget struct {
	Script  string
	Class   string
	SiteKey string
	hosts   string
}

// captchaWidgets are the providers the faucet verifies with (faucet.Turnstile,
// faucet.HCaptcha), as their documentation says to embed them.
var captchaWidgets = map[string]captchaWidget{
	"turnstile": {Script: "https://challenges.cloudflare.com/turnstile/v0/api.js", Class: "cf-turnstile", hosts: "https://challenges.cloudflare.com"},
	"hcaptcha":  {Script: "https://js.hcaptcha.com/1/api.js", Class: "h-captcha", hosts: "https://hcaptcha.com https://*.hcaptcha.com"},
}

// csp is the faucet page's Content-Security-Policy with the provider's hosts
// allowed for its script, frame, styles and calls.
func (w *captchaWidget) csp() string {
	return "default-src 'self'; script-src 'self' " + w.hosts + "; frame-src " + w.hosts + "; style-src 'self' 'unsafe-inline' " + w.hosts +
		"; connect-src 'self' " + w.hosts + "; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}

func (e *Explorer) faucet(r *request) (result, error) {
	d := faucetData{DripURL: e.cfg.FaucetAPI + "/drip", StatusURL: e.cfg.FaucetAPI + "/status"}
	if e.deps.Faucet != nil {
		info, err := e.deps.Faucet()
		if err != nil {
			return result{}, fmt.Errorf("faucet status: %w", err)
		}
		d.Info, d.Available = info, info.Enabled
		d.CooldownSeconds = int64(info.Cooldown.Round(time.Second) / time.Second)
		if w, ok := captchaWidgets[info.CaptchaProvider]; ok && d.Available {
			w.SiteKey = info.CaptchaSiteKey
			d.Widget = &w
		}
	}
	res := result{page: "faucet", title: "Faucet", data: d}
	if d.Widget != nil {
		res.csp = d.Widget.csp()
	}
	return res, nil
}
