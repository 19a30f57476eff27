package target

import "testing"

func TestCheckLoopback(t *testing.T) {
	for raw, ok := range map[string]bool{
		"http://127.0.0.1:8545":    true,
		"ws://localhost:8545/ws":   true,
		"http://[::1]:8545":        true,
		"http://10.0.0.1:8545":     false,
		"http://example.com:8545/": false,
	} {
		if err := CheckLoopback(raw); (err == nil) != ok {
			t.Errorf("CheckLoopback(%q) = %v", raw, err)
		}
	}
}

func TestHostAndPath(t *testing.T) {
	addr, uri, host, err := HostAndPath("http://127.0.0.1:8545/preconf?x=1")
	if err != nil || addr != "127.0.0.1:8545" || uri != "/preconf?x=1" || host != "127.0.0.1:8545" {
		t.Fatalf("HostAndPath = %q %q %q %v", addr, uri, host, err)
	}
	if addr, uri, _, _ := HostAndPath("http://localhost"); addr != "localhost:80" || uri != "/" {
		t.Fatalf("HostAndPath without port or path = %q %q", addr, uri)
	}
	if _, _, _, err := HostAndPath("ws://127.0.0.1:8545"); err == nil {
		t.Fatal("a ws:// URL was split")
	}
}
