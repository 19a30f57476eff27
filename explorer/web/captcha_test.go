package web

import (
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// TestFaucetCaptchaWidget: with a captcha configured, the faucet page shows
// the provider's widget and allows its hosts, and only there; the cached
// page keeps the same policy.
func TestFaucetCaptchaWidget(t *testing.T) {
	e := newEnv(t, DefaultConfig(), 200*time.Millisecond, 50*time.Millisecond)
	tests := []struct {
		provider, class, host string
	}{
		{"turnstile", "cf-turnstile", "https://challenges.cloudflare.com"},
		{"hcaptcha", "h-captcha", "https://*.hcaptcha.com"},
		{"", "", ""},
	}
	for _, tt := range tests {
		d := e.ex.deps
		d.Faucet = func() (FaucetInfo, error) {
			info, err := fakeFaucet()
			info.CaptchaProvider, info.CaptchaSiteKey = tt.provider, "site<key>"
			return info, err
		}
		ex, err := New(e.ex.cfg, d, e.ex.log)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ { // rendered, then from the page cache
			var ctx fasthttp.RequestCtx
			ctx.Request.SetRequestURI("/faucet")
			ex.page(ex.faucet)(&ctx)
			body, csp := string(ctx.Response.Body()), string(ctx.Response.Header.Peek("Content-Security-Policy"))
			if ctx.Response.StatusCode() != 200 {
				t.Fatalf("%q: status %d", tt.provider, ctx.Response.StatusCode())
			}
			if tt.provider == "" {
				if strings.Contains(body, "faucet-captcha") || strings.Contains(csp, "https://") {
					t.Errorf("no captcha, yet a widget or another host:\n%s\n%s", csp, body)
				}
				continue
			}
			if !strings.Contains(body, `class="`+tt.class+`" data-sitekey="site&lt;key&gt;"`) || !strings.Contains(body, `<script src="https://`) {
				t.Errorf("%s: no widget in the page:\n%s", tt.provider, body)
			}
			if !strings.Contains(csp, "script-src 'self' ") || !strings.Contains(csp, tt.host) {
				t.Errorf("%s (request %d): CSP %q does not allow %s", tt.provider, i, csp, tt.host)
			}
		}
	}
}
