package bankbench.web;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /}: the service is up, whatever the state of the database. */
@RestController
class LivenessController {

	@GetMapping("/")
	Status live() {
		return Status.OK;
	}

}
