package bankbench.web;

import org.apache.catalina.core.StandardHost;

import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Tomcat settings the contract needs that application.yaml cannot state. */
@Configuration(proxyBeanMethods = false)
class TomcatConfig {

	/**
	 * Errors Tomcat answers before Spring MVC are JSON too (see
	 * {@link JsonErrorReportValve}), and {@code 100 Continue} goes out only when the
	 * service reads the body, as in net/http: a client that asks first sends no body the
	 * service refuses (413, 415) before reading it.
	 */
	@Bean
	WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory> tomcatAsGoes(TomcatQueue queue) {
		return (factory) -> {
			factory.addContextCustomizers((context) -> ((StandardHost) context.getParent())
				.setErrorReportValveClass(JsonErrorReportValve.class.getName()));
			factory.addConnectorCustomizers((connector) -> connector.setProperty("continueResponseTiming", "onRead"),
					queue::watch);
		};
	}

	/**
	 * Tomcat's queue of requests waiting for a thread, which the admission limit counts.
	 */
	@Bean
	TomcatQueue tomcatQueue() {
		return new TomcatQueue();
	}

}
