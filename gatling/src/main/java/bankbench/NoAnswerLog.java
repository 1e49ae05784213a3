package bankbench;

import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;

/**
 * The exception of each request that got no HTTP answer (refused, reset, timed out), so that its
 * sample's responseCode names it as JMeter's does: "Non HTTP response code: CLASS".
 *
 * <p>Gatling keeps that exception out of the virtual user's session; it logs it at DEBUG, once per
 * such request, as "Request 'NAME' failed for user ID" with the exception
 * (io.gatling.http.engine.GatlingHttpListener, 3.15), on the user's event loop before the user
 * moves on. This appender listens to that one logger only (nothing else is turned to DEBUG, and
 * a request with an answer never logs there) and keeps the exception's class by user id until
 * the sample is written. Should a later Gatling change that line, the samples say "Non HTTP
 * response code: no answer" instead: the same meaning, without the class.
 */
final class NoAnswerLog extends AppenderBase<ILoggingEvent> {

	static final String LOGGER = "io.gatling.http.engine.GatlingHttpListener";

	private static final String MARK = " failed for user ";

	private final ConcurrentHashMap<Long, String> byUser = new ConcurrentHashMap<>();

	/** Attaches an appender to Gatling's logger of failed requests (not passed on to the console). */
	static NoAnswerLog install() {
		NoAnswerLog log = new NoAnswerLog();
		if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
			log.setContext(context);
			log.setName("bankbench-no-answer");
			log.start();
			Logger logger = context.getLogger(LOGGER);
			logger.setLevel(Level.DEBUG);
			logger.setAdditive(false);
			logger.addAppender(log);
		}
		return log;
	}

	@Override
	protected void append(ILoggingEvent event) {
		IThrowableProxy thrown = event.getThrowableProxy();
		String message = event.getFormattedMessage();
		int at = message == null ? -1 : message.lastIndexOf(MARK);
		if (thrown == null || at < 0) {
			return;
		}
		try {
			long user = Long.parseLong(message.substring(at + MARK.length()).trim());
			this.byUser.put(user, thrown.getClassName());
		}
		catch (NumberFormatException ex) {
			// not the line described above: ignored
		}
	}

	/** JMeter's responseCode for a request of `user` that got no answer (taken once). */
	String responseCode(long user) {
		String exception = this.byUser.remove(user);
		return "Non HTTP response code: " + (exception != null ? exception : "no answer");
	}

}
