"""The bank under test: the services as processes, AOT cache, SQL, money check and hot accounts."""
