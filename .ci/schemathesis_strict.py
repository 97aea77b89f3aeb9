"""Schemathesis hooks for CI's strict run against the OpenAPI document
(SCHEMATHESIS_HOOKS=schemathesis_strict): requests go out as schemathesis draws them from the
document, with the checks of both runs (schemathesis_checks.py), bodies as JSON.
"""

import schemathesis
from schemathesis_checks import json_bodies  # and registers the checks of both runs


@schemathesis.hook
def before_call(context, case, kwargs):
    json_bodies(case)
