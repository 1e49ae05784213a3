package bankbench.web;

import java.util.concurrent.Executor;
import java.util.function.IntSupplier;

import org.apache.catalina.connector.Connector;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

/**
 * The requests waiting in Tomcat's queue for a request thread: on platform threads, past
 * the 200 threads, requests queue there, before any filter sees them, and when the CPU is
 * the bottleneck that queue, not the pool's, is where they wait (issue 35). On virtual
 * threads Tomcat has no queue: 0. The admission limit counts them as held.
 */
class TomcatQueue implements IntSupplier {

	private volatile Connector connector;

	void watch(Connector connector) {
		this.connector = connector;
	}

	@Override
	public int getAsInt() {
		Connector watched = this.connector;
		Executor executor = (watched != null) ? watched.getProtocolHandler().getExecutor() : null;
		return (executor instanceof ThreadPoolExecutor pool) ? pool.getQueue().size() : 0;
	}

}
