package bankbench.system;

import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.config.annotation.ContentNegotiationConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** Spring MVC settings the contract needs. */
@Configuration(proxyBeanMethods = false)
class WebConfig implements WebMvcConfigurer {

	/**
	 * Answers JSON whatever the Accept header asks for, as the Go service does: content
	 * negotiation must never turn a request into a 406, which the contract does not have.
	 */
	@Override
	public void configureContentNegotiation(ContentNegotiationConfigurer configurer) {
		configurer.ignoreAcceptHeader(true).defaultContentType(MediaType.APPLICATION_JSON);
	}

}
