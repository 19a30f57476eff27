package faucet

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stocknode/stocknode/internal/httpapi"
)

// verifier is a stand-in for Turnstile's and hCaptcha's siteverify: it
// accepts the token "good", rejects others, fails on "boom" and stalls on
// "slow". It records the forms it was sent.
type verifier struct {
	mu    sync.Mutex
	forms []url.Values
}

func (v *verifier) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || r.ParseForm() != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	v.mu.Lock()
	v.forms = append(v.forms, r.PostForm)
	v.mu.Unlock()
	switch r.PostForm.Get("response") {
	case "good":
		w.Write([]byte(`{"success":true,"error-codes":[]}`))
	case "boom":
		http.Error(w, "internal error", http.StatusInternalServerError)
	case "slow":
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	default:
		w.Write([]byte(`{"success":false,"error-codes":["invalid-input-response"]}`))
	}
}

func (v *verifier) last() url.Values {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.forms) == 0 {
		return nil
	}
	return v.forms[len(v.forms)-1]
}

// TestCaptcha: with a captcha configured, a drip needs a token the
// provider accepts, verified on the server; a rejected token is a 403, an
// unreachable provider a 503, and neither spends a cooldown.
func TestCaptcha(t *testing.T) {
	e := newEnv(t)
	e.Run()
	v := new(verifier)
	srv := httptest.NewServer(v)
	defer srv.Close()
	down := httptest.NewServer(v)
	downURL := down.URL
	down.Close()

	for _, provider := range []string{Turnstile, HCaptcha} {
		t.Run(provider, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Captcha = CaptchaConfig{Provider: provider, Secret: "s3cret", SiteKey: "site-" + provider, VerifyURL: srv.URL, Timeout: 300 * time.Millisecond}
			f := e.newFaucet(cfg, e.backend(e.Pool, e.key))
			cfgDown := cfg
			cfgDown.Captcha.VerifyURL = downURL
			fDown := e.newFaucet(cfgDown, e.backend(e.Pool, e.key))
			to := freshAddress(t)
			tests := []struct {
				name   string
				f      *Faucet
				token  string
				status int
				code   int
				msg    string
			}{
				{"no token", f, "", 403, httpapi.PermissionDenied, "X-Captcha-Token header"},
				{"rejected", f, "forged", 403, httpapi.PermissionDenied, "invalid-input-response"},
				{"verifier fails", f, "boom", 503, httpapi.Unavailable, "500 Internal Server Error"},
				{"verifier too slow", f, "slow", 503, httpapi.Unavailable, "captcha verification"},
				{"verifier down", fDown, "good", 503, httpapi.Unavailable, "captcha verification"},
			}
			for _, tt := range tests {
				header := map[string]string{}
				if tt.token != "" {
					header[CaptchaHeader] = tt.token
				}
				a := askDrip(tt.f, to.Hex(), "192.0.2.7", header)
				s := a.apiStatus(t)
				if a.status != tt.status || s.Code != tt.code || !strings.Contains(s.Message, tt.msg) {
					t.Errorf("%s: %d %+v, want %d code %d with %q", tt.name, a.status, s, tt.status, tt.code, tt.msg)
				}
			}
			// None of that spent the address's or the client's cooldown.
			long := strings.Repeat("t", 2048) // Turnstile's tokens run to 2 KB
			a := askDrip(f, to.Hex(), "192.0.2.7", map[string]string{CaptchaHeader: "good"})
			if a.status != 200 {
				t.Fatalf("solved: %d %s", a.status, a.body)
			}
			form := v.last()
			want := url.Values{"secret": {"s3cret"}, "response": {"good"}, "remoteip": {"192.0.2.7"}}
			if provider == HCaptcha {
				want.Set("sitekey", "site-hcaptcha")
			}
			if form.Encode() != want.Encode() {
				t.Errorf("verifier got %v, want %v", form, want)
			}
			a = askDrip(f, freshAddress(t).Hex(), "192.0.2.8", map[string]string{CaptchaHeader: long})
			if a.status != 403 || v.last().Get("response") != long {
				t.Errorf("2 KB token: %d %s, verifier got %d bytes", a.status, a.body, len(v.last().Get("response")))
			}
		})
	}
}
