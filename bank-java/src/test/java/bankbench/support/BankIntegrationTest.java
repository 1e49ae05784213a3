package bankbench.support;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.context.ContextConfiguration;

/**
 * The whole service on a random port against a real PostgreSQL (see
 * {@link TestDatabase}), called over HTTP with an injected {@code RestTestClient}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
// A small pool: other suites may share the database and its 100 connections.
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "POSTGRES_CONNECTIONS_SIZE=8")
@ContextConfiguration(initializers = TestDatabase.class)
@AutoConfigureRestTestClient
public @interface BankIntegrationTest {

}
