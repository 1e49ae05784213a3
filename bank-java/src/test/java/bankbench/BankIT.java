package bankbench;

import tools.jackson.databind.JsonNode;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;
import org.springframework.test.web.servlet.client.RestTestClient;

import bankbench.support.BankApi;
import bankbench.support.BankIntegrationTest;
import bankbench.support.Ledger;

import static org.assertj.core.api.Assertions.assertThat;

/** The service against PostgreSQL, one request at a time. */
@BankIntegrationTest
class BankIT {

	@Autowired
	private RestTestClient http;

	@Autowired
	private JdbcTemplate jdbc;

	private BankApi bank;

	private Ledger ledger;

	@BeforeEach
	void setUp() {
		this.bank = new BankApi(this.http);
		this.ledger = new Ledger(this.jdbc);
	}

	@Test
	void callsItsRepositoriesWithoutAProxy(@Autowired ApplicationContext context) {
		// A proxy translating exceptions that JdbcTemplate has translated already costs a
		// reflective call per statement (1.3 % of the CPU at capacity in a flame graph).
		assertThat(context.getBeansWithAnnotation(Repository.class).values()).isNotEmpty()
			.noneMatch(AopUtils::isAopProxy);
	}

	@Test
	void isReady() {
		this.http.get().uri("/health").exchange().expectStatus().isOk().expectBody().json("{\"status\":\"Ok\"}");
	}

	@Test
	void createsClientWithItsOpeningDeposit() {
		JsonNode client = BankApi.ok(this.http.post().uri("/client/new/1234").exchange());
		long id = client.get("id").asLong();
		assertThat(client.toString())
			.isEqualTo("{\"id\":" + id + ",\"name\":\"\",\"email\":\"\",\"phone\":\"\",\"balance\":1234}");
		assertThat(this.bank.balance(id)).isEqualTo(1234);
		assertThat(this.ledger.rows(null, id, 1234)).isOne();
	}

	@Test
	void createsEmptyClientWithoutDeposit() {
		long id = this.bank.createClient(0);
		assertThat(this.bank.balance(id)).isZero();
		assertThat(this.ledger.balance(id)).isZero();
	}

	@Test
	void transfersAndWritesTheLedger() {
		long from = this.bank.createClient(100);
		long to = this.bank.createClient(5);
		JsonNode transfer = BankApi.ok(this.bank.transfer(from, to, 30));
		long id = transfer.get("id").asLong();
		assertThat(transfer.toString())
			.isEqualTo("{\"id\":" + id + ",\"from_client_id\":" + from + ",\"to_client_id\":" + to + ",\"amount\":30}");
		assertThat(this.ledger.hasRow(id, from, to, 30)).isTrue();
		assertBalances(from, 70, to, 35);
	}

	@Test
	void movesNothingForUnknownClient() {
		long from = this.bank.createClient(100);
		this.bank.transfer(from, Long.MAX_VALUE, 1)
			.expectStatus()
			.isNotFound()
			.expectBody()
			.json("{\"status\":\"Error\",\"message\":\"client not found\"}");
		this.bank.transfer(Long.MAX_VALUE, from, 1).expectStatus().isNotFound();
		assertThat(this.bank.balance(from)).isEqualTo(100);
		this.http.get().uri("/client/{id}/balance", Long.MAX_VALUE).exchange().expectStatus().isNotFound();
	}

	@Test
	void movesNothingOnInsufficientFunds() {
		long from = this.bank.createClient(10);
		long to = this.bank.createClient(0);
		this.bank.transfer(from, to, 11)
			.expectStatus()
			.isEqualTo(422)
			.expectBody()
			.json("{\"status\":\"Error\",\"message\":\"insufficient funds\"}");
		assertThat(this.ledger.rows(from, to, 11)).isZero();
		BankApi.ok(this.bank.transfer(from, to, 10));
		assertBalances(from, 0, to, 10);
	}

	private void assertBalances(long first, long firstBalance, long second, long secondBalance) {
		assertThat(this.bank.balance(first)).isEqualTo(firstBalance).isEqualTo(this.ledger.balance(first));
		assertThat(this.bank.balance(second)).isEqualTo(secondBalance).isEqualTo(this.ledger.balance(second));
	}

}
