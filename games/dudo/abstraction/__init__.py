"""The abstraction a Dudo store is solved in: information sets of bounded memory (``infoset``: the
windows of recent claims a player remembers), the public DAG those windows make of a round (``dag``), and the
numeric precision of its tables (``precision``)."""
