-- One statement: the client and its opening deposit appear together or not at all.
WITH new_client AS (
    INSERT INTO client (balance) VALUES ($1)
    RETURNING id, name, email, phone, balance
), deposit AS (
    INSERT INTO transaction (to_client_id, amount)
    SELECT id, balance FROM new_client WHERE balance > 0
)
SELECT id, name, email, phone, balance FROM new_client
