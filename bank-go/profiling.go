package main

import (
	"net"
	"net/http"
	"net/http/pprof"
)

// serveProfiling serves net/http/pprof on addr, apart from the API: a CPU
// profile is what the harness asks for with PROFILE_CPU=1. A listener
// failure is sent to errs. The returned func stops it.
func serveProfiling(addr string, errs chan<- error) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux}
	go func() {
		if err := srv.Serve(ln); err != http.ErrServerClosed {
			errs <- err
		}
	}()
	return func() { _ = srv.Close() }, nil
}
