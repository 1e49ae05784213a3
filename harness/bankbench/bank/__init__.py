"""The bank under test: the services of services.yaml as processes (started, healthy, stopped),
the JVM's AOT cache, and the database side the harness shares with them: their SQL, the money
check and the contention scenario's hot accounts.
"""
