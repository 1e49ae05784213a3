package bankbench.client;

/** The body of {@code GET /client/{id}/balance}. */
record Balance(long balance) {
}
