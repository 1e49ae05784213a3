package bankbench.client;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /client/new/{balance}} and {@code GET /client/{id}/balance}, their path
 * parameters checked by {@link ClientPaths}.
 */
@RestController
class ClientController {

	private final ClientRepository clients;

	ClientController(ClientRepository clients) {
		this.clients = clients;
	}

	@PostMapping("/client/new/{balance}")
	Client create(@PathVariable String balance) {
		return this.clients.create(ClientPaths.openingBalance(balance));
	}

	@GetMapping("/client/{id}/balance")
	Balance balance(@PathVariable String id) {
		long balance = this.clients.balance(ClientPaths.id(id)).orElseThrow(ClientNotFoundException::new);
		return new Balance(balance);
	}

}
