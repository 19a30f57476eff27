package httpserver

import (
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stocknode/stocknode/internal/testcert"
)

// With --tls.cert and --tls.key the same port speaks HTTPS.
func TestTLS(t *testing.T) {
	certFile, keyFile, pool := testcert.SelfSigned(t)
	cfg := DefaultConfig()
	cfg.TLSCert, cfg.TLSKey = certFile, keyFile
	url := strings.Replace(start(t, cfg, echoRPC{size: 3}, healthy), "http://", "https://", 1)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"result":"aaa"`) || resp.TLS == nil {
		t.Fatalf("HTTPS: %d %s", resp.StatusCode, body)
	}
}
