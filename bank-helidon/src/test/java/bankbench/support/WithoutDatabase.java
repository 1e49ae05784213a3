package bankbench.support;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import bankbench.TestService;

/**
 * The tests of what the service answers before any database call: it runs over a pool
 * that never gives a connection, so a request that passes every check is a 503.
 */
public abstract class WithoutDatabase {

	protected static TestService service;

	@BeforeAll
	static void start() {
		service = TestService.start(Pools.down());
	}

	@AfterAll
	static void stop() {
		service.close();
	}

}
