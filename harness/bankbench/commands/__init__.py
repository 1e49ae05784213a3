"""The verbs whose work is spread over several floors; the others live in the module that does
their work (checks.verify, publish.report ...). cli.VERBS maps each verb to its one module."""
