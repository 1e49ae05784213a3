package bankbench.web;

import java.util.LinkedHashSet;
import java.util.Set;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.webmvc.autoconfigure.WebMvcRegistrations;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.config.annotation.ContentNegotiationConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

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

	/**
	 * {@code OPTIONS} is not offered (no browser calls this API, so no CORS): it is a
	 * method the path does not serve, 405 with {@code Allow}, as in the Go service.
	 * Spring MVC alone would answer it 200 with an {@code Allow} header of its own
	 * wording.
	 */
	@Bean
	WebMvcRegistrations optionsNotServed() {
		return new WebMvcRegistrations() {

			@Override
			public RequestMappingHandlerMapping getRequestMappingHandlerMapping() {
				return new OptionsNotServed();
			}

		};
	}

	/**
	 * Turns the handler Spring MVC makes up for {@code OPTIONS} on a known path into a
	 * 405.
	 */
	private static final class OptionsNotServed extends RequestMappingHandlerMapping {

		@Override
		protected HandlerMethod handleNoMatch(Set<RequestMappingInfo> infos, String lookupPath,
				HttpServletRequest request) throws ServletException {
			HandlerMethod handler = super.handleNoMatch(infos, lookupPath, request);
			if (handler == null || !HttpMethod.OPTIONS.matches(request.getMethod())) {
				return handler;
			}
			Set<String> allowed = new LinkedHashSet<>();
			for (RequestMappingInfo info : infos) {
				if (info.getPathPatternsCondition() != null
						&& info.getPathPatternsCondition().getMatchingCondition(request) != null) {
					info.getMethodsCondition().getMethods().forEach((method) -> allowed.add(method.name()));
				}
			}
			throw new HttpRequestMethodNotSupportedException(request.getMethod(), allowed);
		}

	}

}
