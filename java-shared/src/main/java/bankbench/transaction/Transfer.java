package bankbench.transaction;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A ledger row moving amount from one client to another, as {@code POST /transaction}
 * returns it.
 */
record Transfer(long id, @JsonProperty("from_client_id") long fromClientId,
		@JsonProperty("to_client_id") long toClientId, long amount) {
}
