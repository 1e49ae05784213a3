package bankbench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.web.servlet.client.RestTestClient;

import bankbench.support.BankApi;
import bankbench.support.BankIntegrationTest;
import bankbench.support.CrossingTransfers;
import bankbench.support.Ledger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Concurrent transfers over HTTP: crossing transfers must neither deadlock nor lose
 * money, and an account must never be overdrawn.
 */
@BankIntegrationTest
class ConcurrencyIT {

	private static final int THREADS = 16;

	@Autowired
	private RestTestClient http;

	@Autowired
	private JdbcTemplate jdbc;

	private BankApi bank;

	@BeforeEach
	void setUp() {
		this.bank = new BankApi(this.http);
	}

	@Test
	void crossingTransfersEndWithExactBalances() throws Exception {
		long[] accounts = new long[CrossingTransfers.ACCOUNTS];
		for (int i = 0; i < accounts.length; i++) {
			accounts[i] = this.bank.createClient(CrossingTransfers.OPENING_BALANCE);
		}
		List<Callable<Integer>> transfers = new ArrayList<>();
		for (CrossingTransfers.Move move : CrossingTransfers.moves()) {
			long from = accounts[move.from()];
			long to = accounts[move.to()];
			transfers.add(() -> status(this.bank.transfer(from, to, move.amount())));
		}
		assertThat(runTogether(transfers)).containsOnly(200);
		long[] expected = CrossingTransfers.balances();
		Ledger ledger = new Ledger(this.jdbc);
		for (int i = 0; i < accounts.length; i++) {
			assertThat(this.bank.balance(accounts[i])).isEqualTo(expected[i]).isEqualTo(ledger.balance(accounts[i]));
		}
	}

	@Test
	void contendedAccountIsNeverOverdrawn() throws Exception {
		long source = this.bank.createClient(100);
		long[] targets = { this.bank.createClient(0), this.bank.createClient(0) };
		List<Callable<Integer>> transfers = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			long target = targets[i % 2];
			transfers.add(() -> status(this.bank.transfer(source, target, 10)));
		}
		List<Integer> statuses = runTogether(transfers);
		assertThat(statuses).containsOnly(200, 422);
		assertThat(statuses).filteredOn((status) -> status == 200).hasSize(10);
		assertThat(this.bank.balance(source)).isZero();
		assertThat(this.bank.balance(targets[0]) + this.bank.balance(targets[1])).isEqualTo(100);
	}

	private static int status(RestTestClient.ResponseSpec response) {
		return response.returnResult().getStatus().value();
	}

	/**
	 * Runs the calls from many threads at once, bounded in time, and returns their
	 * results in order.
	 */
	private static List<Integer> runTogether(List<Callable<Integer>> calls) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Integer>> results = new ArrayList<>();
			for (Callable<Integer> call : calls) {
				results.add(pool.submit(() -> {
					start.await();
					return call.call();
				}));
			}
			start.countDown();
			List<Integer> statuses = new ArrayList<>();
			for (Future<Integer> result : results) {
				statuses.add(result.get(30, TimeUnit.SECONDS));
			}
			return statuses;
		}
		finally {
			pool.shutdownNow();
		}
	}

}
