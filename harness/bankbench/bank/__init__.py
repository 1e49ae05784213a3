"""The bank under test: the services as processes, the JVM's AOT cache, and the database side the
harness shares with them: their SQL, the money check and the contention scenario's hot accounts."""
