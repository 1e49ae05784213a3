package bankbench.web;

import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import bankbench.system.DatabaseHealth;

/** {@code GET /health}: ready when the database answers, else 503. */
@RestController
class HealthController {

	private final DatabaseHealth database;

	HealthController(DatabaseHealth database) {
		this.database = database;
	}

	@GetMapping("/health")
	Status health() {
		try {
			this.database.check();
		}
		catch (DataAccessException ex) {
			// Any failure means not ready: the contract allows only 200 or 503 here.
			throw new ApiException(HttpStatus.SERVICE_UNAVAILABLE.value(), ApiErrors.DATABASE_UNAVAILABLE);
		}
		return Status.OK;
	}

}
