package bankbench.web;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Replaces Spring Boot's error controller, whose body would leak Boot's own format: it
 * answers the errors the servlet container forwards (a method Tomcat rejects itself, such
 * as TRACE, or an exception thrown outside Spring MVC) in the contract's format. Asked
 * for directly, its path is unknown: 404.
 */
@RestController
class ErrorPageController implements ErrorController {

	@RequestMapping("${server.error.path:/error}")
	ResponseEntity<ApiErrors.ErrorBody> error(HttpServletRequest request) {
		Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
		HttpStatus status = (code instanceof Integer value) ? HttpStatus.resolve(value) : HttpStatus.NOT_FOUND;
		return ApiErrors.error((status != null) ? status : HttpStatus.INTERNAL_SERVER_ERROR);
	}

}
