package bankbench.system;

/**
 * The contract's limit on money (api/openapi.yaml), the one copy of it in the Java
 * services.
 */
public final class Money {

	/** The largest opening balance or amount of a transfer, 10^15. */
	public static final long MAX = 1_000_000_000_000_000L;

	private Money() {
	}

}
