module bankbench/db

go 1.26
