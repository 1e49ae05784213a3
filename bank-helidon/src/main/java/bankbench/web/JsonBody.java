package bankbench.web;

import java.io.IOException;
import java.util.Optional;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;

/**
 * Reads a request body meant to be JSON within the contract's limits, as the Go service's
 * {@code readJSON}: a {@code Content-Type} other than {@code application/json} is 415
 * (none at all is taken as JSON), and a body over {@value #MAX_BYTES} bytes is 413, told
 * by its {@code Content-Length} before reading or, when chunked, as soon as it passes the
 * limit. A body refused for its size is never read whole.
 */
public final class JsonBody {

	/** The largest body read: a transfer takes well under 200 bytes. */
	public static final int MAX_BYTES = 64 * 1024;

	private static final String JSON = "application/json";

	private JsonBody() {
	}

	/**
	 * Returns the body of request, or throws the contract's 415 {@link ApiException} or
	 * its 413 {@link BodyTooLargeException}.
	 */
	public static byte[] read(ServerRequest request) throws IOException {
		Optional<String> contentType = request.headers().first(HeaderNames.CONTENT_TYPE);
		if (contentType.isPresent() && !isJson(contentType.get())) {
			throw new ApiException(Status.UNSUPPORTED_MEDIA_TYPE_415.code(), "Content-Type must be " + JSON);
		}
		if (request.headers().contentLength().orElse(0) > MAX_BYTES) {
			throw new BodyTooLargeException();
		}
		if (!request.content().hasEntity()) {
			return new byte[0];
		}
		byte[] body = request.content().inputStream().readNBytes(MAX_BYTES + 1);
		if (body.length > MAX_BYTES) {
			throw new BodyTooLargeException();
		}
		return body;
	}

	/**
	 * Reports whether a Content-Type names application/json. Only the media type counts,
	 * ASCII case aside: a parameter such as charset=utf-8 changes nothing (JSON is
	 * UTF-8), a malformed one neither. Helidon reads headers as ISO-8859-1, so no other
	 * letter folds to an ASCII one.
	 */
	static boolean isJson(String contentType) {
		int semicolon = contentType.indexOf(';');
		String mediaType = (semicolon < 0) ? contentType : contentType.substring(0, semicolon);
		return mediaType.trim().equalsIgnoreCase(JSON);
	}

}
