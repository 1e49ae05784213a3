package bankbench.support;

import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

import javax.sql.DataSource;

/** Pools that never give a connection, for the tests without a database. */
public final class Pools {

	private Pools() {
	}

	/** A pool whose every request for a connection fails with failure. */
	public static DataSource failing(SQLException failure) {
		return pool(() -> {
			throw failure;
		});
	}

	/** A pool that gives no connection in time, as HikariCP says it: 503. */
	public static DataSource down() {
		return failing(timedOut());
	}

	/**
	 * A pool whose requests for a connection wait until released counts down, then fail
	 * as {@link #down()}: a request holds its place under the admission limit meanwhile.
	 */
	public static DataSource held(CountDownLatch released) {
		return pool(() -> {
			released.await();
			throw timedOut();
		});
	}

	private static SQLException timedOut() {
		return new SQLTransientConnectionException("bank - Connection is not available, request timed out");
	}

	private static DataSource pool(Callable<Object> getConnection) {
		return (DataSource) Proxy.newProxyInstance(Pools.class.getClassLoader(), new Class<?>[] { DataSource.class },
				(proxy, method, args) -> {
					if (!method.getName().equals("getConnection")) {
						throw new UnsupportedOperationException(method.getName());
					}
					return getConnection.call();
				});
	}

}
