package bankbench.web;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import io.helidon.http.HeaderNames;
import io.helidon.http.HttpPrologue;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRoute;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * The services' routes, and an answer to the requests none of them takes: 405 with
 * {@code Allow} when a route serves the path with other methods, else 404, in the
 * contract's JSON. Helidon alone answers both 404, in plain text. The routes are recorded
 * as each service registers them, so the services' {@code routing} methods stay the only
 * list of routes, and each method is tried on the request's path, as the Go service's
 * {@code handleNoRoute} asks its mux.
 */
public final class Routes {

	/**
	 * The methods tried on a path no route takes, in the order {@code Allow} lists them.
	 */
	private static final List<Method> PROBED = List.of(Method.GET, Method.HEAD, Method.POST, Method.PUT, Method.PATCH,
			Method.DELETE);

	private Routes() {
	}

	/**
	 * A route for {@code GET} and {@code HEAD} on path: the servers of the other services
	 * serve {@code HEAD} wherever they serve {@code GET}.
	 */
	public static HttpRoute get(String path, Handler handler) {
		return route(path, handler, Method.GET, Method.HEAD);
	}

	/** A route for {@code POST} on path. */
	public static HttpRoute post(String path, Handler handler) {
		return route(path, handler, Method.POST);
	}

	/** A route whose handler's failures {@link ApiErrors} answers. */
	private static HttpRoute route(String path, Handler handler, Method... methods) {
		return HttpRoute.builder().methods(methods).path(path).handler(ApiErrors.answering(handler)).build();
	}

	/** Registers services on rules, then the answer to what none of them takes. */
	public static void register(HttpRules rules, HttpService... services) {
		Recorder recorder = new Recorder(rules);
		for (HttpService service : services) {
			service.routing(recorder);
		}
		rules.any(new NoRoute(List.copyOf(recorder.routes)));
	}

	/** Passes every route on to the real rules, and keeps it. */
	private static final class Recorder implements HttpRules {

		private final HttpRules rules;

		private final List<HttpRoute> routes = new ArrayList<>();

		private Recorder(HttpRules rules) {
			this.rules = rules;
		}

		@Override
		public HttpRules register(HttpService... services) {
			throw new UnsupportedOperationException("services are registered through Routes.register");
		}

		@Override
		public HttpRules register(String pathPattern, HttpService... services) {
			throw new UnsupportedOperationException("services are registered through Routes.register");
		}

		@Override
		public HttpRules route(HttpRoute route) {
			this.routes.add(route);
			this.rules.route(route);
			return this;
		}

	}

	/** The last route: 405 with the methods that the path is served with, or 404. */
	private record NoRoute(List<HttpRoute> routes) implements Handler {

		@Override
		public void handle(ServerRequest req, ServerResponse res) {
			HttpPrologue asked = req.prologue();
			StringJoiner allowed = new StringJoiner(", ");
			for (Method method : PROBED) {
				HttpPrologue probe = HttpPrologue.create(asked.rawProtocol(), asked.protocol(), asked.protocolVersion(),
						method, asked.uriPath(), asked.query(), asked.fragment());
				if (this.routes.stream().anyMatch((route) -> route.accepts(probe).accepted())) {
					allowed.add(method.text());
				}
			}
			if (allowed.length() == 0) {
				ApiErrors.send(req, res, Status.NOT_FOUND_404);
				return;
			}
			res.header(HeaderNames.ALLOW, allowed.toString());
			ApiErrors.send(req, res, Status.METHOD_NOT_ALLOWED_405);
		}

	}

}
