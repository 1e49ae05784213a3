package bankbench.system;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.thread.Threading;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

/**
 * Logs, once the service listens, what a benchmark result depends on (the JDK, whether
 * request threads are virtual, the pool size, the admission limit), and warns when the
 * database does not answer yet. The probe also opens the pool, so that the first request
 * does not pay for it.
 */
@Component
class StartupLog {

	private static final Logger log = LoggerFactory.getLogger(StartupLog.class);

	private final Environment environment;

	private final DatabaseHealth database;

	StartupLog(Environment environment, DatabaseHealth database) {
		this.environment = environment;
		this.database = database;
	}

	@EventListener(ApplicationReadyEvent.class)
	void ready() {
		// Threading.VIRTUAL is only active when the property is set and the JDK is 21 or
		// later: on 17 the property is silently ignored, and this line says so.
		log.info("Java {}, virtual threads {}, pool of {} connections, at most {} requests at once", Runtime.version(),
				Threading.VIRTUAL.isActive(this.environment) ? "on" : "off",
				this.environment.getProperty("spring.datasource.hikari.maximum-pool-size"),
				this.environment.getProperty("bankbench.max-concurrent-requests"));
		try {
			this.database.check();
		}
		catch (DataAccessException ex) {
			log.warn("Database unavailable, answering 503 until it is up: {}", ex.getMostSpecificCause().toString());
		}
	}

}
