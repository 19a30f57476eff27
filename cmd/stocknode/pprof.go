package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"

	"github.com/stocknode/stocknode/metrics"
)

// dropHeapProfile turns the runtime's heap profile off, for a node whose
// profiles nothing can read (--pprof off). The profile records a stack
// for about every 512 KiB allocated, and for every allocation that large,
// which the EVM's memories and log copies make often: 2% of the node's CPU
// while it traced the execution-apis chain's blocks.
func dropHeapProfile() {
	runtime.MemProfileRate = 0
}

// serveAdmin serves the admin listener on addr (never the public port)
// until ctx ends: Go profiles at /debug/pprof/ and Prometheus metrics at
// /metrics, each when asked for.
func serveAdmin(ctx context.Context, addr string, withPprof bool, reg *metrics.Registry, log *slog.Logger) error {
	mux := http.NewServeMux()
	if withPprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	if reg != nil {
		mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			reg.WriteTo(w)
		})
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	log.Info("Admin listener", "url", "http://"+ln.Addr().String(), "pprof", withPprof, "metrics", reg != nil)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("admin server", "err", err)
		}
	}()
	return nil
}
