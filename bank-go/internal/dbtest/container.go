package dbtest

import (
	"context"
	"fmt"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/modules/postgres"

	"bankbench/bank-go/store"
)

// image is PostgreSQL 15, the minor release Debian 12 ships, pinned.
const image = "postgres:15.18-alpine"

// dockerAnswers reports whether a Docker engine answers. It is the check of
// testcontainers.SkipIfProviderIsNotHealthy, which skips where the test
// convention wants a failure; like it, it takes a panic for a no.
func dockerAnswers(ctx context.Context) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	provider, err := testcontainers.ProviderDocker.GetProvider()
	if err != nil {
		return false
	}
	defer provider.Close()
	return provider.Health(ctx) == nil
}

// startContainer starts PostgreSQL in a container and returns cfg completed
// with its address and credentials, and how to remove the container.
func startContainer(ctx context.Context, cfg store.Config) (store.Config, func(), error) {
	ctr, err := postgres.Run(ctx, image, postgres.BasicWaitStrategies())
	stop := func() { _ = testcontainers.TerminateContainer(ctr) }
	if err == nil {
		cfg.Host, cfg.Port, err = address(ctx, ctr)
	}
	if err != nil {
		stop()
		return cfg, func() {}, fmt.Errorf("dbtest: %w", err)
	}
	// The module's defaults: user, password and database "postgres".
	cfg.User, cfg.Password, cfg.Database = "postgres", "postgres", "postgres"
	return cfg, stop, nil
}

// address returns the host and port where ctr serves PostgreSQL.
func address(ctx context.Context, ctr *postgres.PostgresContainer) (string, int, error) {
	host, err := ctr.Host(ctx)
	if err != nil {
		return "", 0, err
	}
	port, err := ctr.MappedPort(ctx, "5432/tcp")
	return host, int(port.Num()), err
}
