package bankbench.web;

import java.io.IOException;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.HttpStatus;

/**
 * Reads a request body meant to be JSON within the contract's limits, as the Go service's
 * {@code readJSON}: a {@code Content-Type} other than {@code application/json} is 415
 * (none at all is taken as JSON), and a body over {@value #MAX_BYTES} bytes is 413, told
 * by its {@code Content-Length} before reading or, when chunked, as soon as it passes the
 * limit.
 */
public final class JsonBody {

	/** The largest body read: a transfer takes well under 200 bytes. */
	public static final int MAX_BYTES = 64 * 1024;

	private static final String JSON = "application/json";

	private JsonBody() {
	}

	/**
	 * Returns the body of request, or throws the contract's 415 or 413
	 * {@link ApiException}.
	 */
	public static byte[] read(HttpServletRequest request) throws IOException {
		String contentType = request.getHeader("Content-Type");
		if (contentType != null && !isJson(contentType)) {
			throw new ApiException(HttpStatus.UNSUPPORTED_MEDIA_TYPE.value(), "Content-Type must be " + JSON);
		}
		if (request.getContentLengthLong() > MAX_BYTES) {
			throw tooLarge();
		}
		byte[] body = request.getInputStream().readNBytes(MAX_BYTES + 1);
		if (body.length > MAX_BYTES) {
			throw tooLarge();
		}
		return body;
	}

	/**
	 * Reports whether a Content-Type names application/json. Only the media type counts,
	 * ASCII case aside: a parameter such as charset=utf-8 changes nothing (JSON is
	 * UTF-8), a malformed one neither. Tomcat reads headers as ISO-8859-1, so no other
	 * letter folds to an ASCII one.
	 */
	static boolean isJson(String contentType) {
		int semicolon = contentType.indexOf(';');
		String mediaType = (semicolon < 0) ? contentType : contentType.substring(0, semicolon);
		return mediaType.trim().equalsIgnoreCase(JSON);
	}

	private static ApiException tooLarge() {
		String message = "request body must be at most " + MAX_BYTES + " bytes";
		return new ApiException(HttpStatus.CONTENT_TOO_LARGE.value(), message);
	}

}
