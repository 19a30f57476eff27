package app_test

import (
	"crypto/tls"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/stocknode/stocknode/internal/testcert"
	"github.com/stocknode/stocknode/node/ws"
)

// With TLS on, /ws is WSS on the same port and notifications flow (through
// the flusher path: a TLS socket takes no raw writes).
func TestWSS(t *testing.T) {
	certFile, keyFile, pool := testcert.SelfSigned(t)
	n := startNodeTLS(t, 50*time.Millisecond, ws.DefaultConfig(), certFile, keyFile)
	dialer := &websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: pool}}
	wc := n.dialWith(dialer)
	sub := wc.subscribe("newHeads")
	heads := wc.waitNotes(sub, 3, 5*time.Second)
	if number(t, heads[2]) != number(t, heads[0])+2 {
		t.Fatalf("heads over WSS not consecutive")
	}
}
