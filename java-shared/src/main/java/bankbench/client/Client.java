package bankbench.client;

/** A bank client, as {@code POST /client/new/{balance}} returns it. */
record Client(long id, String name, String email, String phone, long balance) {
}
