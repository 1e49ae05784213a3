package dbtest

import (
	"context"
	"fmt"
	"os"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/modules/postgres"
	"github.com/testcontainers/testcontainers-go/wait"

	"bankbench/bank-go/store"
)

// defaultImage is bankbench's PostgreSQL image (infra/docker/postgres), as
// docker-compose.yml names it: built by `make images`, never pulled.
const defaultImage = "bankbench/postgres"

// image is the PostgreSQL image of the tests: BANKBENCH_POSTGRES_IMAGE, else
// bankbench's own.
func image() string {
	return envOr("BANKBENCH_POSTGRES_IMAGE", defaultImage)
}

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
	// The image's own health check passes once the real server answers over
	// TCP (its set-up server listens on none).
	ctr, err := postgres.Run(ctx, image(),
		postgres.WithUsername("postgres"), postgres.WithPassword("postgres"), postgres.WithDatabase("bank"),
		testcontainers.WithWaitStrategy(wait.ForHealthCheck()))
	stop := func() { _ = testcontainers.TerminateContainer(ctr) }
	if err == nil {
		cfg.Host, cfg.Port, err = address(ctx, ctr)
	}
	if err != nil {
		stop()
		return cfg, func() {}, fmt.Errorf("dbtest: %w", err)
	}
	cfg.User, cfg.Password, cfg.Database = "postgres", "postgres", "bank"
	fmt.Fprintf(os.Stderr, "dbtest: PostgreSQL in a container of %s (Testcontainers) at %s:%d\n", image(), cfg.Host, cfg.Port)
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
