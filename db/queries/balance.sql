SELECT balance FROM client WHERE id = $1
