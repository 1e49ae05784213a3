"""The run folder's floor: its files, read and written here alone.

The run folder is results/LAYOUT.md's; here too are the figures a level's files give (its summary).
The run floor writes through it; the analysis reads through it."""
