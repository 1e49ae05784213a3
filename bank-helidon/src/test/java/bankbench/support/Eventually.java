package bankbench.support;

import org.junit.jupiter.api.function.Executable;

/**
 * Assertions on what the server does after it has written an answer: its filters time the
 * request and release its admission permit once the answer is sent, so a client that has
 * read it may look before they have run.
 */
public final class Eventually {

	private static final long DEADLINE_NANOS = 5_000_000_000L;

	private Eventually() {
	}

	/**
	 * Runs assertion until it passes, for at most 5 s; then rethrows its last failure.
	 */
	public static void eventually(Executable assertion) throws Throwable {
		long deadline = System.nanoTime() + DEADLINE_NANOS;
		while (true) {
			try {
				assertion.execute();
				return;
			}
			catch (AssertionError | RuntimeException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				Thread.sleep(10);
			}
		}
	}

}
