package bankbench.support;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The crossing transfers of each Java service's concurrency test: 96 transfers among four
 * accounts, every ordered pair of them, A to B as well as B to A, with varied amounts.
 * Sent at once, they must neither deadlock nor lose money: each account ends with exactly
 * {@link #balances()}.
 */
public final class CrossingTransfers {

	/** The accounts, each opened with {@link #OPENING_BALANCE}. */
	public static final int ACCOUNTS = 4;

	/** The opening balance of each account. */
	public static final long OPENING_BALANCE = 10_000;

	private static final int TRANSFERS = 96;

	private CrossingTransfers() {
	}

	/** The transfers, in the order they are sent. */
	public static List<Move> moves() {
		List<Move> moves = new ArrayList<>();
		for (int i = 0; i < TRANSFERS; i++) {
			int from = i % ACCOUNTS;
			int to = (from + 1 + (i / ACCOUNTS) % (ACCOUNTS - 1)) % ACCOUNTS;
			moves.add(new Move(from, to, 1 + i % 7));
		}
		return moves;
	}

	/** The balance each account ends with once every transfer is made. */
	public static long[] balances() {
		long[] balances = new long[ACCOUNTS];
		Arrays.fill(balances, OPENING_BALANCE);
		for (Move move : moves()) {
			balances[move.from()] -= move.amount();
			balances[move.to()] += move.amount();
		}
		return balances;
	}

	/** A transfer of amount between two accounts, each by its index. */
	public record Move(int from, int to, long amount) {
	}

}
