package bankbench.web;

/** The body of a successful liveness or readiness check: {@code {"status":"Ok"}}. */
record Status(String status) {

	static final Status OK = new Status("Ok");

}
