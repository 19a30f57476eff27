package faucet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// CaptchaHeader carries a drip's captcha token: Turnstile's run to 2 KB,
// beyond the body bound, and a header keeps the body the spec's.
const CaptchaHeader = "X-Captcha-Token"

// maxVerifyAnswer bounds what is read of a verifier's answer.
const maxVerifyAnswer = 64 << 10

// errCaptcha is a token the provider did not accept (403); other
// verification errors mean the provider could not be asked (503).
var errCaptcha = errors.New("captcha not solved")

// captcha verifies tokens with the provider's siteverify endpoint.
type captcha struct {
	cfg    CaptchaConfig
	client *http.Client
}

func newCaptcha(cfg CaptchaConfig) *captcha {
	if cfg.Provider == "" {
		return nil
	}
	return &captcha{cfg: cfg, client: &http.Client{Timeout: cfg.Timeout}}
}

// verifyAnswer is the part of Turnstile's and hCaptcha's answer we read.
type verifyAnswer struct {
	Success    bool     `json:"success"`
	ErrorCodes []string `json:"error-codes"`
}

// verify asks the provider whether token was solved by client; ctx is the
// request's, so a shutdown stops the wait.
func (c *captcha) verify(ctx context.Context, token string, client netip.Addr) error {
	if token == "" {
		return fmt.Errorf("%w: send the %s widget's token in the %s header", errCaptcha, c.cfg.Provider, CaptchaHeader)
	}
	form := url.Values{"secret": {c.cfg.Secret}, "response": {token}}
	if client.IsValid() {
		form.Set("remoteip", client.String())
	}
	if c.cfg.Provider == HCaptcha {
		form.Set("sitekey", c.cfg.SiteKey) // hCaptcha checks the token was made for it
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.VerifyURL, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("captcha verification: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.client.Do(req)
	if err != nil {
		return fmt.Errorf("captcha verification: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("captcha verification: the %s verifier answered %s", c.cfg.Provider, resp.Status)
	}
	var answer verifyAnswer
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxVerifyAnswer)).Decode(&answer); err != nil {
		return fmt.Errorf("captcha verification: the %s verifier's answer: %w", c.cfg.Provider, err)
	}
	if !answer.Success {
		return fmt.Errorf("%w: the %s verifier rejected the token (%s); solve the captcha again", errCaptcha, c.cfg.Provider, strings.Join(answer.ErrorCodes, ", "))
	}
	return nil
}
