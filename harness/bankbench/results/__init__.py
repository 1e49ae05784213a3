"""The run folder (results/LAYOUT.md): its files, read and written here alone, and the figures a
level's files give (its summary). The run floor writes through it; the analysis reads through it."""
