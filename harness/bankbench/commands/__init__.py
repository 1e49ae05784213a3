"""The verbs whose work is spread over several floors (bench, aws, plan, summarize, compare, db,
services, capacity, tune); the others live in the module that does their work (checks.verify,
publish.report ...). cli.VERBS maps each verb to its one module."""
