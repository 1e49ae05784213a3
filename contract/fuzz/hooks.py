"""Schemathesis hooks: the rules of POST /transaction that JSON Schema cannot state.

Loaded through schemathesis.toml. Each rewrites a generated body only where JSON Schema and the
contract disagree, and keeps the case as valid or as invalid as it was for every other reason:

- an integer is written without fraction or exponent: JSON Schema counts 3.0 as an integer,
  the contract refuses it (400 `<field> must be an integer`), so 3.0 is sent as 3;
- `from_client_id` differs from `to_client_id` (rule 4): JSON Schema cannot compare two values,
  so a body naming one client twice gets the next id as its target.
"""

import schemathesis

FIELDS = ("from_client_id", "to_client_id", "amount")
MAX_ID = 2**63 - 1


@schemathesis.hook
def map_case(context, case):
    _keep_contract(case)
    return case


@schemathesis.hook
def before_call(context, case, kwargs):
    """Again just before sending: the stateful phase fills a field from a link after map_case
    (a created client's id as from_client_id), which can make it equal to to_client_id."""
    _keep_contract(case)


def _keep_contract(case):
    if case.operation.path == "/transaction" and isinstance(case.body, dict):
        body = {k: int(v) if k in FIELDS and type(v) is float and v.is_integer() else v
                for k, v in case.body.items()}
        source = body.get("from_client_id")
        if type(source) is int and source == body.get("to_client_id"):
            body["to_client_id"] = source + 1 if source < MAX_ID else source - 1
        case.body = body
