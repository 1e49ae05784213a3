package bankbench;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import bankbench.support.CrossingTransfers;
import bankbench.support.TestDatabase;

import static bankbench.support.Answers.assertError;
import static bankbench.support.Answers.assertJson;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The whole service against a real PostgreSQL (see {@link TestDatabase}): what each
 * request writes, and crossing transfers at once. The tests create their own clients, so
 * the database may be shared and need not be empty.
 */
class BankIT {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static TestService service;

	@BeforeAll
	static void start() {
		service = TestService.on(TestDatabase.settings());
	}

	@AfterAll
	static void stop() {
		service.close();
	}

	@Test
	void aClientIsCreatedWithItsOpeningDepositInTheLedger() throws SQLException {
		HttpResponse<String> created = service.send("POST", "/client/new/400", null);
		long id = json(created).get("id").asLong();
		assertJson(200, "{\"id\":" + id + ",\"name\":\"\",\"email\":\"\",\"phone\":\"\",\"balance\":400}", created);
		assertJson(200, "{\"balance\":400}", service.get("/client/" + id + "/balance"));
		assertEquals(400, ledger("SELECT sum(amount) FROM transaction WHERE to_client_id = ?", id));
		assertEquals(0, ledger("SELECT count(*) FROM transaction WHERE to_client_id = ?", create(0)));
	}

	@Test
	void aTransferMovesTheAmountAndWritesItsLedgerRow() throws SQLException {
		long from = create(400);
		long to = create(300);
		HttpResponse<String> moved = transfer(from, to, 10);
		long id = json(moved).get("id").asLong();
		assertJson(200, "{\"id\":" + id + ",\"from_client_id\":" + from + ",\"to_client_id\":" + to + ",\"amount\":10}",
				moved);
		assertArrayEquals(new long[] { 390, 310 }, new long[] { balance(from), balance(to) });
		assertEquals(10, ledger("SELECT amount FROM transaction WHERE id = ?", id));
	}

	@Test
	void aTransferThatCannotBeMadeChangesNothing() {
		long poor = create(5);
		long other = create(0);
		assertError(422, "insufficient funds", transfer(poor, other, 6));
		assertError(404, "client not found", transfer(poor, 1L << 62, 1));
		assertError(404, "client not found", service.get("/client/" + (1L << 62) + "/balance"));
		assertArrayEquals(new long[] { 5, 0 }, new long[] { balance(poor), balance(other) });
	}

	@Test
	void crossingTransfersAtOnceEndWithExactBalances() throws Exception {
		long[] accounts = new long[CrossingTransfers.ACCOUNTS];
		for (int i = 0; i < accounts.length; i++) {
			accounts[i] = create(CrossingTransfers.OPENING_BALANCE);
		}
		List<Future<Integer>> statuses = new ArrayList<>();
		try (ExecutorService senders = Executors.newFixedThreadPool(16)) {
			for (CrossingTransfers.Move move : CrossingTransfers.moves()) {
				long from = accounts[move.from()];
				long to = accounts[move.to()];
				statuses.add(senders.submit(() -> transfer(from, to, move.amount()).statusCode()));
			}
		}
		for (Future<Integer> status : statuses) {
			assertEquals(200, status.get());
		}
		long[] balances = new long[accounts.length];
		for (int i = 0; i < accounts.length; i++) {
			balances[i] = balance(accounts[i]);
		}
		assertArrayEquals(CrossingTransfers.balances(), balances);
	}

	private static long create(long balance) {
		return json(service.send("POST", "/client/new/" + balance, null)).get("id").asLong();
	}

	private static long balance(long id) {
		return json(service.get("/client/" + id + "/balance")).get("balance").asLong();
	}

	private static HttpResponse<String> transfer(long from, long to, long amount) {
		return service.send("POST", "/transaction",
				"{\"from_client_id\":" + from + ",\"to_client_id\":" + to + ",\"amount\":" + amount + "}");
	}

	private static JsonNode json(HttpResponse<String> response) {
		return JSON.readTree(response.body());
	}

	/** The one figure a query on the ledger answers for id. */
	private static long ledger(String sql, long id) throws SQLException {
		try (Connection connection = service.pool().getConnection();
				PreparedStatement query = connection.prepareStatement(sql)) {
			query.setLong(1, id);
			try (ResultSet row = query.executeQuery()) {
				row.next();
				return row.getLong(1);
			}
		}
	}

}
