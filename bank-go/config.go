package main

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"time"

	"bankbench/bank-go/store"
)

// config is the service's settings.
type config struct {
	addr  string // HTTP listen address
	store store.Config
	// maxConcurrent is the admission limit: the most requests the service
	// holds at once (server.NewServer).
	maxConcurrent int
	// pprofAddr is where net/http/pprof listens (PPROF_ADDR), off when
	// empty. It must be a loopback address: profiles are not for clients.
	pprofAddr string
}

// loadConfig reads the settings from getenv; the names and defaults are
// those of the Java service, and an empty value means unset. Invalid values
// are an error: better not start than run a benchmark with settings nobody
// chose.
func loadConfig(getenv func(string) string) (config, error) {
	var errs []error
	str := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	num := func(name string, def, lo, hi int) int {
		v := getenv(name)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			errs = append(errs, fmt.Errorf("%s=%q: want an integer from %d to %d", name, v, lo, hi))
		}
		return n
	}
	cfg := config{
		addr:          net.JoinHostPort("", strconv.Itoa(num("PORT", 8080, 1, 65535))),
		maxConcurrent: num("MAX_CONCURRENT_REQUESTS", 1000, 1, math.MaxInt32),
		pprofAddr:     getenv("PPROF_ADDR"),
		store: store.Config{
			Host:           str("POSTGRES_HOST", "localhost"),
			Port:           num("POSTGRES_PORT", 5432, 1, 65535),
			User:           str("POSTGRES_USER", "postgres"),
			Password:       str("POSTGRES_PASSWORD", "postgres"),
			Database:       str("POSTGRES_NAME", "bank"),
			PoolSize:       int32(num("POSTGRES_CONNECTIONS_SIZE", 95, 1, math.MaxInt32)),
			AcquireTimeout: time.Duration(num("POSTGRES_ACQUIRE_TIMEOUT_MS", 3000, 1, math.MaxInt32)) * time.Millisecond,
		},
	}
	if cfg.pprofAddr != "" && !loopback(cfg.pprofAddr) {
		errs = append(errs, fmt.Errorf("PPROF_ADDR=%q: want a loopback host and a port, such as 127.0.0.1:6060", cfg.pprofAddr))
	}
	return cfg, errors.Join(errs...)
}

// loopback reports whether addr is host:port with a loopback host.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
