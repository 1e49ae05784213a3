"""The report: results/report/README.md with its tables and charts, and the executed notebook.

See docs/method.md#the-report."""
