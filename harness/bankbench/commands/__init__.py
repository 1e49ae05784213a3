"""The verbs whose work spans floors, a module each.

The other verbs live in the module that does their work (checks.verify, publish.report ...).
cli.VERBS maps each verb to its one module.

See harness/README.md."""
